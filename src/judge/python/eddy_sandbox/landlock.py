"""The no-sandbox mode's files (issue #43): Landlock, and what a run leaves behind.

Without bubblewrap a candidate has no mount namespace, so no /tmp or /dev/shm of its own and no
read-only root: file permissions alone decide what it may write. An ordinary user's answer could
then rewrite anything of the user's (the stored host factor, `$XDG_CACHE_HOME/eddy/...`), and an
answer under a uid of its own (eddy as root) anything world-writable (/tmp, /dev/shm, /var/tmp),
where a later answer finds it. Landlock (Linux 5.13+, unprivileged) closes both: right before the
answer's code can run, the candidate restricts itself so that it may create, write, truncate,
rename and remove files only under its own working folder (a fresh one per run, removed after it)
and write /dev/null. Reading, executing and listing stay as file permissions allow. The rules
hold for everything it starts (another language's runtime included) and cannot be lifted.

The zygote probes the kernel's Landlock ABI once (`prepare`), with a trial in a throw-away child;
each candidate then pays only its own few system calls (`restrict`). Where Landlock is missing the
mode still works and the isolation report says so; as root, the keeper then removes what the
candidate's uid left in the usual world-writable folders (`sweep`). Standard library only.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import struct
from typing import Any

# The system calls (the same numbers on every architecture).
SYS_CREATE_RULESET = 444
SYS_ADD_RULE = 445
SYS_RESTRICT_SELF = 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
RESTRICT_SELF_LOG_SAME_EXEC_OFF = 1  # ABI 7: an expected denial of an untrusted answer is no audit record

# handled_access_fs bits, with the ABI that brought each.
EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2 (before it, moving or linking a file to another folder is always refused)
TRUNCATE = 1 << 14  # ABI 3 (before it, truncate(2) cannot be restricted)
IOCTL_DEV = 1 << 15  # ABI 5 (not handled: reading stays as it was)
WRITES_ABI1 = WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO | MAKE_BLOCK | MAKE_SYM
# Files a candidate (and any runtime) may write outside its folder: write-only sinks.
SINKS = ("/dev/null",)
# World-writable folders a uid of its own could leave files in (swept as root without Landlock).
SHARED_SCRATCH = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue")


def handled(abi: int) -> int:
    """The write rights Landlock restricts at this ABI (reading, executing, listing, device
    ioctls are never handled: they stay as file permissions say)."""
    if abi < 1:
        return 0
    rights = WRITES_ABI1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    return rights


try:
    _syscall: Any = ctypes.CDLL(None, use_errno=True)["syscall"]  # a function object of its own
    _syscall.restype = ctypes.c_long
    # Pointers are passed as bytes (ctypes hands the kernel their buffer, which it only reads).
    _syscall.argtypes = (ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
except (OSError, AttributeError):  # pragma: no cover - no libc
    _syscall = None


def _call(nr: int, a: int | bytes | None, b: int | bytes | None, c: int | bytes | None, d: int | None = None) -> int:
    if _syscall is None:
        raise OSError(errno.ENOSYS, "libc unavailable")
    r = int(_syscall(nr, a, b, c, d))
    if r < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return r


def abi_version() -> int:
    """The kernel's Landlock ABI (1 for Linux 5.13, 7 for 6.15), or 0 where it has none (not
    built, not enabled at boot, or its calls refused by a seccomp filter)."""
    try:
        return _call(SYS_CREATE_RULESET, None, 0, CREATE_RULESET_VERSION)
    except OSError:
        return 0


# Set once in the zygote (prepare): the ABI in force (0: none), and what each candidate hands the
# kernel, made here so that a candidate builds as little as it can (in a fork, every page Python
# writes to is copied, a fault each, issue #36).
ABI = 0
_BENEATH = struct.Struct("=Qi")  # struct landlock_path_beneath_attr (packed: u64 allowed_access, s32 parent_fd)
_attr: bytes | None = None  # struct landlock_ruleset_attr, handled_access_fs only (8 bytes: any ABI takes it)
_folder_rights = 0
_sinks: tuple[tuple[str, int], ...] = ()  # (path, rights) of the sinks this machine has
_restrict_flags = 0


def _make(abi: int) -> None:
    global _attr, _folder_rights, _sinks, _restrict_flags
    rights = handled(abi)
    _attr = struct.pack("=Q", rights)
    _folder_rights = rights
    _sinks = tuple((p, WRITE_FILE | (rights & TRUNCATE)) for p in SINKS if os.path.exists(p))
    _restrict_flags = RESTRICT_SELF_LOG_SAME_EXEC_OFF if abi >= 7 else 0


def restrict(folder: str) -> None:
    """From now on this process, and all it starts, may create, write, rename and remove files
    only under `folder`, and write the sinks; reading stays as it was. Needs no_new_privs (or
    CAP_SYS_ADMIN). Raises OSError when the kernel refuses: the caller fails closed."""
    ruleset = ruleset_for(folder)
    try:
        _call(SYS_RESTRICT_SELF, ruleset, _restrict_flags, 0)
    finally:
        os.close(ruleset)


def ruleset_for(folder: str) -> int:
    """A ruleset (its descriptor) that allows writing under `folder` and to the sinks."""
    if _attr is None:
        _make(ABI or abi_version())
    ruleset = _call(SYS_CREATE_RULESET, _attr, 8, 0)
    try:
        _add(ruleset, folder, _folder_rights)
        for path, rights in _sinks:
            _add(ruleset, path, rights)
    except BaseException:
        os.close(ruleset)
        raise
    return ruleset


def _add(ruleset: int, path: str, rights: int) -> None:
    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        # A new bytes object: written where this process allocates, not on a page of the zygote's.
        _call(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, _BENEATH.pack(rights, fd))
    finally:
        os.close(fd)


def warm_up(folder: str, rounds: int = 12) -> None:
    """In the zygote: everything `restrict` runs but the last call, a few times, so that CPython
    has counted and specialised its code here (each fork then only reads those pages, issue #36)."""
    for _ in range(rounds):
        os.close(ruleset_for(folder))


def prepare(scratch: str, swept: bool = False) -> str:
    """In the zygote, once: probe Landlock and try it in a throw-away child (under `scratch`, a
    folder of the zygote's). Sets ABI (0 where Landlock is missing or did not hold) and says so;
    `swept`: candidates have a uid of their own, whose files the keeper removes without Landlock."""
    global ABI
    ABI = 0
    abi = abi_version()
    left = (
        "what a candidate's uid leaves in shared folders (/tmp, /dev/shm, /var/tmp) is removed after it"
        if swept
        else "what they leave in shared folders (/tmp, /dev/shm, /var/tmp) stays for later answers"
    )
    if abi < 1:
        return "NO Landlock on this kernel (Linux 5.13+ with landlock among its LSMs): candidates can write files wherever file permissions allow; " + left
    _make(abi)
    why = _trial(scratch)
    if why:
        return "NO Landlock: the kernel has ABI %d but a trial failed (%s): candidates can write files wherever file permissions allow; %s" % (abi, why, left)
    ABI = abi
    warm_up(scratch)
    return (
        "Landlock (ABI %d): each candidate may create, write and remove files only in its own working folder, which is removed after it, "
        "and write /dev/null; everything else is read-only to it (reading is as file permissions allow)" % abi
    )


def _trial(scratch: str) -> str:
    """In a child: restrict to a fresh folder, then make a file in it (allowed) and beside it
    (refused). What went wrong, or "" where Landlock held."""
    import tempfile

    from . import isolation as iso

    inside = tempfile.mkdtemp(prefix="landlock-", dir=scratch)
    outside = inside + "-outside"
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            iso.prctl(iso.PR_SET_NO_NEW_PRIVS, 1)
            restrict(inside)
            fd = os.open(os.path.join(inside, "f"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            os.close(fd)
            try:
                os.close(os.open(outside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
                out = b"a file outside the allowed folder was made"
            except PermissionError:
                out = b""
        except BaseException as e:
            out = ("%s: %s" % (type(e).__name__, e)).encode()[:200]
        try:
            os.write(w, out or b"ok")
        finally:
            os._exit(0)
    os.close(w)
    try:
        got = os.read(r, 512)
    finally:
        os.close(r)
        os.waitpid(pid, 0)
        remove_tree(inside)
        try:
            os.unlink(outside)
        except OSError:
            pass
    return "" if got == b"ok" else (got.decode("utf-8", "replace") or "the trial ended without a word")


def remove_tree(path: str) -> None:
    """Remove a run's folder whatever the candidate did to it: a folder it made unreadable or
    unwritable is made the owner's again first (the candidate has been killed and reaped, so
    nothing changes it meanwhile; symbolic links are removed, never followed)."""
    import shutil

    shutil.rmtree(path, ignore_errors=True)
    if not os.path.lexists(path):
        return
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            os.chmod(path, 0o700)
        for top, dirs, _files in os.walk(path):
            for d in dirs:
                p = os.path.join(top, d)
                try:
                    if stat.S_ISDIR(os.lstat(p).st_mode):  # (a link to a folder is listed among dirs)
                        os.chmod(p, 0o700)
                except OSError:
                    pass
    except OSError:
        pass
    shutil.rmtree(path, ignore_errors=True)


def sweep(uid: int, folders: tuple[str, ...] = SHARED_SCRATCH) -> int:
    """As root without Landlock: remove everything a candidate's own uid left in the shared
    world-writable folders (it can create files only there and under what it made), descending
    into world-writable folders of others. How many entries were removed."""
    removed = 0
    todo = [f for f in folders if os.path.isdir(f) and not os.path.islink(f)]
    seen = 0
    while todo and seen < 10_000:
        top = todo.pop()
        try:
            entries = list(os.scandir(top))
        except OSError:
            continue
        for e in entries:
            seen += 1
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            if st.st_uid == uid:
                if stat.S_ISDIR(st.st_mode):
                    remove_tree(e.path)
                else:
                    try:
                        os.unlink(e.path)
                    except OSError:
                        continue
                removed += 1
            elif stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_IWOTH:
                todo.append(e.path)
    return removed
