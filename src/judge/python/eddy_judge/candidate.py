"""Running one candidate: the clean zygote (eddy_sandbox/zygote.py, world.py), the sandboxes it forks ahead of
need, sending each its job, and reading back the keeper's status and the candidate's authenticated
frames (protocol.py). What the frames mean for the verdict is verdicts.py's business."""

from __future__ import annotations

import fcntl
import hmac
import marshal
import math
import os
import select
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from eddy_sandbox import isolation as iso
from eddy_sandbox.control import recv_control, send_control
from eddy_sandbox.relay import Foreign
from eddy_sandbox.sandbox import MAC_BYTES, STAMPS, mac

from .budget import Budget, host_factor_with_source
from .categories import Category, as_category
from .oracle import OracleError
from .prepare import MAX_RESULT_BYTES, Prepared, wire_blob
from .protocol import MAX_INT_DIGITS, FrameBuffer, Malformed, Partial, TooLarge, frame, short
from .world import WorldError, Zygote, report, start_zygote

MAX_CAPTURE_BYTES = 64 * 1024


# Wall-clock allowance for the static check, before the candidate's own budget starts.
PRECHECK_WALL_S = 30.0


DETAIL_CHARS = 300


_zygote: Zygote | None = None


_factor: tuple[float, str] | None = None


def cpu_factor() -> float:
    return cpu_factor_with_source()[0]


def cpu_factor_with_source() -> tuple[float, str]:
    """The host factor and where it came from (budget.py), read once per worker."""
    global _factor
    if _factor is None:
        _factor = host_factor_with_source()
    return _factor


def zygote() -> Zygote:
    global _zygote
    if _zygote is None or _zygote.proc.poll() is not None:
        if _zygote is not None:
            _stop_zygote()
        try:
            _zygote = start_zygote(_wanted_mode(), [os.getppid(), os.getpid()])
        except WorldError as e:
            raise OracleError(str(e)) from None
    return _zygote


def _zy_recv(z: Zygote) -> tuple[Any, list[int]]:
    try:
        return recv_control(z.sock, 2)
    except EOFError:
        raise OracleError("the sandbox zygote has gone") from None


def _wanted_mode() -> str:
    return "none" if os.environ.get("EDDY_JUDGE_NO_NAMESPACES") == "1" else "bwrap"


def isolation_report() -> dict[str, Any]:
    return report(zygote(), *cpu_factor_with_source())


@dataclass
class Usage:
    cpu_ms: float
    wall_ms: float
    blocked_ms: float
    limit: str | None


@dataclass
class Run:
    pre: tuple[Category, str] | None = None
    prechecked: bool = False
    ready: bool = False
    ready_at: float = 0.0
    loaded: bool = False
    load: tuple[str, str] | None = None  # (kind, text)
    results: dict[int, Any] = field(default_factory=dict)  # i -> Partial, then ("r"|"o"|"e", value/text, after/kind)
    done: bool = False
    broken: str | None = None  # the result channel broke (a crash mid-frame, a malformed frame)
    tamper: str | None = None  # frames the harness did not write, or the harness's guard fired
    setup: str | None = None  # a harness failure before any candidate code ran
    stalled: bool = False  # the worker's own backstop fired: the keeper went silent
    too_large: bool = False
    result_bytes: int = MAX_RESULT_BYTES  # the instance's limits on what comes back (prepare.result_limits)
    int_digits: int = MAX_INT_DIGITS
    status: int | None = None
    usage: Usage | None = None
    captured: bytes = b""
    seq: int = 0
    shared: set[int] = field(default_factory=set)  # calls whose answer held an argument object (another language)
    expanded: dict[int, int] = field(default_factory=dict)  # values in each result once shared references are expanded
    call_ms: list[float] | None = None  # each call's CPU time as the candidate's harness measured it
    compare_ms: float = 0.0  # CPU the worker spent comparing this answer's results (charged to it)
    checked: int = 0  # results looked at while the answer ran (in order: the first failing input stops it)
    cut: int | None = None  # the call at which the worker stopped the answer: its first failing input
    foreign: bool = False  # another language's answer: results are its runtime's lines until converted
    converted: set[int] = field(default_factory=set)  # another language's results read as Python values
    compared_values: int = 0  # values in the results looked at so far, shared references expanded
    failure: Any = None  # the verdict at the first failing input, once found (verdicts.py Outcome)
    stamps: dict[str, float] = field(default_factory=dict)  # when each phase ended (monotonic s), for the profile


def stamp(run: Run, name: str) -> None:
    """When a phase of the verdict ended, on the monotonic clock and the worker's CPU clock (profile.py)."""
    run.stamps[name] = time.monotonic()
    run.stamps[name + "@cpu"] = time.process_time()


def _close(*fds: int | None) -> None:
    for fd in fds:
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass


@dataclass
class Keeper:
    """A keeper the zygote forked for this worker (eddy_sandbox/sandbox.py keeper): it makes one candidate
    after another for the sandboxes the worker sends it over `sock`."""

    sock: socket.socket
    pid: int  # in the zygote's PID namespace (bubblewrap's): only for the record
    pidfd: int | None
    gone: bool = False

    def alive(self) -> bool:
        if self.gone:
            return False
        # A pidfd reads ready once its process has ended. Without one (kernels before 5.3) the
        # status pipe's end says so instead.
        return self.pidfd is None or not select.select([self.pidfd], [], [], 0)[0]

    def retire(self) -> None:
        """Let it go: killed (its candidate dies with it, PDEATHSIG), and never used again
        (without a pidfd, the closed socket ends it once it is idle)."""
        if self.pidfd is not None:
            try:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            except OSError:
                pass
        self.gone = True
        self.sock.close()
        _close(self.pidfd)
        self.pidfd = None


@dataclass
class Sandbox:
    """A candidate made ahead of need by one of the worker's keepers, waiting for a job on `job_w`."""

    job_w: int
    res_r: int
    out_r: int
    st_r: int
    ctl_w: int
    keeper: Keeper | None = None
    requested: float = 0.0  # when the worker sent the request to its keeper (monotonic s)
    # Made for a Python answer: its candidate drops its capabilities and installs the Python
    # allow-list while it waits, before its job (another language's runtime needs more).
    python: bool = True

    @property
    def pidfd(self) -> int | None:
        """The keeper's: killing the keeper kills its candidate too."""
        return None if self.keeper is None else self.keeper.pidfd

    def stop(self) -> None:
        """Closing the control pipe makes the keeper kill whatever is left of the candidate."""
        if self.ctl_w >= 0:
            _close(self.ctl_w)
            self.ctl_w = -1

    def close(self) -> None:
        self.stop()
        _close(self.job_w, self.res_r, self.out_r, self.st_r)


_warm: Sandbox | None = None
# Two keepers per worker, used in turn: one makes the next answer's candidate ahead of need while
# the other watches the current one (each keeper serves its sandboxes one after another).
KEEPERS = 2
_keepers: list[Keeper | None] = [None] * KEEPERS
_turn = 0


def _new_keeper(z: Zygote) -> Keeper:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        send_control(z.sock, ("keeper",), [theirs.fileno()])
    finally:
        theirs.close()
    try:
        reply, fds = _zy_recv(z)
    except BaseException:
        ours.close()
        raise
    if not (isinstance(reply, tuple) and len(reply) == 2 and reply[0] == "keeper" and isinstance(reply[1], int)):
        ours.close()
        for fd in fds:
            os.close(fd)
        raise OracleError("sandbox zygote: %s" % (reply,))
    return Keeper(ours, reply[1], fds[0] if fds else None)


def _keeper(z: Zygote) -> Keeper:
    """The keeper whose turn it is, started (again) when it has none or has ended."""
    global _turn
    k = _keepers[_turn]
    if k is None or not k.alive():
        if k is not None:
            k.retire()
        k = _keepers[_turn] = _new_keeper(z)
    _turn = (_turn + 1) % KEEPERS
    return k


def _retire(k: Keeper | None) -> None:
    """A keeper that failed to report on a sandbox is never used again (a new one replaces it)."""
    if k is None:
        return
    for i, other in enumerate(_keepers):
        if other is k:
            _keepers[i] = None
    k.retire()


def _request_sandbox(z: Zygote, python: bool = True) -> Sandbox:
    """Send a keeper a sandbox's pipes: it makes the candidate at once, which then waits for its
    job (a Python answer's, or, with `python` False, another language's). A keeper that cannot be
    reached is replaced, once, here."""
    job_r, job_w = os.pipe()
    res_r, res_w = os.pipe()
    out_r, out_w = os.pipe()
    st_r, st_w = os.pipe()
    ctl_r, ctl_w = os.pipe()
    box = Sandbox(job_w, res_r, out_r, st_r, ctl_w, python=python)
    try:
        for attempt in range(2):
            box.keeper = _keeper(z)
            box.requested = time.monotonic()
            try:
                # With the CPU this worker runs on now: the candidate waits for its job there.
                send_control(box.keeper.sock, ("native" if python else "foreign", iso.current_cpu()), [job_r, res_w, out_w, st_w, ctl_r])
                return box
            except OSError:
                _retire(box.keeper)
                box.keeper = None
                if attempt == 1:
                    raise
    except (OSError, OracleError):
        box.close()
        raise
    finally:
        _close(job_r, res_w, out_w, st_w, ctl_r)
    raise OracleError("unreachable")


def _take_sandbox(python: bool = True) -> Sandbox:
    global _warm
    box, _warm = _warm, None
    if box is not None and (box.keeper is None or not box.keeper.alive()):
        _retire(box.keeper)
        box.close()
        box = None
    if box is not None and box.python != python:
        # Made for the other kind of answer: stopped (its keeper reports as for any other) and
        # waited for before the next sandbox, as a finished one is.
        box.stop()
        _stopping.append(box)
        box = None
    for attempt in range(2):
        try:
            if box is None:
                box = _request_sandbox(zygote(), python)
            return box
        except (OSError, OracleError):
            if box is not None:
                box.close()
                box = None
            _stop_zygote()
            if attempt == 1:
                raise
    raise OracleError("unreachable")


def prefork() -> None:
    """Start the next sandbox now, so that its set-up overlaps with everything else."""
    global _warm
    if _warm is None:
        try:
            _warm = _request_sandbox(zygote())
        except (OSError, OracleError):
            _warm = None


def _stop_zygote() -> None:
    global _zygote, _warm
    if _warm is not None:
        _warm.close()
        _warm = None
    for k in list(_keepers):
        _retire(k)
    if _zygote is not None:
        _zygote.sock.close()
        _zygote.proc.kill()
        _zygote.proc.wait()
        _zygote = None


_stopping: list[Sandbox] = []


def finish_stopped() -> None:
    """Wait until every stopped sandbox's keeper has killed all it ran (bounded); a keeper that
    did not report is let go."""
    while _stopping:
        box = _stopping.pop()
        run = Run()
        _wait_status(run, box.st_r, box.pidfd)
        if run.status is None:
            _retire(box.keeper)
        box.close()


def run_candidate(
    code: str,
    fn: str,
    arity: int,
    p: Prepared,
    budget: Budget,
    memory_mb: int,
    foreign: Foreign | None = None,
    profile: bool = False,
    checked: bool = False,
    fails_at: Callable[[Run, int], bool] | None = None,
) -> Run:
    """One candidate run in a sandbox; `checked`: the static check passed this code before
    (checked_code.py), so the sandbox only compiles it. `fails_at(run, i)` looks at each result as
    it comes back, in order: the answer is stopped at its first failing input (verdicts.py)."""
    run = Run(result_bytes=p.result_bytes, int_digits=p.int_digits, foreign=foreign is not None)
    stamp(run, "w_start")
    finish_stopped()
    stamp(run, "w_stopped")
    box = _take_sandbox(foreign is None)
    # The next answer's sandbox is made now, by the other keeper, while this one runs: its set-up
    # (the clone, its namespaces, the scratch mounts) is then off the path of the next verdict,
    # which otherwise arrives as soon as this one is answered and would wait for it.
    prefork()
    run.stamps["w_requested"] = box.requested
    stamp(run, "w_taken")
    key = os.urandom(32)
    try:
        # EDDY_JUDGE_GUARD=0 (tests only) leaves the in-process guard out, to show what the
        # kernel's layers hold on their own.
        guard = os.environ.get("EDDY_JUDGE_GUARD") != "0"
        # Each call's own CPU limit (s, on this machine), where the oracle sets one (imported EvalPlus problems).
        limits = None if p.call_limits_ms is None else [None if x is None else x * cpu_factor() / 1000.0 for x in p.call_limits_ms]
        # The calls whose result comes back as its digest (an expected output too large to keep).
        # The CPU this worker sends the job from: the candidate runs there (eddy_sandbox/isolation.py stay_on).
        head = marshal.dumps((code, fn, arity, p.keep_args, p.new_object, memory_mb, budget.kill_ms / 1000.0, key, guard, None if foreign is None else tuple(foreign), checked, limits, p.digest_calls, iso.current_cpu()))
        job = frame(head) + frame(p.calls_blob if foreign is None else wire_blob(p))
        os.set_blocking(box.job_w, False)
        os.write(box.ctl_w, frame(marshal.dumps(budget.limits())))
        _collect(run, job, box, key, budget, fails_at)
    finally:
        box.stop()
        if _keeper_failed(run):
            _retire(box.keeper)  # silent, gone or garbled: replaced before the next sandbox
        stamp(run, "w_collected")
        if run.status is not None:
            # The keeper has reported, which it does once it has killed all the candidate ran:
            # nothing of this sandbox is left to wait for (waiting again would read no status
            # and let a sound keeper go).
            box.close()
        elif run.setup is None and (profile or not _cpu_within(run, budget)):
            # The CPU it used decides the verdict: wait for the keeper's measurement.
            _wait_status(run, box.st_r, box.pidfd)
            if run.status is None:
                _retire(box.keeper)
            box.close()
        else:
            # The verdict does not need the keeper's report: its clean-up finishes while the
            # answer goes back, and is waited for before the next candidate starts.
            _stopping.append(box)
        stamp(run, "w_waited")
    return run


def _keeper_failed(run: Run) -> bool:
    """The keeper went silent (the worker's backstop), ended without a status, or said something
    that is not one (_keeper_message, _collect)."""
    return run.stalled or (run.status is None and run.setup is not None and run.setup.startswith(KEEPER_FAILURES))


KEEPER_FAILURES = ("the sandbox keeper ended", "unreadable status from the sandbox keeper", "unexpected status from the sandbox keeper", "sandbox set-up failed")


def _cpu_within(run: Run, budget: Budget) -> bool:
    """True when the run cannot have used more than its budget: it finished (or was refused
    before any of its code ran) sooner in wall time than the budget spread over every core."""
    if run.pre is not None or (run.setup is not None and not run.ready):
        return True
    if not run.done or run.tamper is not None:
        return False
    elapsed_ms = (time.monotonic() - run.ready_at) * 1000.0
    return elapsed_ms * (os.cpu_count() or 1) <= budget.cpu_ms


# How the worker reads a running candidate's frames: a result frame per call, written as each call
# ends. Waking for each one (a select, a read and the loop, ~10 µs of the worker's CPU, and a
# switch on a CPU the candidate may want) cost more than reading the frames, so after a read that
# found the pipe nearly empty the worker waits READ_QUIET_S before it looks at that pipe again,
# while still watching the keeper's status (which ends the run at once). A read that came back
# large (a fast writer) is followed by the next at once, and the result pipe is made larger
# (RESULT_PIPE_BYTES, where the kernel allows) so that a candidate writing while the worker
# waits fills it only in far longer than the wait: no candidate is held back for long, and what
# is read, the order and every limit are as before.
READ_QUIET_S = 0.001
READ_QUIET_BELOW = 16 * 1024
READ_BYTES = 1 << 16
# 256 KB: a quarter of what an unprivileged user may ask for (fs.pipe-max-size), so that even a
# worker per core on a large machine keeps well within the user's allowance of pipe pages.
RESULT_PIPE_BYTES = 1 << 18
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)


def _enlarge_pipe(fd: int) -> None:
    try:
        fcntl.fcntl(fd, F_SETPIPE_SZ, RESULT_PIPE_BYTES)
    except OSError:  # over the user's pipe allowance (or an older kernel): the default size
        pass


def _collect(run: Run, job: bytes, box: Sandbox, key: bytes, budget: Budget, fails_at: Callable[[Run, int], bool] | None = None) -> None:
    frames = FrameBuffer(run.result_bytes)
    status = FrameBuffer(1 << 16)
    captured = bytearray()
    # The keeper enforces every limit; this only catches a keeper that went silent.
    backstop = time.monotonic() + PRECHECK_WALL_S + budget.wall_ms / 1000.0 + 10.0
    readers = [box.res_r, box.out_r, box.st_r]
    job_open = True
    _enlarge_pipe(box.res_r)
    # Until when a pipe that was just read nearly empty is left alone (monotonic s). A pipe left
    # alone is still watched for its hang-up: the candidate closes its result pipe once it has
    # written "done", which then wakes this loop at once rather than at the end of the wait.
    quiet: dict[int, float] = {}
    poller = select.poll()
    events: dict[int, int] = {}
    try:
        while True:
            now = time.monotonic()
            left = backstop - now
            if left <= 0:
                run.stalled = True
                return
            if quiet:
                for fd, until in list(quiet.items()):
                    if until <= now:
                        del quiet[fd]
                    else:
                        left = min(left, until - now)
            want = {fd: 0 if fd in quiet else select.POLLIN for fd in readers}
            if job_open:
                want[box.job_w] = select.POLLOUT
            for fd in [fd for fd in events if fd not in want]:
                poller.unregister(fd)
                del events[fd]
            for fd, ev in want.items():
                if events.get(fd) != ev:
                    poller.register(fd, ev)  # (re-registering an fd modifies it)
                    events[fd] = ev
            # poll's timeout is in whole milliseconds, rounded up here.
            polled = poller.poll(math.ceil(left * 1000.0))
            ready_w = [fd for fd, ev in polled if fd == box.job_w and ev & (select.POLLOUT | select.POLLERR | select.POLLHUP)]
            ready_r = [fd for fd, ev in polled if fd != box.job_w]
            if ready_w:
                try:
                    n = os.write(box.job_w, job[:65536])
                    job = job[n:]
                except BlockingIOError:
                    pass
                except BrokenPipeError:
                    job = b""
                if not job:
                    job_open = False
                    stamp(run, "w_job")
            for fd in ready_r:
                chunk = os.read(fd, READ_BYTES)
                if fd == box.out_r:
                    if not chunk:
                        readers.remove(fd)
                    else:
                        if len(captured) < MAX_CAPTURE_BYTES:
                            captured += chunk[: MAX_CAPTURE_BYTES - len(captured)]
                        if len(chunk) < READ_QUIET_BELOW:
                            quiet[fd] = time.monotonic() + READ_QUIET_S
                    continue
                if fd == box.st_r:
                    if chunk:
                        for m in status.feed(chunk):
                            _keeper_message(run, m)
                    if not chunk or run.status is not None or run.setup is not None:
                        # The keeper has reported (or gone): so has the candidate. Keep what it wrote.
                        if not chunk and run.status is None and run.setup is None:
                            run.setup = "the sandbox keeper ended without a status"
                        _drain(run, frames, box.res_r, key)
                        return
                    continue
                if not chunk:
                    readers.remove(fd)
                    continue
                try:
                    msgs = frames.feed(chunk)
                except OverflowError:
                    run.too_large = True
                    box.stop()
                    continue
                for m in msgs:
                    _candidate_message(run, m, key)
                    if run.tamper is not None or run.broken is not None or run.done or run.pre is not None:
                        box.stop()
                        if _cpu_within(run, budget):
                            return
                        break
                    if fails_at is not None and run.cut is None and len(run.results) > run.checked and _first_failure(run, fails_at):
                        # Wrong (or failed) at this input: nothing after it can change the
                        # verdict, so the answer stops here; its status still comes (and the
                        # frames already read are still taken in order).
                        box.stop()
                else:
                    # The calls are running and the pipe is nearly empty: the next frames are read together.
                    if run.loaded and len(chunk) < READ_QUIET_BELOW:
                        quiet[fd] = time.monotonic() + READ_QUIET_S
    finally:
        run.captured = bytes(captured)


def _first_failure(run: Run, fails_at: Callable[[Run, int], bool]) -> bool:
    """Look at the results not looked at yet, in order; True (and `cut` set) at the first failing one."""
    while run.checked < len(run.results) and run.broken is None:
        i = run.checked
        run.checked += 1
        if fails_at(run, i):
            run.cut = i
            return True
    return run.broken is not None


def _drain(run: Run, frames: FrameBuffer, res_r: int, key: bytes) -> None:
    while not (run.tamper is not None or run.broken is not None or run.done or run.too_large):
        r, _, _ = select.select([res_r], [], [], 0)
        if not r:
            break
        try:
            chunk = os.read(res_r, READ_BYTES)
        except OSError:
            break
        if not chunk:
            break
        try:
            msgs = frames.feed(chunk)
        except OverflowError:
            run.too_large = True
            return
        for m in msgs:
            _candidate_message(run, m, key)
            if run.tamper is not None or run.broken is not None or run.done:
                return
    if frames.pending and run.ready and run.broken is None and run.tamper is None and not run.done:
        run.broken = "an incomplete message"


def _keeper_message(run: Run, data: bytes) -> None:
    try:
        m = marshal.loads(data)  # the keeper is harness code the candidate cannot reach
    except (ValueError, EOFError, TypeError):
        run.setup = "unreadable status from the sandbox keeper"
        return
    if isinstance(m, tuple) and len(m) == 8 and m[0] == "status" and isinstance(m[1], int):
        run.status = m[1]
        run.usage = Usage(float(m[2]), float(m[3]), float(m[4]), m[5] if isinstance(m[5], str) else None)
        if isinstance(m[6], tuple):
            for k, name in enumerate(STAMPS):
                if 2 * k + 1 < len(m[6]):
                    run.stamps[name], run.stamps[name + "@cpu"] = float(m[6][2 * k]), float(m[6][2 * k + 1])
        if isinstance(m[7], tuple):
            for k, name in enumerate(("k_life", "c_life")):
                if 2 * k + 1 < len(m[7]):
                    run.stamps[name + "@minflt"], run.stamps[name + "@cpu"] = float(m[7][2 * k]), float(m[7][2 * k + 1])
    elif isinstance(m, tuple) and len(m) == 2 and m[0] == "setup":
        run.setup = str(m[1])[:DETAIL_CHARS]
    else:
        run.setup = "unexpected status from the sandbox keeper"


_GUARDED = {
    "gc.get_objects": "gc.get_objects(), which lists the harness's objects",
    "gc.get_referrers": "gc.get_referrers(), which reaches the harness's objects",
    "gc.get_referents": "gc.get_referents(), which reaches the harness's objects",
    "sys._current_frames": "sys._current_frames(), which reaches the harness's frames",
    "sys.addaudithook": "sys.addaudithook(), to watch the harness",
    "import": "ctypes (raw memory)",
    "object.__getattr__": "frame introspection from the harness's own thread",
    "sys._getframe": "frame introspection from the harness's own thread",
    "sys.settrace": "tracing of the harness's own thread",
    "sys.setprofile": "profiling of the harness's own thread",
}


def _guard_text(event: object) -> str:
    name = event if isinstance(event, str) else "?"
    if name.startswith("foreign: "):
        return "tampering: the answer's harness found %s; the answer was stopped" % name[len("foreign: ") :][:200]
    if name.startswith("relay: "):
        return "tampering: %s; the answer was stopped" % name[len("relay: ") :][:200]
    what = _GUARDED.get(name) or ("ctypes (raw memory: %s)" % name if name.startswith("ctypes.") else name[:60])
    return "tampering: the answer used %s; the judge's guard refused it and stopped the answer" % what


def _candidate_message(run: Run, data: bytes, key: bytes) -> None:
    """One frame from the candidate's process, read by one total function: whatever it holds
    ends as a value or as the answer's broken channel, never as a judge error."""
    try:
        _read_message(run, data, key)
    except Exception as e:
        run.broken = "an unreadable message (%s)" % type(e).__name__


def _read_message(run: Run, data: bytes, key: bytes) -> None:
    """One frame from the candidate's process. Every frame carries a keyed MAC over its sequence
    number: a frame the harness did not write (forged, replayed, out of order) is tampering.
    Results are read only as far as (tag, index) here; their values are read after the run."""
    sent, payload = data[:MAC_BYTES], data[MAC_BYTES:]
    if len(data) < MAC_BYTES or not hmac.compare_digest(sent, mac(key, run.seq, payload)):
        if run.seq == 0 and sent == b"\0" * MAC_BYTES:
            # Set-up failed before the job (and its key) was read: no candidate code has run.
            try:
                m = marshal.loads(payload)
                run.setup = "sandbox: " + str(m[1])[:DETAIL_CHARS]
            except (ValueError, EOFError, TypeError, IndexError):
                run.setup = "sandbox: unreadable set-up failure"
            run.broken = run.setup
            return
        run.tamper = "tampering: a frame on the judge's result channel that the harness did not write"
        return
    run.seq += 1
    if run.loaded:
        # A call's result (one per call): its index is all that is read while the answer runs.
        part = Partial.result(payload, run.int_digits)
        if part is not None:
            i = part.head[1]
            if run.ready and type(i) is int and i == len(run.results):
                run.results[i] = part
            else:
                run.broken = "a result out of order"
            return
    try:
        part = Partial(payload, 2, run.int_digits)
    except Malformed as e:
        run.broken = str(e)
        return
    if not part.head or not isinstance(part.head[0], str):
        run.broken = "a message that is not a tagged tuple"
        return
    tag = part.head[0]
    if tag in ("r", "o", "e") and part.size == 4 and run.ready and run.loaded:
        i = part.head[1] if len(part.head) > 1 else None
        if type(i) is int and i == len(run.results):
            run.results[i] = part
        else:
            run.broken = "a result out of order"
        return
    try:
        m = tuple(part.head) + tuple(part.finish())
    except Malformed as e:
        run.broken = str(e)
        return
    if tag == "tamper" and len(m) == 2:
        run.tamper = _guard_text(m[1])
        return
    if not run.prechecked:
        if tag == "pre" and len(m) == 3:
            run.prechecked = True
            stamp(run, "w_pre")
            if m[1] is not None:
                category = as_category(str(m[1]))
                if category is None:
                    run.broken = "an unknown static-check verdict"
                    return
                run.pre = (category, str(m[2])[:DETAIL_CHARS])
        else:
            run.broken = "a message before the static check"
        return
    if not run.ready:
        if tag == "ready" and len(m) == 1:
            run.ready = True
            run.ready_at = time.monotonic()
            stamp(run, "w_ready")
        else:
            run.broken = "a message out of order"
        return
    if tag == "loaded" and len(m) == 1 and not run.loaded and run.load is None:
        run.loaded = True
        stamp(run, "w_loaded")
    elif tag == "load" and len(m) == 3 and m[1] in ("resource", "runtime") and isinstance(m[2], str) and not run.loaded and run.load is None:
        run.load = (m[1], m[2][:DETAIL_CHARS])
    elif tag == "times" and len(m) == 2 and run.loaded and run.call_ms is None and isinstance(m[1], list) and all(type(x) is float for x in m[1]):
        run.call_ms = m[1]
    elif tag == "done" and len(m) == 1 and run.loaded:
        run.done = True
        stamp(run, "w_done")
    else:
        run.broken = "an unexpected message (%s)" % short(tag, 40)


def read_results(run: Run) -> None:
    """Read the values of every result frame not read yet (outside the answer's budget)."""
    for i in sorted(run.results):
        if not read_result(run, i):
            return


def read_result(run: Run, i: int) -> bool:
    """Read the value of result i where it is still a frame; False when the channel broke there
    (the results from i on are then dropped)."""
    part = run.results.get(i)
    if not isinstance(part, Partial):
        return True
    try:
        a, b = part.finish()
    except TooLarge as e:
        run.results[i] = ("e", "resource", str(e))
        return True
    except Malformed as e:
        run.broken = "result %d: %s" % (i + 1, e)
        run.results = {k: v for k, v in run.results.items() if k < i}
        return False
    tag = part.head[0]
    if tag == "e" and (a not in ("resource", "runtime") or not isinstance(b, str)):
        run.broken = "a malformed error report"
    elif tag == "o" and not isinstance(a, str) and not (isinstance(a, tuple) and len(a) == 2 and isinstance(a[0], str)):
        run.broken = "a malformed result"
    if run.broken is not None:
        run.results = {k: v for k, v in run.results.items() if k < i}
        return False
    run.results[i] = (str(tag), a, b)
    run.expanded[i] = part.expanded
    return True


def _wait_status(run: Run, st_r: int, pidfd: int | None) -> None:
    """After the stop signal: the keeper's report, once it has killed everything (bounded)."""
    buf = FrameBuffer(1 << 16)
    end = time.monotonic() + 5.0
    while run.status is None and run.setup is None:
        left = end - time.monotonic()
        if left <= 0:
            if pidfd is not None:
                try:
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                except OSError:
                    pass
            return
        r, _, _ = select.select([st_r], [], [], left)
        if not r:
            continue
        chunk = os.read(st_r, 1 << 16)
        if not chunk:
            return
        for m in buf.feed(chunk):
            _keeper_message(run, m)


def close_zygote() -> None:
    """At the worker's end: closing its socket ends the zygote, given a moment to clean up."""
    if _zygote is not None:
        _zygote.sock.close()
        try:
            _zygote.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            _zygote.proc.kill()
