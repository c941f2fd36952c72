"""Kernel interfaces the sandbox uses beyond what bubblewrap does: the per-candidate user, PID,
mount and IPC namespaces (bubblewrap builds one world per worker; each candidate needs a fresh
one inside it, and forking from a warm zygote is what keeps a verdict cheap), dropping every
capability, and the seccomp programs (one for bubblewrap's `--seccomp`, one allow-list that each
candidate installs on itself).

Imported by the zygote and the worker; holds no state about any oracle or candidate.
"""

from __future__ import annotations

import _thread
import ctypes
import errno
import os
import platform
import struct
from typing import Any

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
NAMESPACE_FLAGS = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_SECCOMP = 22
PR_CAPBSET_DROP = 24
PR_SET_SECUREBITS = 28
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
SECCOMP_MODE_FILTER = 2
# NOROOT, NO_SETUID_FIXUP and KEEP_CAPS, each with its lock: no way back to capabilities.
SECUREBITS_LOCKED = 0x2F
# The uid a candidate has inside its own user namespace (an ordinary user there).
CANDIDATE_UID = 1000

try:
    _libc: ctypes.CDLL | None = ctypes.CDLL(None, use_errno=True)
except OSError:  # pragma: no cover - no libc: isolation degrades to rlimits only
    _libc = None


def _typed(name: str, *argtypes: Any) -> Any:
    """A libc function with its argument types declared once, here: each call then converts
    plain ints and bytes in C instead of building ctypes objects in Python (a keeper or a
    candidate is a fork of the zygote, where every page Python touches is copied, a fault each)."""
    if _libc is None:
        return None
    fn = _libc[name]  # a function object of its own (unlike _libc.prctl, shared by every caller)
    fn.argtypes = argtypes
    fn.restype = ctypes.c_int
    return fn


_prctl = _typed("prctl", ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong)
_mount = _typed("mount", ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p)
_fork = _typed("fork")
# Declared here, once, rather than looked up on the library in each keeper and candidate (the
# zygote itself never calls them, so a lookup there would make and store a function object in
# every fork).
_unshare = _typed("unshare", ctypes.c_int)
_sched_getcpu = _typed("sched_getcpu")


def fork() -> int:
    """fork(2) as os.fork() does it, without CPython's Python-level at-fork handlers, for a
    process with no thread but its main one (the zygote forking a keeper, a keeper forking its
    candidate). Those handlers (threading's and random's, registered when the zygote imported
    them) exist to repair what other threads held at the fork; with none there is nothing to
    repair, and in a fork of the zygote they cost about 150 copy-on-write faults and 0.4 ms of
    CPU per process (issue #36). The C side needs nothing either: the GIL is released during
    the call (ctypes.CDLL) and no lock is held by another thread. With another thread running,
    or without libc, it is os.fork(). A child that needs random's reseeding does it itself."""
    if _fork is None or _thread._count() != 0:  # type: ignore[attr-defined]
        return os.fork()
    pid = int(_fork())
    if pid == -1:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return pid


def _checked(r: int) -> None:
    if r == -1:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def current_cpu() -> int:
    """The CPU the calling thread runs on now (-1 where that cannot be known)."""
    return _sched_getcpu() if _libc is not None else -1


def stay_on(cpu: int) -> None:
    """Pin the calling thread (and every thread and process it starts after) to `cpu`, the one
    the worker sent the job from (it then only waits for the answer, leaving that CPU to it), or,
    where that CPU is not one this process may use (or is -1), to the one it runs on now. A Python
    answer's load and its calls run in a thread of the answer's that the harness hands jobs to and
    waits for (sandbox.py _run): on one CPU each hand-off is a switch on that CPU, where across CPUs
    it is a wake-up of another (an interrupt to an idle virtual CPU costs the host tens to hundreds
    of microseconds). Pinned where it woke up instead, a candidate woken on the CPU where another
    worker's answer was computing shared that CPU with it while the worker's CPU went idle (issue
    #36: `vs_fork_floor` 7.74, 7.92, 8.24 pinned on waking, 7.46, 7.11, 7.66 on the worker's CPU,
    alternately). Budgets are CPU time, so an answer's verdict does not change; only its threads no
    longer run in parallel (the keeper spreads an answer that computes for long, sandbox.py)."""
    if _libc is None:
        return
    if cpu >= 0:
        try:
            os.sched_setaffinity(0, {cpu})
            return
        except OSError:
            pass
    here = _sched_getcpu()
    if here >= 0:
        try:
            os.sched_setaffinity(0, {here})
        except OSError:
            pass


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
    if _unshare is None:
        raise OSError(errno.ENOSYS, "libc unavailable")
    _checked(_unshare(flags))


def mount(source: str, target: str, fstype: str | None, flags: int, data: str | None) -> None:
    if _mount is None:
        raise OSError(errno.ENOSYS, "libc unavailable")
    _checked(_mount(source.encode(), target.encode(), fstype.encode() if fstype is not None else None, flags, data.encode() if data is not None else None))


def mount_bytes(source: bytes, target: bytes, fstype: bytes, flags: int, data: bytes) -> None:
    """mount(2) with arguments made beforehand (sandbox.py scratch_mounts)."""
    if _mount is None:
        raise OSError(errno.ENOSYS, "libc unavailable")
    _checked(_mount(source, target, fstype, flags, data))


def prctl(option: int, arg: int, arg2: int = 0) -> None:
    if _prctl is None:
        raise OSError(errno.ENOSYS, "libc unavailable")
    _checked(_prctl(option, arg, arg2, 0, 0))


def enter_keeper_namespace() -> None:
    """A user namespace of its own for a keeper, entered once in its life: in it the keeper holds
    the capability that makes each candidate's PID, mount and IPC namespaces (clone_candidate),
    and, the candidates' mount namespaces being copies made in it from bubblewrap's, every mount
    inherited from bubblewrap's world is locked there: a candidate could not lift one even with
    capabilities. One uid (the caller's, as CANDIDATE_UID) and one gid are mapped; setgroups is
    denied."""
    uid, gid = os.geteuid(), os.getegid()
    unshare(CLONE_NEWUSER)
    write_file("/proc/self/setgroups", b"deny")
    write_file("/proc/self/uid_map", b"%d %d 1" % (CANDIDATE_UID, uid))
    write_file("/proc/self/gid_map", b"%d %d 1" % (CANDIDATE_UID, gid))


# ---------------------------------------------------------------- clone(2) for each candidate

# A keeper makes one candidate after another, each PID 1 of a new PID namespace. unshare(2) can
# do that once per process (a second unshare(CLONE_NEWPID) fails with EINVAL once the namespace
# for children differs from the active one), and setns(2) back is refused in the zygote's world;
# clone(2) with CLONE_NEWPID can be called again and again. CPython has no clone, and glibc's
# clone() wants a new stack and a function to run, so it is the raw system call with a null stack:
# fork semantics, the child returns from the call on a copy of the caller's stack.
CLONE_CHILD_CLEARTID = 0x00200000
CLONE_CHILD_SETTID = 0x01000000
CANDIDATE_CLONE_FLAGS = CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | 17  # SIGCHLD on exit, as fork
_SYS_CLONE = {"x86_64": 56, "aarch64": 220}.get(platform.machine())
# clone's (flags, stack, parent_tid, child_tid, tls) on x86-64; aarch64 swaps the last two.
_CHILD_TID_LAST = platform.machine() == "aarch64"
if _libc is not None:
    _syscall: Any = _libc.syscall
    _syscall.restype = ctypes.c_long
    _syscall.argtypes = (ctypes.c_long, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong)
    _pthread_self: Any = _libc.pthread_self
    _pthread_self.restype = ctypes.c_void_p
    _pthread_self.argtypes = ()
else:  # pragma: no cover
    _syscall = _pthread_self = None
# Where glibc keeps this thread's own tid (a field of its struct pthread), found by find_tid_cache:
# glibc's fork has the kernel write the child's tid there (CLONE_CHILD_SETTID), and so does
# clone_candidate, or the candidate's main thread would go on believing it is the keeper's
# (recursive mutexes, dlopen's among them, compare their owner with it).
_TID_AT: int | None = None


def _tid_offsets(span: int = 1024) -> set[int]:
    """Offsets in this thread's struct pthread that hold its tid now."""
    base = _pthread_self()
    tid = _thread.get_native_id()
    raw = ctypes.string_at(base, span)
    return {k for k in range(0, span, 4) if struct.unpack_from("=i", raw, k)[0] == tid}


def find_tid_cache() -> bool:
    """Find glibc's tid field once (in the zygote): the offsets that hold the tid both here and in
    a child made by glibc's fork (which has the kernel write the child's own, different tid
    there) must be exactly one. Without it clone_candidate leaves the field as it was."""
    global _TID_AT
    if _libc is None or _SYS_CLONE is None:
        return False
    mine = _tid_offsets()
    r, w = os.pipe()
    pid = fork()
    if pid == 0:
        try:
            os.write(w, b" ".join(b"%d" % k for k in sorted(_tid_offsets())))
        finally:
            os._exit(0)
    os.close(w)
    try:
        theirs = {int(k) for k in os.read(r, 65536).split()}
    finally:
        os.close(r)
        os.waitpid(pid, 0)
    both = mine & theirs
    if len(both) != 1:
        return False
    _TID_AT = int(_pthread_self()) + both.pop()
    return True


def tid_cache_ok() -> bool:
    """Whether glibc's idea of this thread's tid is the kernel's (for the probe and the tests)."""
    return _TID_AT is not None and ctypes.c_int.from_address(_TID_AT).value == _thread.get_native_id()


def clone_candidate() -> int:
    """fork(2) into new PID, mount and IPC namespaces (the child is PID 1 of its PID namespace,
    its mount namespace a copy of the caller's): the child gets 0, the caller the child's pid.
    As isolation.fork, without CPython's at-fork handlers: only for a process with no thread but
    its main one (a keeper), which is checked."""
    if _syscall is None or _SYS_CLONE is None:
        raise OSError(errno.ENOSYS, "clone is not available here")
    if _thread._count() != 0:  # type: ignore[attr-defined]
        raise OSError(errno.EBUSY, "clone_candidate needs a single-threaded process")
    flags, ctid = CANDIDATE_CLONE_FLAGS, 0
    if _TID_AT is not None:
        flags |= CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID
        ctid = _TID_AT
    pid = int(_syscall(_SYS_CLONE, flags, 0, 0, 0, ctid) if _CHILD_TID_LAST else _syscall(_SYS_CLONE, flags, 0, 0, ctid, 0))
    if pid == -1:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return pid


def write_file(path: str, data: bytes) -> None:
    """One write to a kernel file, without a Python file object: in a fork of the zygote each
    page its Python touches costs a copy-on-write fault, and a file object touches many."""
    fd = os.open(path, os.O_WRONLY)
    try:
        if os.write(fd, data) != len(data):
            raise OSError(errno.EIO, "short write to %s" % path)
    finally:
        os.close(fd)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _last_cap() -> int:
    try:
        fd = os.open("/proc/sys/kernel/cap_last_cap", os.O_RDONLY)
        try:
            return int(os.read(fd, 32))
        finally:
            os.close(fd)
    except (OSError, ValueError):
        return 63


# Made once where this module is loaded (the zygote), read by each candidate (issue #36: in a fork,
# every page that making ctypes objects touches is copied): the kernel's highest capability, and
# capset's arguments (version 3, this process, every set empty), which the kernel only reads.
LAST_CAP = _last_cap()
_CAP_HEADER = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
_CAP_EMPTY = (_CapData * 2)()
_capset = _typed("capset", ctypes.c_void_p, ctypes.c_void_p)
_CAPSET_ARGS = (ctypes.addressof(_CAP_HEADER), ctypes.addressof(_CAP_EMPTY))


def drop_capabilities(bounding: bool = True) -> None:
    """No capability left, none to regain: bounding and ambient sets cleared, securebits locked.
    With `bounding` False the caller's parent has cleared those already (drop_inherited: they
    pass to every child), and only the process's own sets are emptied here."""
    if bounding:
        drop_inherited()
    if _capset is None or _capset(*_CAPSET_ARGS) != 0:
        err = ctypes.get_errno() if _libc is not None else errno.ENOSYS
        raise OSError(err, "capset: " + os.strerror(err))


def drop_inherited() -> None:
    """The bounding set and the ambient set cleared and securebits locked: what a process's
    children inherit. A keeper does it once for all its candidates (about 40 prctl calls each
    would otherwise make, issue #36); what it keeps (its effective and permitted sets, which
    make each candidate's namespaces and mounts) each candidate empties itself."""
    for cap in range(LAST_CAP + 1):
        try:
            prctl(PR_CAPBSET_DROP, cap)
        except OSError as e:
            if e.errno == errno.EINVAL:  # past the kernel's last capability
                break
            raise
    try:
        prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    except OSError:
        pass  # kernels before 4.3 have no ambient set
    prctl(PR_SET_SECUREBITS, SECUREBITS_LOCKED)


def effective_capabilities() -> int:
    """The CapEff mask of this process (for tests and the isolation report)."""
    header = _CapHeader(0x20080522, 0)
    data = (_CapData * 2)()
    if _libc is None or _libc.capget(ctypes.byref(header), ctypes.byref(data)) != 0:
        return -1
    return data[0].effective | (data[1].effective << 32)


# ---------------------------------------------------------------- seccomp

# Syscall numbers per architecture, taken from Linux's uapi headers (asm/unistd_64.h for x86_64,
# asm-generic/unistd.h for aarch64).
#
# ALLOW: what CPython needs to compute, use its own files, threads, pipes, socketpairs, fork and
# exec, SysV IPC (private to the candidate's IPC namespace) and its own process tree (private PID
# namespace), and which CPUs it runs on (sched_setaffinity: the harness pins itself to one once its
# job arrives, after the list is installed; sandbox.py candidate). Everything else is refused with EPERM: mount, umount2, unshare, setns, socket,
# memfd_create, bpf, ptrace, io_uring, keyctl, rt_sigaction (a Python signal handler would be
# handed the harness's frame)... clone is allowed only without namespace flags; clone3 answers
# ENOSYS so that the C library falls back to clone, whose flags a filter can read.
_ALLOW: dict[str, tuple[int, ...]] = {
    "x86_64": (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 44, 45, 46, 47, 48, 51, 52, 53, 54, 55, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 102, 104, 107, 108, 109, 110, 111, 112, 115, 118, 120, 121, 124, 125, 127, 128, 130, 131, 132, 137, 138, 140, 143, 145, 146, 147, 149, 150, 157, 158, 160, 186, 200, 201, 202, 203, 204, 213, 217, 218, 219, 220, 221, 222, 223, 224, 225, 226, 228, 229, 230, 231, 232, 233, 234, 235, 239, 247, 257, 258, 260, 261, 262, 263, 264, 265, 266, 267, 268, 269, 270, 271, 273, 274, 275, 276, 277, 278, 280, 281, 283, 284, 285, 286, 287, 290, 291, 292, 293, 295, 296, 299, 302, 307, 316, 318, 322, 324, 325, 326, 327, 328, 332, 334, 436, 437, 439, 441, 449),  # noqa: E501
    "aarch64": (17, 19, 20, 21, 22, 23, 24, 25, 29, 32, 34, 35, 36, 37, 38, 43, 44, 45, 46, 47, 48, 49, 50, 52, 53, 54, 55, 56, 57, 59, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 75, 76, 77, 78, 79, 80, 82, 83, 84, 85, 86, 87, 88, 90, 93, 94, 95, 96, 98, 99, 100, 101, 102, 103, 107, 108, 109, 110, 111, 113, 114, 115, 120, 121, 122, 123, 124, 125, 126, 128, 129, 130, 131, 132, 133, 135, 136, 137, 139, 141, 148, 150, 153, 154, 155, 156, 157, 158, 160, 163, 164, 165, 166, 167, 169, 172, 173, 174, 175, 176, 177, 178, 179, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196, 197, 199, 204, 205, 206, 207, 208, 209, 210, 211, 212, 214, 215, 216, 221, 222, 223, 226, 227, 228, 229, 232, 233, 236, 243, 260, 261, 269, 276, 278, 281, 283, 284, 285, 286, 287, 291, 293, 436, 437, 439, 441, 449),  # noqa: E501
}
# For bubblewrap's --seccomp (the zygote's world, where keepers still mount and unshare): ptrace,
# process_vm_*, bpf, io_uring, keys, perf, modules, kexec, setns, pidfd_getfd, userfaultfd, file
# handles, the new mount API, memfd, swap, reboot, acct, quotactl, personality.
_DENY: dict[str, tuple[int, ...]] = {
    "x86_64": (101, 310, 311, 321, 425, 426, 427, 250, 248, 249, 298, 246, 320, 175, 313, 176, 308, 438, 323, 304, 303, 430, 432, 433, 429, 428, 442, 319, 447, 167, 168, 169, 163, 179, 135),
    "aarch64": (117, 270, 271, 280, 425, 426, 427, 219, 217, 218, 241, 104, 294, 105, 273, 106, 268, 438, 282, 265, 264, 430, 432, 433, 429, 428, 442, 279, 447, 224, 225, 142, 89, 60, 92),
}
# audit arch; clone, clone3, socket; the signal-sending calls (kill, tkill, tgkill,
# rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal, pidfd_open) guarded without namespaces.
_ARCH: dict[str, tuple[int, int, int, int, tuple[int, ...]]] = {
    "x86_64": (0xC000003E, 56, 435, 41, (62, 200, 234, 129, 297, 424, 434)),
    "aarch64": (0xC00000B7, 220, 435, 198, (129, 130, 131, 138, 240, 424, 434)),
}
_RET_ALLOW = 0x7FFF0000
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_LD_W_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
AF_UNIX = 1


def seccomp_supported() -> bool:
    return platform.machine() in _ARCH and _libc is not None


class _Prog:
    def __init__(self) -> None:
        self.ins: list[tuple[int, int, int, int]] = []
        arch = _ARCH[platform.machine()][0]
        self.op(_LD_W_ABS, 0, 0, 4)  # arch
        self.op(_JEQ, 1, 0, arch)
        self.op(_RET, 0, 0, _RET_KILL_PROCESS)
        self.op(_LD_W_ABS, 0, 0, 0)  # syscall number
        if platform.machine() == "x86_64":
            self.op(_JGE, 0, 1, 0x40000000)  # x32 ABI numbers
            self.op(_RET, 0, 0, _RET_KILL_PROCESS)

    def op(self, code: int, jt: int, jf: int, k: int) -> None:
        self.ins.append((code, jt, jf, k))

    def on(self, nr: int, ret: int) -> None:
        """syscall nr → ret (the accumulator still holds the number afterwards)."""
        self.op(_JEQ, 0, 1, nr)
        self.op(_RET, 0, 0, ret)

    def on_arg0(self, nr: int, test: int, k: int, hit: int, miss: int) -> None:
        """syscall nr: args[0] (low 32 bits) tested with JEQ/JSET against k → hit, else miss."""
        self.op(_JEQ, 0, 4, nr)  # not nr: on past the four below, the number still loaded
        self.op(_LD_W_ABS, 0, 0, 16)
        self.op(test, 0, 1, k)
        self.op(_RET, 0, 0, hit)
        self.op(_RET, 0, 0, miss)

    def bytes(self) -> bytes:
        return b"".join(struct.pack("HBBI", *i) for i in self.ins)


# rt_sigaction: every language runtime but Python's installs signal handlers at start-up (and
# refuses to start without them); only a foreign answer's relay and runtime get it.
_SIGACTION = {"x86_64": 13, "aarch64": 134}


def candidate_filter(foreign: bool = False) -> bytes:
    """The allow-list every namespaced candidate installs before its code is read."""
    _, clone, clone3, socket_nr, _ = _ARCH[platform.machine()]
    p = _Prog()
    if foreign:
        p.on(_SIGACTION[platform.machine()], _RET_ALLOW)
    p.on_arg0(clone, _JSET, NAMESPACE_FLAGS, _RET_ERRNO | errno.EPERM, _RET_ALLOW)
    p.on(clone3, _RET_ERRNO | errno.ENOSYS)
    for nr in _ALLOW[platform.machine()]:
        p.on(nr, _RET_ALLOW)
    p.op(_RET, 0, 0, _RET_ERRNO | errno.EPERM)
    return p.bytes()


def zygote_filter() -> bytes:
    """For bubblewrap's --seccomp: what nothing in the zygote's world ever needs."""
    _, clone, clone3, socket_nr, _ = _ARCH[platform.machine()]
    p = _Prog()
    p.on_arg0(socket_nr, _JEQ, AF_UNIX, _RET_ALLOW, _RET_ERRNO | errno.EACCES)
    for nr in _DENY[platform.machine()]:
        p.on(nr, _RET_ERRNO | errno.EPERM)
    p.op(_RET, 0, 0, _RET_ALLOW)
    return p.bytes()


def fallback_filter(protected_pids: list[int]) -> bytes:
    """Without namespaces: the deny-list, no sockets but socketpairs, no signals by thread id or
    pidfd at all, and kill() of eddy's processes, of a process group or of every process refused."""
    _, clone, clone3, socket_nr, signals = _ARCH[platform.machine()]
    kill, others = signals[0], signals[1:]
    p = _Prog()
    p.on_arg0(socket_nr, _JEQ, AF_UNIX, _RET_ALLOW, _RET_ERRNO | errno.EACCES)
    for nr in _DENY[platform.machine()] + others:
        p.on(nr, _RET_ERRNO | errno.EPERM)
    # kill(pid, sig): negative pids (groups, -1) and the protected pids are refused.
    targets = [p_ & 0xFFFFFFFF for p_ in protected_pids]
    p.op(_JEQ, 0, 3 + len(targets) + 1, kill)
    p.op(_LD_W_ABS, 0, 0, 16)
    p.op(_JSET, len(targets) + 1, 0, 0x80000000)
    for k, value in enumerate(targets):
        p.op(_JEQ, len(targets) - k, 0, value)
    p.op(_RET, 0, 0, _RET_ALLOW)
    p.op(_RET, 0, 0, _RET_ERRNO | errno.EPERM)
    p.op(_RET, 0, 0, _RET_ALLOW)
    return p.bytes()


# The calls that make a process, or replace or close a descriptor, by architecture (x86_64 has
# fork, vfork and dup2 besides clone and dup3; aarch64 only the general ones).
_SPAWN_NRS: dict[str, dict[str, int]] = {
    "x86_64": {"clone": 56, "clone3": 435, "fork": 57, "vfork": 58, "dup2": 33, "dup3": 292, "close": 3, "close_range": 436},
    "aarch64": {"clone": 220, "clone3": 435, "dup3": 24, "close": 57, "close_range": 436},
}
CLONE_THREAD = 0x00010000
_JGT = 0x25


class _Asm:
    """A filter program with named jump targets (resolved by `code`): each rule loads what it
    tests itself, so the rules stay independent of one another."""

    def __init__(self) -> None:
        self.ins: list[tuple[int, int | str, int | str, int]] = []
        self.labels: dict[str, int] = {}

    def op(self, code: int, k: int, jt: int | str = 0, jf: int | str = 0) -> None:
        self.ins.append((code, jt, jf, k))

    def label(self, name: str) -> None:
        self.labels[name] = len(self.ins)

    def code(self) -> bytes:
        out = []
        for at, (code, jt, jf, k) in enumerate(self.ins):
            rel = [self.labels[j] - at - 1 if isinstance(j, str) else j for j in (jt, jf)]
            out.append(struct.pack("HBBI", code, rel[0], rel[1], k))
        return b"".join(out)


def no_spawn_filter(result_fd: int | None = None) -> bytes:
    """Stacked on a candidate's own filter once eddy's side has made every process it needs: the
    answer can make no process of its own (clone without CLONE_THREAD, fork, vfork: EPERM; clone3:
    ENOSYS, so the C library makes threads with clone), so its process's CPU-time clock counts
    all of its work, each call's included. With `result_fd`, that descriptor (the harness's result
    channel, in another language's runtime) can be neither replaced nor closed."""
    nrs = _SPAWN_NRS[platform.machine()]
    deny = _RET_ERRNO | errno.EPERM
    a = _Asm()
    arch = _ARCH[platform.machine()][0]
    a.op(_LD_W_ABS, 4)
    a.op(_JEQ, arch, 0, "kill")

    def nr(name: str, miss: str) -> None:
        a.op(_LD_W_ABS, 0)
        a.op(_JEQ, nrs[name], 0, miss)

    def arg(i: int) -> None:
        a.op(_LD_W_ABS, 16 + 8 * i)  # the low 32 bits of argument i (little-endian)

    nr("clone3", "c1")
    a.op(_RET, _RET_ERRNO | errno.ENOSYS)
    a.label("c1")
    nr("clone", "c2")
    arg(0)
    a.op(_JSET, CLONE_THREAD, "allow", "deny")
    a.label("c2")
    for name in ("fork", "vfork"):
        if name in nrs:
            nr(name, "not_" + name)
            a.op(_RET, deny)
            a.label("not_" + name)
    if result_fd is not None:
        fd = result_fd
        # close(fd); dup2/dup3 onto it; close_range(first, last, flags) with first <= fd <= last.
        # A copy of it may be made (PHP reaches it only through one): the relay's nonces, not
        # the descriptor, tell the harness's lines from the answer's.
        nr("close", "not_close")
        arg(0)
        a.op(_JEQ, fd, "deny", "allow")
        a.label("not_close")
        for name in ("dup2", "dup3"):
            if name in nrs:
                nr(name, "not_" + name)
                arg(1)
                a.op(_JEQ, fd, "deny", "allow")
                a.label("not_" + name)
        nr("close_range", "allow")
        arg(0)
        a.op(_JGT, fd, "allow", 0)
        arg(1)
        a.op(_JGE, fd, "deny", "allow")
    a.label("allow")
    a.op(_RET, _RET_ALLOW)
    a.label("deny")
    a.op(_RET, deny)
    a.label("kill")
    a.op(_RET, _RET_KILL_PROCESS)
    return a.code()


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_seccomp_prctl = _typed("prctl", ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong)
# Filter programs made once (prepare_seccomp, in the zygote): {code: (buffer, program, its address)}.
_PROGRAMS: dict[bytes, tuple[Any, Any, int]] = {}


def _program(code: bytes) -> tuple[Any, Any, int]:
    buf = ctypes.create_string_buffer(code, len(code))
    prog = _SockFprog(len(code) // 8, ctypes.cast(buf, ctypes.c_void_p))
    return buf, prog, ctypes.addressof(prog)


def prepare_seccomp(*codes: bytes) -> None:
    """Make the kernel's view of each filter once, in the zygote: each candidate then hands the
    kernel its address instead of making ctypes objects (in a fork, every page that touches is
    copied; issue #36). The kernel only reads the program."""
    for code in codes:
        if code and code not in _PROGRAMS:
            _PROGRAMS[code] = _program(code)


def apply_seccomp(code: bytes) -> None:
    """Install a filter on this process (inherited by its children; cannot be removed)."""
    held = _PROGRAMS.get(code) or _program(code)  # (the buffer and program stay alive in `held`)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    if _seccomp_prctl is None:
        raise OSError(errno.ENOSYS, "libc unavailable")
    _checked(_seccomp_prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, held[2], 0, 0))


# ---------------------------------------------------------------- SysV IPC (no-namespace fallback)

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
