"""Kernel interfaces the sandbox uses: namespaces, mounts, prctl, seccomp, SysV IPC clean-up.

Imported by the zygote and the worker; holds no state about any oracle or candidate.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REC = 16384
MS_PRIVATE = 1 << 18
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_SECCOMP = 22
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_MODE_FILTER = 2

try:
    _libc: ctypes.CDLL | None = ctypes.CDLL(None, use_errno=True)
except OSError:  # pragma: no cover - no libc: isolation degrades to rlimits only
    _libc = None


def libc_call(name: str, *args: object) -> int:
    """Call a libc function; raise OSError with errno when it returns -1."""
    if _libc is None:
        raise OSError(errno.ENOSYS, "libc unavailable")
    fn = getattr(_libc, name)
    r = fn(*args)
    if r == -1:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return int(r)


def unshare(flags: int) -> None:
    libc_call("unshare", flags)


def mount(source: str, target: str, fstype: str | None, flags: int, data: str | None) -> None:
    libc_call(
        "mount",
        source.encode(),
        target.encode(),
        fstype.encode() if fstype is not None else None,
        ctypes.c_ulong(flags),
        data.encode() if data is not None else None,
    )


def prctl(option: int, arg: int) -> None:
    libc_call("prctl", option, ctypes.c_ulong(arg), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))


def sethostname(name: str) -> None:
    data = name.encode()
    libc_call("sethostname", data, len(data))


def make_private_root() -> None:
    """Stop mount events propagating back to the host's namespace."""
    mount("none", "/", None, MS_REC | MS_PRIVATE, None)


def hide(path: str) -> bool:
    """Mount an empty, read-only tmpfs over `path` (a folder); False when it cannot."""
    if not os.path.isdir(path):
        return False
    try:
        mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, "size=4k,mode=555")
        return True
    except OSError:
        return False


def enter_user_namespace(flags: int) -> None:
    """As a non-root user: a user namespace (plus `flags`) in which this uid is root."""
    uid, gid = os.geteuid(), os.getegid()
    unshare(CLONE_NEWUSER | flags)
    with open("/proc/self/setgroups", "w") as f:
        f.write("deny")
    with open("/proc/self/uid_map", "w") as f:
        f.write("0 %d 1" % uid)
    with open("/proc/self/gid_map", "w") as f:
        f.write("0 %d 1" % gid)


# ---------------------------------------------------------------- seccomp

# Per architecture: audit arch, then syscall numbers (socket, ptrace, process_vm_readv,
# process_vm_writev, pidfd_open, pidfd_send_signal, io_uring_setup, keyctl, add_key,
# perf_event_open, bpf) refused with EPERM/EACCES, and (kill, tkill, tgkill) checked by pid.
_ARCH = {
    "x86_64": (0xC000003E, (41, 101, 310, 311, 434, 424, 425, 250, 248, 298, 321), (62, 200, 234)),
    "aarch64": (0xC00000B7, (198, 117, 270, 271, 434, 424, 425, 219, 217, 241, 280), (129, 130, 131)),
}
_RET_ALLOW = 0x7FFF0000
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000


def seccomp_supported() -> bool:
    return platform.machine() in _ARCH and _libc is not None


def seccomp_program(protected_pids: list[int], block_negative_kill: bool) -> bytes:
    """A BPF program: no sockets, no tracing or reading other processes, no pidfd signals, no
    io_uring; kill() of a protected pid or (in fallback) of a process group / every process refused."""
    arch, refused, kills = _ARCH[platform.machine()]
    prog: list[tuple[int, int, int, int]] = []

    def op(code: int, jt: int, jf: int, k: int) -> None:
        prog.append((code, jt, jf, k))

    ld_w_abs, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    op(ld_w_abs, 0, 0, 4)  # arch
    op(jeq, 1, 0, arch)
    op(ret, 0, 0, _RET_KILL_PROCESS)
    op(ld_w_abs, 0, 0, 0)  # syscall number
    if platform.machine() == "x86_64":
        op(jge, 0, 1, 0x40000000)  # x32 ABI numbers
        op(ret, 0, 0, _RET_KILL_PROCESS)
    for nr in refused:
        op(jeq, 0, 1, nr)
        op(ret, 0, 0, _RET_ERRNO | (errno.EACCES if nr == refused[0] else errno.EPERM))
    # kill-family: jump to the pid checks below.
    targets = ([0x80000000] if block_negative_kill else []) + [p & 0xFFFFFFFF for p in protected_pids]
    if targets:
        for i, nr in enumerate(kills):
            op(jeq, len(kills) - i, 0, nr)  # past the remaining jeq's and the allow
        op(ret, 0, 0, _RET_ALLOW)
        op(ld_w_abs, 0, 0, 16)  # low 32 bits of args[0] (little-endian)
        for k, value in enumerate(targets):
            # A match jumps past the remaining checks and the allow, onto the deny.
            op(jset if (block_negative_kill and k == 0) else jeq, len(targets) - k, 0, value)
        op(ret, 0, 0, _RET_ALLOW)
        op(ret, 0, 0, _RET_ERRNO | errno.EPERM)
    else:
        op(ret, 0, 0, _RET_ALLOW)
    return b"".join(struct.pack("HBBI", *ins) for ins in prog)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def apply_seccomp(protected_pids: list[int], block_negative_kill: bool) -> None:
    """Install the filter on this process (inherited by its children; cannot be removed)."""
    code = seccomp_program(protected_pids, block_negative_kill)
    buf = ctypes.create_string_buffer(code, len(code))
    prog = _SockFprog(len(code) // 8, ctypes.cast(buf, ctypes.c_void_p))
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    if _libc is None:
        raise OSError(errno.ENOSYS, "libc unavailable")
    if _libc.prctl(PR_SET_SECCOMP, ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(prog), ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


# ---------------------------------------------------------------- SysV IPC

_IPC_RMID = 0
_IPC_TABLES = (("shm", "shmctl"), ("msg", "msgctl"), ("sem", "semctl"))


def sysv_ids() -> set[tuple[str, int]]:
    """Every SysV shared memory segment, message queue and semaphore set this namespace holds."""
    ids: set[tuple[str, int]] = set()
    for table, _ in _IPC_TABLES:
        try:
            with open("/proc/sysvipc/" + table) as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            cols = line.split()
            if len(cols) > 1 and cols[1].isdigit():
                ids.add((table, int(cols[1])))
    return ids


def remove_sysv(ids: set[tuple[str, int]]) -> None:
    """Remove the given SysV objects (those a candidate created, in the no-namespace fallback)."""
    ctl = dict(_IPC_TABLES)
    for table, ident in ids:
        try:
            if table == "sem":
                libc_call("semctl", ident, 0, _IPC_RMID)
            else:
                libc_call(ctl[table], ident, _IPC_RMID, None)
        except OSError:
            pass
