"""One candidate's run, forked from the clean zygote: a keeper process and the candidate under it.

The keeper (a fork of the zygote) enters fresh PID, mount and IPC namespaces where the zygote has
them, forks the candidate, waits for it or for the worker's stop signal (its control pipe
closing), kills everything the candidate left and reports the exit status on a pipe the candidate
never holds. The candidate process contains itself (fresh /proc and scratch tmpfs, rlimits, a
uid of its own, seccomp), reads its job (code, function, arguments) from a pipe, runs the static
checks, then the code, and writes one frame per call: outputs and, when asked, the arguments
after the call. Nothing here has ever seen an oracle or an expected value.
"""

from __future__ import annotations

import builtins
import errno
import marshal
import math
import os
import resource
import select
import signal
import struct
import sys
from dataclasses import dataclass, field
from types import CodeType
from typing import Any

from . import isolation as iso
from .static_check import precheck

MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_PROCS = 64
MAX_OPEN_FILES = 64
MAX_JOB_BYTES = 64 * 1024 * 1024
SCRATCH_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/run")
# The static check gets its own allowance on top of the candidate's CPU and memory budget.
PRECHECK_CPU_S = 5
PRECHECK_MEMORY_MB = 256
# A uid of its own per candidate when eddy runs as root: no file, process or IPC object of
# anyone else's, and everything it leaves can be killed by uid. Far above any real account.
UID_BASE = 2_000_000_000
RESOURCE_ERRNOS = {errno.EFBIG, errno.EAGAIN, errno.EMFILE, errno.ENFILE, errno.ENOSPC, errno.ENOMEM, errno.EDQUOT}
CANDIDATE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}


@dataclass
class Config:
    """What the zygote could set up once (sent back to the worker as the isolation report)."""

    mode: str = "none"  # "namespaces" (root), "userns" (unprivileged user namespace) or "none"
    fresh_uid: bool = False
    seccomp: bool = False
    protect: list[int] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)
    temp_base: str = "/tmp"
    zygote: int = 0


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _send(fd: int, obj: Any) -> None:
    data = marshal.dumps(obj)
    _write_all(fd, struct.pack(">I", len(data)) + data)


def _read_frames(fd: int, count: int) -> list[bytes]:
    buf = b""
    frames: list[bytes] = []
    while len(frames) < count:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            raise EOFError("job pipe closed early")
        buf += chunk
        if len(buf) > MAX_JOB_BYTES:
            raise ValueError("job too large")
        while len(buf) >= 4 and len(frames) < count:
            n = struct.unpack(">I", buf[:4])[0]
            if len(buf) < 4 + n:
                break
            frames.append(buf[4 : 4 + n])
            buf = buf[4 + n :]
    return frames


def _kind(e: BaseException) -> str:
    # SystemError ("error return without exception set") is how CPython 3.11 reports an
    # allocation that failed deep inside C code: recursion with the limit lifted meeting RLIMIT_AS.
    if isinstance(e, (MemoryError, RecursionError, SystemError)):
        return "resource"
    if isinstance(e, OSError) and e.errno in RESOURCE_ERRNOS:
        return "resource"
    return "runtime"


def _exc(e: BaseException) -> str:
    try:
        msg = str(e)
    except BaseException:
        msg = ""
    name = type(e).__name__
    return (name + ": " + msg if msg else name)[:300]


def _vm_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 64 * 1024 * 1024


def _user_procs(uid: int) -> int:
    """Processes this uid runs now (RLIMIT_NPROC counts them all, not just the candidate's)."""
    n = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat("/proc/" + name).st_uid == uid:
                    n += 1
            except OSError:
                pass
    return n


# ---------------------------------------------------------------- the candidate


def candidate(cfg: Config, fds: dict[str, int], uid: int | None, nproc: int, workdir: str) -> None:
    """The candidate's process: contain, read the job, check, run. Never returns.

    Forked ahead of need (a warm sandbox): everything that does not depend on the job is set up
    first, then it waits for the job, which brings the limits and the folders to hide."""
    res_w = fds["res"]
    try:
        iso.prctl(iso.PR_SET_PDEATHSIG, signal.SIGKILL)
        os.setsid()  # its own session and group: kill(0) reaches only what it started
        if cfg.mode != "none":
            # PID 1 of a fresh PID namespace: a /proc of its own shows nothing of the host.
            iso.mount("proc", "/proc", "proc", iso.MS_NOSUID | iso.MS_NODEV | iso.MS_NOEXEC, None)
            for place in SCRATCH_DIRS:
                if os.path.isdir(place):
                    iso.mount("tmpfs", place, "tmpfs", iso.MS_NOSUID | iso.MS_NODEV, "size=%d,mode=1777" % (2 * MAX_FILE_BYTES))
            os.mkdir(workdir, 0o700)
            if uid is not None:
                os.chown(workdir, uid, uid)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(fds["out"], 1)
        os.dup2(fds["out"], 2)
        job_r = fds["job"]
        keep = sorted({0, 1, 2, res_w, job_r})
        prev = 3
        for fd in keep:
            if fd >= prev:
                os.closerange(prev, fd)
                prev = fd + 1
        os.closerange(prev, 65536)
        sys.stdin = open(os.devnull)
        sys.stdout = open(1, "w", closefd=False)
        sys.stderr = open(2, "w", closefd=False)
        os.chdir(workdir)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        for sig in (signal.SIGINT, signal.SIGALRM, signal.SIGTERM, signal.SIGCHLD, signal.SIGPIPE):
            signal.signal(sig, signal.SIG_DFL)
        os.environ.clear()
        os.environ.update(CANDIDATE_ENV)
        os.environ.update({"HOME": workdir, "TMPDIR": workdir})
        import tempfile

        tempfile.tempdir = workdir
        # Waiting here is the warm state; the job is trusted data from the worker.
        head, calls_blob = _read_frames(job_r, 2)
        os.close(job_r)
        code, fn, arity, keep_args, time_ms, memory_mb, hide = marshal.loads(head)
        calls = marshal.loads(calls_blob)
        del head, calls_blob
        if cfg.mode != "none":
            for place in hide:
                if not any(place == h or place.startswith(h.rstrip("/") + "/") for h in cfg.hidden):
                    iso.hide(place)
        cpu = max(1, int(math.ceil(time_ms / 1000.0)) + 1) + PRECHECK_CPU_S
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        limit = _vm_bytes() + (memory_mb + PRECHECK_MEMORY_MB) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_BYTES, MAX_FILE_BYTES))
        resource.setrlimit(resource.RLIMIT_NOFILE, (MAX_OPEN_FILES, MAX_OPEN_FILES))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        if uid is not None:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
        if cfg.seccomp:
            # Without a PID namespace, also refuse kill() of eddy's processes and of every
            # process at once (kill(-1)) or of a whole group.
            guard = cfg.protect + [os.getppid(), cfg.zygote]  # eddy, the worker, the keeper, the zygote
            iso.apply_seccomp(guard if cfg.mode == "none" else [], cfg.mode == "none")
        else:
            iso.prctl(iso.PR_SET_NO_NEW_PRIVS, 1)
    except BaseException as e:
        try:
            _send(res_w, ("setup", _exc(e)))
        finally:
            os._exit(112)
    try:
        verdict, compiled = precheck(code, fn, arity)
    except BaseException as e:  # the analysis itself ran out of memory or time
        verdict, compiled = ("static_error", "the code could not be analysed within the judge's limits (%s)" % type(e).__name__), None
    if verdict is not None or compiled is None:
        _send(res_w, ("pre",) + (verdict or ("static_error", "the code could not be compiled")))
        os._exit(0)
    limit = _vm_bytes() + memory_mb * 1024 * 1024
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ValueError, OSError):
        pass
    _send(res_w, ("pre", None, ""))
    _run(compiled, fn, calls, keep_args, res_w)


def _run(compiled: CodeType, fn: str, calls: list[tuple[Any, ...]], keep_args: bool, fd: int) -> None:
    """Run the candidate. Every helper used after its code starts is a C function held in a local
    (marshal.dumps, os.write, struct.pack): candidate code that patches module attributes or a
    Python function's code cannot change what this loop reports."""
    dumps = marshal.dumps
    write = os.write
    pack = struct.pack
    getpid = os.getpid
    exit_ = os._exit
    me = getpid()
    ns: dict[str, object] = {"__name__": "candidate", "__file__": "candidate.py", "__doc__": None, "__builtins__": builtins}
    msg: object = ("ready",)
    data = dumps(msg)
    data = pack(">I", len(data)) + data
    while data:
        data = data[write(fd, data):]
    try:
        exec(compiled, ns)  # noqa: S102 - this is the sandbox
        msg = ("loaded",)
        f = ns.get(fn)
        if not callable(f):
            msg = ("load", "runtime", "%s is not a function once the module has run" % fn)
    except BaseException as e:
        if getpid() != me:
            exit_(0)
        msg = ("load", _kind(e), _exc(e))
        f = None
    if getpid() != me:
        exit_(0)
    data = dumps(msg)
    data = pack(">I", len(data)) + data
    while data:
        data = data[write(fd, data):]
    if f is None or not callable(f):
        exit_(0)
    for i, args in enumerate(calls):
        try:
            v: Any = f(*args)
        except BaseException as e:
            # A forked copy of the candidate must not report: only this process speaks.
            if getpid() != me:
                exit_(0)
            msg = ("e", i, _kind(e), _exc(e))
        else:
            if getpid() != me:
                exit_(0)
            after: Any = args if keep_args else None
            try:
                data = dumps(("r", i, v, after))
                msg = None
            except BaseException:
                try:
                    text = repr(v)[:300]
                except BaseException:
                    text = "<%s object>" % type(v).__name__
                try:
                    data = dumps(("o", i, text, after))
                except BaseException:
                    data = dumps(("o", i, text, "<arguments no longer plain data>"))
                msg = None
        if msg is not None:
            try:
                data = dumps(msg)
            except BaseException:
                data = dumps(("e", i, "runtime", "unreportable exception"))
        data = pack(">I", len(data)) + data
        while data:
            data = data[write(fd, data):]
    data = dumps(("done",))
    data = pack(">I", len(data)) + data
    while data:
        data = data[write(fd, data):]
    exit_(0)


# ---------------------------------------------------------------- the keeper


def keeper(cfg: Config, fds: dict[str, int]) -> None:
    """Fork of the zygote that owns one candidate's run. Never returns."""
    status_w = fds["status"]
    try:
        iso.prctl(iso.PR_SET_PDEATHSIG, signal.SIGKILL)
        iso.prctl(iso.PR_SET_DUMPABLE, 0)
        os.setsid()
        before: set[tuple[str, int]] = set()
        uid: int | None = None
        if cfg.fresh_uid:
            uid = UID_BASE + os.getpid()
        # Same uid as eddy (no root): RLIMIT_NPROC counts eddy's own processes too.
        nproc = MAX_PROCS if uid is not None else _user_procs(os.getuid()) + MAX_PROCS
        if cfg.mode != "none":
            iso.unshare(iso.CLONE_NEWPID | iso.CLONE_NEWNS | iso.CLONE_NEWIPC)
            workdir = "/tmp/work"
        else:
            iso.prctl(iso.PR_SET_CHILD_SUBREAPER, 1)
            before = iso.sysv_ids()
            import tempfile

            workdir = tempfile.mkdtemp(prefix="c", dir=cfg.temp_base)
            if uid is not None:
                os.chown(workdir, uid, uid)
        pid = os.fork()
        if pid == 0:
            os.close(status_w)
            os.close(fds["ctl"])
            candidate(cfg, fds, uid, nproc, workdir)
            os._exit(113)
        for name in ("job", "res", "out"):
            os.close(fds[name])
        status = _wait(pid, fds["ctl"])
        _clean(cfg, pid, uid)
        if cfg.mode == "none":
            iso.remove_sysv(iso.sysv_ids() - before)
            import shutil

            shutil.rmtree(workdir, ignore_errors=True)
        _send(status_w, ("status", status))
    except BaseException as e:
        try:
            _send(status_w, ("setup", "sandbox set-up failed: " + _exc(e)))
        finally:
            os._exit(114)
    os._exit(0)


def _wait(pid: int, ctl: int) -> int:
    """The candidate's wait status, once it exits by itself or the worker closes the control pipe."""
    try:
        pidfd: int | None = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    while True:
        got, st = os.waitpid(pid, os.WNOHANG)
        if got:
            return st
        watch = [ctl] + ([pidfd] if pidfd is not None else [])
        ready, _, _ = select.select(watch, [], [], None if pidfd is not None else 0.02)
        if ctl in ready:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            return os.waitpid(pid, 0)[1]


def _clean(cfg: Config, pid: int, uid: int | None) -> None:
    """Nothing the candidate started outlives its verdict."""
    # With namespaces the candidate was PID 1: reaped, its namespace is empty already.
    if cfg.mode != "none":
        return
    if uid is not None:
        # Every process of the candidate's own uid, whatever it did to its group or parent.
        killer = os.fork()
        if killer == 0:
            try:
                os.setuid(uid)
                # One kill(-1) walks the process list under the lock fork() needs: nothing of
                # this uid can be created meanwhile, so once is enough (the zombies come here).
                os.kill(-1, signal.SIGKILL)  # never the caller itself
            except OSError:
                pass
            os._exit(0)
        os.waitpid(killer, 0)
    # Orphans come to this subreaper: kill and reap until none is left.
    for _ in range(10_000):
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            with open("/proc/self/task/%d/children" % os.getpid()) as f:
                kids = [int(p) for p in f.read().split()]
        except (OSError, ValueError):
            kids = []
        for k in kids:
            try:
                os.kill(k, signal.SIGKILL)
            except OSError:
                pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            return
        if not kids:
            select.select([], [], [], 0.001)
