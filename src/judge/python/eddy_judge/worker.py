"""The trusted judge worker: oracles, expected outputs, comparison. Candidate code never runs here.

Protocol with Node: one JSON object per line on stdin (a request with an "id" and an "op"), one
JSON object per line on stdout (the reply with the same "id"). Candidates run in sandboxes forked
by a clean zygote process (zygote.py) in bubblewrap's world (world.py); this process sends each
one only its code, the function name, the argument values and a per-job key, and reads back
authenticated frames of plain values (protocol.py). Budgets are CPU time (budget.py).
"""

from __future__ import annotations

import copy
import hmac
import inspect
import json
import marshal
import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass, field
from typing import Any

from . import isolation as iso
from . import oracle
from .budget import MARGIN, Budget, host_factor, make_budget
from .categories import Category, as_category
from .compare import Comparator, Opaque, UnknownComparator, make_comparator, strict_equal
from .languages import RUNTIMES, runtime_path
from .oracle import Oracle, OracleError
from .protocol import FrameBuffer, Malformed, Partial, TooLarge, exc_line, frame, recv_control, send_control, shares, short
from .sandbox import MAC_BYTES, MAX_FILE_BYTES, MAX_OPEN_FILES, MAX_PROCS, SCRATCH_BYTES, TAMPER_EXIT, mac
from .wire import WireError, calls_json, read_answer
from .world import WorldError, Zygote, report, start_zygote

MAX_CODE_BYTES = 256 * 1024
MAX_RESULT_BYTES = 32 * 1024 * 1024
MAX_CAPTURE_BYTES = 64 * 1024
ORACLE_TIMEOUT_S = 20.0
# Wall-clock allowance for the static check, before the candidate's own budget starts.
PRECHECK_WALL_S = 30.0
DETAIL_CHARS = 300
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _OracleTimeout(BaseException):
    pass


# ---------------------------------------------------------------- oracles

_oracles: dict[tuple[str, str], Oracle] = {}


def load_oracle(path: str, digest: str) -> Oracle:
    key = (path, digest)
    mod = _oracles.get(key)
    if mod is not None:
        return mod
    mod = oracle.load(path, "eddy_oracle_%d" % len(_oracles), _Guard)
    _oracles[key] = mod
    return mod


class _Guard:
    """Run trusted oracle code with a wall-clock limit; any failure becomes an OracleError."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.old: Any = None

    def __enter__(self) -> None:
        def on_alarm(signum: int, frame: object) -> None:
            raise _OracleTimeout()

        self.old = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, ORACLE_TIMEOUT_S)

    def __exit__(self, typ: type[BaseException] | None, value: BaseException | None, tb: object) -> bool:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.old)
        if typ is None or value is None:
            return False
        if typ is _OracleTimeout:
            raise OracleError("oracle timed out (%ss) while %s" % (ORACLE_TIMEOUT_S, self.what))
        if issubclass(typ, OracleError):
            return False
        raise OracleError("oracle raised while %s: %s" % (self.what, exc_line(value)))


@dataclass
class Prepared:
    """One instance's tests: what the candidate is called with and what it must answer."""

    calls: list[tuple[Any, ...]]
    expected: list[Any]
    n_fixed: int
    compare: Comparator
    keep_args: bool
    new_object: bool
    calls_blob: bytes
    solution_ms: float
    reference_ok: dict[str, bool] = field(default_factory=dict)
    wire_blob: bytes | None = None  # the calls as JSON, for another language's harness (wire.py)


_prepared: dict[tuple[Any, ...], Prepared] = {}


def prepare(req: dict[str, Any]) -> Prepared:
    """Fixed tests and random inputs with expected outputs for one instance (cached)."""
    key = (req["oracle"], req["oracleHash"], json.dumps(req["bindings"], sort_keys=True), req["seed"], req["randomInputs"], req.get("comparator"))
    hit = _prepared.get(key)
    if hit is not None:
        return hit
    mod = load_oracle(req["oracle"], req["oracleHash"])
    kw = req["bindings"]
    calls: list[tuple[Any, ...]] = []
    expected: list[Any] = []
    with _Guard("listing fixed tests"):
        for args, want in oracle.fixed_tests(mod, kw):
            calls.append(args)
            expected.append(want)
    n_fixed = len(calls)
    rnd: list[tuple[Any, ...]] = []
    with _Guard("generating random inputs"):
        rnd = list(oracle.random_inputs(mod, kw, req["seed"], req["randomInputs"]))
    spent = 0.0
    with _Guard("running the model solution on random inputs"):
        for args in rnd:
            a, k = copy.deepcopy(args), copy.deepcopy(kw)
            t0 = time.process_time()
            expected.append(mod.solution(*a, **k))
            spent += time.process_time() - t0
    calls += rnd
    # The model solution's CPU time over every call of the instance (fixed tests at the random
    # inputs' average), measured on this machine: the budget scales with it.
    solution_ms = spent * 1000.0 * len(calls) / len(rnd) if rnd else 0.0
    try:
        calls_blob = marshal.dumps(calls)
    except ValueError:
        raise OracleError("the oracle's test arguments are not plain data (None, bool, int, float, str, bytes, list, tuple, dict, set)")
    try:
        cmp = make_comparator(mod, req.get("comparator") or "ordered", kw)
    except UnknownComparator as e:
        raise OracleError(str(e))
    out = Prepared(
        calls=copy.deepcopy(calls),
        expected=expected,
        n_fixed=n_fixed,
        compare=cmp,
        keep_args=oracle.keep_arguments(mod),
        new_object=oracle.new_object(mod),
        calls_blob=calls_blob,
        solution_ms=solution_ms,
    )
    if len(_prepared) > 512:
        _prepared.clear()
    _prepared[key] = out
    return out


# ---------------------------------------------------------------- the zygote

_zygote: Zygote | None = None
_factor: float | None = None


def cpu_factor() -> float:
    global _factor
    if _factor is None:
        _factor = host_factor()
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
    return report(zygote(), cpu_factor())


# ---------------------------------------------------------------- running one candidate


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
    status: int | None = None
    usage: Usage | None = None
    captured: bytes = b""
    seq: int = 0
    shared: set[int] = field(default_factory=set)  # calls whose answer held an argument object (another language)


def _close(*fds: int | None) -> None:
    for fd in fds:
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass


@dataclass
class Sandbox:
    """A keeper and candidate forked ahead of need, waiting for a job on `job_w`."""

    job_w: int
    res_r: int
    out_r: int
    st_r: int
    ctl_w: int
    pidfd: int | None = None

    def stop(self) -> None:
        """Closing the control pipe makes the keeper kill whatever is left of the candidate."""
        if self.ctl_w >= 0:
            _close(self.ctl_w)
            self.ctl_w = -1

    def close(self) -> None:
        self.stop()
        _close(self.job_w, self.res_r, self.out_r, self.st_r, self.pidfd)


_warm: Sandbox | None = None


def _request_sandbox(z: Zygote) -> Sandbox:
    """Ask the zygote to fork a sandbox; its reply is read when the sandbox is taken."""
    job_r, job_w = os.pipe()
    res_r, res_w = os.pipe()
    out_r, out_w = os.pipe()
    st_r, st_w = os.pipe()
    ctl_r, ctl_w = os.pipe()
    box = Sandbox(job_w, res_r, out_r, st_r, ctl_w)
    try:
        send_control(z.sock, (), [job_r, res_w, out_w, st_w, ctl_r])
    except OSError:
        box.close()
        raise
    finally:
        _close(job_r, res_w, out_w, st_w, ctl_r)
    return box


def _take_sandbox() -> Sandbox:
    global _warm
    box, _warm = _warm, None
    for attempt in range(2):
        try:
            z = zygote()
            if box is None:
                box = _request_sandbox(z)
            reply, fds = _zy_recv(z)
            if reply[0] != "forked":
                raise OracleError("sandbox zygote: %s" % (reply[1:],))
            box.pidfd = fds[0] if fds else None
            return box
        except (OSError, OracleError):
            if box is not None:
                box.close()
                box = None
            _stop_zygote()
            if attempt == 1:
                raise
    raise OracleError("unreachable")


def _prefork() -> None:
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
    if _zygote is not None:
        _zygote.sock.close()
        _zygote.proc.kill()
        _zygote.proc.wait()
        _zygote = None


_stopping: list[Sandbox] = []


def finish_stopped() -> None:
    """Wait until every stopped sandbox's keeper has killed all it ran (bounded)."""
    while _stopping:
        box = _stopping.pop()
        _wait_status(Run(), box.st_r, box.pidfd)
        box.close()


def run_candidate(code: str, fn: str, arity: int, p: Prepared, budget: Budget, memory_mb: int, foreign: tuple[str, str, str] | None = None) -> Run:
    finish_stopped()
    box = _take_sandbox()
    run = Run()
    key = os.urandom(32)
    try:
        # EDDY_JUDGE_GUARD=0 (tests only) leaves the in-process guard out, to show what the
        # kernel's layers hold on their own.
        guard = os.environ.get("EDDY_JUDGE_GUARD") != "0"
        head = marshal.dumps((code, fn, arity, p.keep_args, p.new_object, memory_mb, budget.kill_ms / 1000.0, key, guard, foreign))
        job = frame(head) + frame(p.calls_blob if foreign is None else _wire_blob(p))
        os.set_blocking(box.job_w, False)
        os.write(box.ctl_w, frame(marshal.dumps(budget.limits())))
        _collect(run, job, box, key, budget)
    finally:
        box.stop()
        if run.status is None and run.setup is None and not _cpu_within(run, budget):
            # The CPU it used decides the verdict: wait for the keeper's measurement.
            _wait_status(run, box.st_r, box.pidfd)
            box.close()
        else:
            # The verdict does not need the keeper's report: its clean-up finishes while the
            # answer goes back, and is waited for before the next candidate starts.
            _stopping.append(box)
    return run


def _cpu_within(run: Run, budget: Budget) -> bool:
    """True when the run cannot have used more than its budget: it finished (or was refused
    before any of its code ran) sooner in wall time than the budget spread over every core."""
    if run.pre is not None or (run.setup is not None and not run.ready):
        return True
    if not run.done or run.tamper is not None:
        return False
    elapsed_ms = (time.monotonic() - run.ready_at) * 1000.0
    return elapsed_ms * (os.cpu_count() or 1) <= budget.cpu_ms


def _collect(run: Run, job: bytes, box: Sandbox, key: bytes, budget: Budget) -> None:
    frames = FrameBuffer(MAX_RESULT_BYTES)
    status = FrameBuffer(1 << 16)
    captured = bytearray()
    # The keeper enforces every limit; this only catches a keeper that went silent.
    backstop = time.monotonic() + PRECHECK_WALL_S + budget.wall_ms / 1000.0 + 10.0
    readers = [box.res_r, box.out_r, box.st_r]
    job_open = True
    try:
        while True:
            left = backstop - time.monotonic()
            if left <= 0:
                run.stalled = True
                return
            ready_r, ready_w, _ = select.select(readers, [box.job_w] if job_open else [], [], left)
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
            for fd in ready_r:
                chunk = os.read(fd, 1 << 16)
                if fd == box.out_r:
                    if not chunk:
                        readers.remove(fd)
                    elif len(captured) < MAX_CAPTURE_BYTES:
                        captured += chunk[: MAX_CAPTURE_BYTES - len(captured)]
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
    finally:
        run.captured = bytes(captured)


def _drain(run: Run, frames: FrameBuffer, res_r: int, key: bytes) -> None:
    while not (run.tamper is not None or run.broken is not None or run.done or run.too_large):
        r, _, _ = select.select([res_r], [], [], 0)
        if not r:
            break
        try:
            chunk = os.read(res_r, 1 << 16)
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
    if isinstance(m, tuple) and len(m) == 6 and m[0] == "status" and isinstance(m[1], int):
        run.status = m[1]
        run.usage = Usage(float(m[2]), float(m[3]), float(m[4]), m[5] if isinstance(m[5], str) else None)
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
    what = _GUARDED.get(name) or ("ctypes (raw memory: %s)" % name if name.startswith("ctypes.") else name[:60])
    return "tampering: the answer used %s; the judge's guard refused it and stopped the answer" % what


def _candidate_message(run: Run, data: bytes, key: bytes) -> None:
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
    try:
        part = Partial(payload, 2)
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
        else:
            run.broken = "a message out of order"
        return
    if tag == "loaded" and len(m) == 1 and not run.loaded and run.load is None:
        run.loaded = True
    elif tag == "load" and len(m) == 3 and m[1] in ("resource", "runtime") and isinstance(m[2], str) and not run.loaded and run.load is None:
        run.load = (m[1], m[2][:DETAIL_CHARS])
    elif tag == "done" and len(m) == 1 and run.loaded:
        run.done = True
    else:
        run.broken = "an unexpected message (%s)" % short(tag, 40)


def _read_results(run: Run) -> None:
    """Read the values of every result frame (after the run, outside its budget)."""
    for i in sorted(run.results):
        part = run.results[i]
        if not isinstance(part, Partial):
            continue
        try:
            a, b = part.finish()
        except TooLarge as e:
            run.results[i] = ("e", "resource", str(e))
            continue
        except Malformed as e:
            run.broken = "result %d: %s" % (i + 1, e)
            run.results = {k: v for k, v in run.results.items() if k < i}
            return
        tag = part.head[0]
        if tag == "e" and (a not in ("resource", "runtime") or not isinstance(b, str)):
            run.broken = "a malformed error report"
        elif tag == "o" and not isinstance(a, str):
            run.broken = "a malformed result"
        if run.broken is not None:
            run.results = {k: v for k, v in run.results.items() if k < i}
            return
        run.results[i] = (str(tag), a, b)


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


# ---------------------------------------------------------------- verdicts


# Signals that end a candidate at one of its limits. SIGSEGV and SIGBUS count too: with ctypes
# refused, Python code crashes the interpreter only by exhausting its stack or its address space
# (recursion with the limit lifted ends in a MemoryError, a SystemError or a SIGSEGV depending on
# where the allocation that fails falls, which varies from run to run: one verdict for all three).
CRASHED_AT_A_LIMIT = (signal.SIGXCPU, signal.SIGXFSZ, signal.SIGSEGV, signal.SIGBUS)


def _describe_status(status: int | None) -> tuple[str, str]:
    if status is None:
        return "ended", "runtime"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        kind = "resource" if sig in CRASHED_AT_A_LIMIT else "runtime"
        return "killed by %s" % name, kind
    return "exited with status %d" % os.WEXITSTATUS(status), "runtime"


def call_text(fn: str, args: tuple[Any, ...]) -> str:
    text = fn + "(" + ", ".join(short(a, 120) for a in args) + ")"
    return text if len(text) <= DETAIL_CHARS else text[: DETAIL_CHARS - 3] + "..."


def where(i: int | None, n_fixed: int) -> str:
    if i is None:
        return "while loading the module"
    if i < n_fixed:
        return "on fixed test %d" % (i + 1)
    return "on random input %d" % (i - n_fixed + 1)


@dataclass
class Outcome:
    category: Category
    detail: str
    limit: str | None = None  # which limit decided a resource_exhaustion ("cpu", "blocked", "wall")
    borderline: bool = False  # over budget within the margin: to be judged again, alone
    cpu_ms: float | None = None
    budget_ms: float = 0.0


def judge(req: dict[str, Any], reference: bool = False) -> Outcome:
    """One verdict."""
    code = req.get("code")
    fn = str(req["function"])
    if not isinstance(code, str) or not code.strip():
        return Outcome("no_function", "no code could be extracted from the response")
    size = len(code.encode("utf-8", "surrogatepass"))
    if size > MAX_CODE_BYTES:
        return Outcome("static_error", "the code is %d KB, more than the judge accepts (%d KB)" % (size // 1024, MAX_CODE_BYTES // 1024))
    p = prepare(req)
    budget_req = req.get("budget") or {}
    budget = make_budget(float(budget_req.get("timeMs", 2000)), cpu_factor(), p.solution_ms)
    memory_mb = int(budget_req.get("memoryMb", 256))
    foreign = foreign_runtime(req)
    run = run_candidate(code, fn, int(req["arity"]), p, budget, memory_mb, foreign)
    if foreign is not None:
        _read_foreign(run, p)
    out = _verdict(run, p, fn, budget, bool(req.get("rejudge")), memory_mb)
    if out is None:
        # Something went wrong around the candidate before its code ran: a judge_error only if
        # the model solution fails the same way on this instance, else the candidate's failure.
        why = run.setup or "the sandbox failed"
        if reference or _reference_fails(req, p):
            raise OracleError(why)
        return Outcome("runtime_error", "the candidate's sandbox failed: %s" % why)
    out.budget_ms = budget.cpu_ms
    if run.usage is not None:
        out.cpu_ms = run.usage.cpu_ms
    return out


def _reference_fails(req: dict[str, Any], p: Prepared) -> bool:
    key = "solution"
    if key not in p.reference_ok:
        try:
            # The model solution in Python: it checks the oracle and the sandbox, in any language.
            ref = dict(req, code=answer_source(dict(req, which="solution", language="python")), language="python")
            p.reference_ok[key] = judge(ref, reference=True).category == "passed"
        except OracleError:
            p.reference_ok[key] = False
    return not p.reference_ok[key]


def _limit_verdict(run: Run, p: Prepared, budget: Budget) -> Outcome | None:
    u = run.usage
    at = where(None, p.n_fixed)
    if run.loaded:
        at = where(len(run.results), p.n_fixed) if len(run.results) < len(p.calls) else "after the last call"
    if run.stalled:
        return Outcome("resource_exhaustion", "the sandbox did not finish within the wall-clock backstop of %.0f ms %s" % (budget.wall_ms, at), "wall")
    if u is None or u.limit is None:
        return None
    if u.limit == "precheck":
        return Outcome("static_error", "the static check did not finish within %d s" % PRECHECK_WALL_S)
    if u.limit == "cpu":
        return Outcome(
            "resource_exhaustion",
            "CPU time limit exceeded %s: stopped after %.0f ms of CPU time; budget %.0f ms (%s) + %d%% margin = %.0f ms"
            % (at, u.cpu_ms, budget.cpu_ms, budget.explain(), round(MARGIN * 100), budget.kill_ms),
            "cpu",
        )
    if u.limit == "blocked":
        return Outcome(
            "resource_exhaustion",
            "sleeping or blocked %s: %.0f ms neither running nor waiting for a CPU (limit %.0f ms), after %.0f ms of CPU time"
            % (at, u.blocked_ms, budget.blocked_ms, u.cpu_ms),
            "blocked",
        )
    return Outcome(
        "resource_exhaustion",
        "wall-clock backstop of %.0f ms reached %s, after %.0f ms of CPU time (budget %.0f ms)" % (budget.wall_ms, at, u.cpu_ms, budget.cpu_ms),
        "wall",
    )


def _verdict(run: Run, p: Prepared, fn: str, budget: Budget, rejudge: bool, memory_mb: int) -> Outcome | None:
    n_fixed = p.n_fixed
    if run.pre is None and not run.too_large and run.tamper is None:
        _read_results(run)
    if run.pre is not None:
        return Outcome(*run.pre)
    if run.tamper is not None:
        return Outcome("runtime_error", run.tamper)
    if run.ready and not run.done and run.status is not None and os.WIFEXITED(run.status) and os.WEXITSTATUS(run.status) == TAMPER_EXIT:
        return Outcome("runtime_error", "tampering: the judge's guard stopped the answer (exit status %d)" % TAMPER_EXIT)
    hit = _limit_verdict(run, p, budget)
    if hit is not None:
        # A call that had already failed (memory, recursion…) before the limit stopped the run is
        # the verdict: the first failure is the one to report.
        if run.ready and (run.load is not None or any(isinstance(r, tuple) and r[0] == "e" for r in run.results.values())):
            return _natural_verdict(run, p, fn, memory_mb)
        return hit
    if run.too_large:
        return Outcome("resource_exhaustion", "output larger than %d MB" % (MAX_RESULT_BYTES // (1024 * 1024)))
    if run.broken is not None and run.ready:
        return Outcome("runtime_error", "the candidate broke the judge's result channel: %s" % run.broken)
    if not run.prechecked:
        if run.status is not None and run.setup is None:
            desc, kind = _describe_status(run.status)
            # Only harness code and the static check ran: hostile code too big to analyse.
            return Outcome("static_error", "the code could not be analysed within the judge's limits (%s)" % desc)
        return None
    if not run.ready:
        return None
    natural = _natural_verdict(run, p, fn, memory_mb)
    u = run.usage
    if u is not None and u.cpu_ms > budget.cpu_ms:
        over = 100.0 * (u.cpu_ms - budget.cpu_ms) / budget.cpu_ms
        text = "used %.0f ms of CPU time, over its budget of %.0f ms (%s) by %.0f%%" % (u.cpu_ms, budget.cpu_ms, budget.explain(), over)
        if rejudge:
            return Outcome("resource_exhaustion", text + "; the same again when judged alone", "cpu")
        return Outcome("resource_exhaustion", text, "cpu", borderline=True)
    return natural


def _which_limit(text: str, memory_mb: int) -> str:
    """Which of the sandbox's limits an error report points at, said in the verdict."""
    if text.startswith("RecursionError"):
        return " (Python's recursion limit)"
    if text.startswith(("MemoryError", "SystemError")):
        return " (memory limit: %d MB of address space)" % memory_mb
    if "[Errno 11]" in text:
        return " (process limit: %d processes and threads)" % MAX_PROCS
    if "[Errno 27]" in text or "SIGXFSZ" in text:
        return " (file size limit: %d MB)" % (MAX_FILE_BYTES // (1024 * 1024))
    if "[Errno 28]" in text:
        return " (scratch space: %d MB per tmpfs)" % (SCRATCH_BYTES // (1024 * 1024))
    if "[Errno 24]" in text or "[Errno 23]" in text:
        return " (open files limit: %d)" % MAX_OPEN_FILES
    if "SIGXCPU" in text:
        return " (the CPU-time rlimit backstop)"
    if "SIGSEGV" in text or "SIGBUS" in text:
        return " (the interpreter crashed at its stack or memory limit: %d MB of address space)" % memory_mb
    return ""


def _natural_verdict(run: Run, p: Prepared, fn: str, memory_mb: int) -> Outcome:
    n_fixed = p.n_fixed
    errs: list[tuple[int | None, str, str]] = []
    if run.load is not None:
        errs.append((None, run.load[1], run.load[0]))
    for i in sorted(run.results):
        tag, a, b = run.results[i]
        if tag == "e":
            errs.append((i, b, a))
    if run.load is None and not run.done:
        desc, kind = _describe_status(run.status)
        tail = run.captured.decode("utf-8", "replace").strip().splitlines()[-1:] if run.captured else []
        errs.append((len(run.results) if run.loaded else None, desc + ("; " + tail[0][:120] if tail else ""), kind))
    for kind in ("resource", "runtime"):
        for i, text, k in errs:
            if k == kind:
                if kind == "resource":
                    return Outcome("resource_exhaustion", "%s %s%s" % (text, where(i, n_fixed), _which_limit(text, memory_mb)))
                return Outcome("runtime_error", "%s %s" % (text, where(i, n_fixed)))
    for i in range(len(p.calls)):
        if i not in run.results:
            return Outcome("runtime_error", "no result came back %s" % where(i, n_fixed))
    changed = "modified its argument, which the question forbids"
    for i, args in enumerate(p.calls):
        tag, value, after = run.results[i]
        actual = Opaque(value) if tag == "o" else value
        expected = p.expected[i]
        fixed = i < n_fixed
        label = ("fixed test %d" % (i + 1)) if fixed else ("random input %d" % (i - n_fixed + 1))
        wrong = "assertion_error" if fixed else "fuzzing_failure"
        try:
            same = bool(p.compare(expected, actual))
        except Exception:
            same = False
        if not same:
            if fixed:
                return Outcome(wrong, "%s: %s expected %s, got %s" % (label, call_text(fn, args), short(expected), short(actual)))
            return Outcome(wrong, "%s: %s: model solution gives %s, candidate gives %s" % (label, call_text(fn, args), short(expected), short(actual)))
        # Compared by value in this process: set iteration order or a patched encoder in the
        # candidate's process cannot hide a change.
        if p.keep_args and (not isinstance(after, tuple) or not strict_equal(args, after)):
            return Outcome(wrong, "%s: %s %s" % (label, call_text(fn, args), changed))
        # The value and the arguments came back in one marshal stream: an argument object that
        # is also (part of) the answer is one object here.
        if p.new_object and (i in run.shared or (isinstance(after, tuple) and shares(value, after))):
            return Outcome(wrong, "%s: %s returned its argument object (or holds it) instead of a new one, which the question asks for" % (label, call_text(fn, args)))
    return Outcome("passed", "%d fixed tests and %d random inputs agree" % (n_fixed, len(p.calls) - n_fixed))


# ---------------------------------------------------------------- other languages

_harnesses: dict[str, str] = {}


def foreign_runtime(req: dict[str, Any]) -> tuple[str, str, str] | None:
    """(language, runtime binary, harness source) for an answer in another language; None for Python."""
    lang = req.get("language") or "python"
    if lang == "python":
        return None
    rt = RUNTIMES.get(str(lang))
    if rt is None:
        raise OracleError("the judge knows no language %r" % short(lang, 40))
    binary = runtime_path(rt.binary)
    if binary is None:
        raise OracleError("%s answers need %s, which is not installed: install Debian's %s package" % (rt.name, rt.binary, rt.package))
    if rt.name not in _harnesses:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "harness", "harness." + rt.ext), encoding="utf-8") as f:
            _harnesses[rt.name] = f.read()
    return (rt.name, binary, _harnesses[rt.name])


def _wire_blob(p: Prepared) -> bytes:
    if p.wire_blob is None:
        try:
            p.wire_blob = calls_json(p.calls)
        except WireError as e:
            raise OracleError("the template's calls cannot be sent to another language: %s" % e) from None
    return p.wire_blob


def _read_foreign(run: Run, p: Prepared) -> None:
    """Another language's answers, read as Python values beside the expected ones (wire.py)."""
    if run.pre is not None or run.too_large or run.tamper is not None:
        return
    _read_results(run)
    for i in sorted(run.results):
        tag, a, b = run.results[i]
        if tag != "r":
            continue
        try:
            value, after, shared = read_answer(str(a), str(b), p.expected[i], p.calls[i])
        except (WireError, IndexError) as e:
            run.broken = "result %d: %s" % (i + 1, e)
            run.results = {k: v for k, v in run.results.items() if k < i}
            return
        if isinstance(value, Opaque):
            run.results[i] = ("o", value.text, after)
        else:
            run.results[i] = ("r", value, after)
        if shared:
            run.shared.add(i)


# ---------------------------------------------------------------- rendering reference answers


def answer_source(req: dict[str, Any]) -> str:
    """solution() or a mutant_*() rendered as an answer defining the required function."""
    lang = req.get("language") or "python"
    if lang != "python":
        return translated_source(req, str(lang))
    mod = load_oracle(req["oracle"], req["oracleHash"])
    which = req.get("which") or "solution"
    ref = getattr(mod, which, None)
    if not callable(ref) or not (which == "solution" or which.startswith("mutant_")):
        raise OracleError("oracle %s has no %s()" % (os.path.basename(req["oracle"]), which))
    src = textwrap.dedent(inspect.getsource(ref))
    params = [p.name for p in inspect.signature(ref).parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    arity = int(req["arity"])
    args = params[:arity] + ["arg%d" % k for k in range(len(params), arity)]
    kw = ", ".join("%s=%r" % (k, v) for k, v in req["bindings"].items())
    call = ", ".join(args + ([kw] if kw else []))
    return "%s\n\n_ref = %s\n\n\ndef %s(%s):\n    return _ref(%s)\n" % (src.rstrip(), which, req["function"], ", ".join(args), call)


def translation_path(oracle: str, lang: str) -> str:
    """Where the hand-written translation of an oracle's solution into `lang` lives."""
    rt = RUNTIMES[lang]
    base = os.path.splitext(os.path.basename(oracle))[0]
    return os.path.join(os.path.dirname(oracle), "translations", "%s.%s" % (base, rt.ext))


def _ruby_literal(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ", ".join(_ruby_literal(x) for x in v) + "]"
    if isinstance(v, str):
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return repr(v)


def translated_source(req: dict[str, Any], lang: str) -> str:
    """The hand-written translation's `solution`, wrapped as an answer defining the required function."""
    if lang not in RUNTIMES:
        raise OracleError("the judge knows no language %r" % short(lang, 40))
    which = req.get("which") or "solution"
    path = translation_path(req["oracle"], lang)
    if which != "solution" or not os.path.isfile(path):
        raise OracleError("oracle %s has no %s translation of %s()" % (os.path.basename(req["oracle"]), lang, which))
    with open(path, encoding="utf-8") as f:
        src = f.read().rstrip()
    fn = str(req["function"])
    args = ", ".join("arg%d" % k for k in range(int(req["arity"])))
    bindings: dict[str, Any] = req["bindings"]
    if lang == "javascript":
        kw = json.dumps(bindings)
        return "%s\n\nfunction %s(%s) {\n    return solution(%s);\n}\n" % (src, fn, args, ", ".join(([args] if args else []) + [kw]))
    # Ruby's keyword arguments and PHP's named arguments read alike; so do these literals.
    kw = ", ".join("%s: %s" % (k, _ruby_literal(v)) for k, v in bindings.items())
    if lang == "php":
        args = ", ".join("$arg%d" % k for k in range(int(req["arity"])))
        return "%s\n\nfunction %s(%s) {\n    return solution(%s);\n}\n" % (src, fn, args, ", ".join(([args] if args else []) + ([kw] if kw else [])))
    return "%s\n\ndef %s(%s)\n  solution(%s)\nend\n" % (src, fn, args, ", ".join(([args] if args else []) + ([kw] if kw else [])))


def mutants(req: dict[str, Any]) -> list[str]:
    mod = load_oracle(req["oracle"], req["oracleHash"])
    found: list[tuple[int, str]] = []
    for name in oracle.mutant_names(mod):
        try:
            line = inspect.getsourcelines(getattr(mod, name))[1]
        except (OSError, TypeError):
            line = 0
        found.append((line, name))
    return [n for _, n in sorted(found)]


# ---------------------------------------------------------------- main loop


def handle(req: dict[str, Any]) -> dict[str, Any]:
    op = req.get("op")
    if op == "hello":
        report = isolation_report()
        _prefork()
        return {"isolation": report, "python": sys.version.split()[0], "runtimes": {n: runtime_path(rt.binary) for n, rt in RUNTIMES.items()}}
    if op == "judge":
        t0 = time.monotonic()
        out = judge(req)
        ms = (time.monotonic() - t0) * 1000.0
        _prefork()
        return {
            "category": out.category,
            "detail": out.detail,
            "ms": ms,
            "limit": out.limit,
            "borderline": out.borderline,
            "cpuMs": out.cpu_ms,
            "budgetMs": round(out.budget_ms, 3),
        }
    if op == "source":
        return {"source": answer_source(req)}
    if op == "mutants":
        return {"mutants": mutants(req)}
    raise OracleError("unknown op %r" % op)


def main() -> None:
    # The protocol gets a private copy of stdout; fd 1 becomes stderr so that a print() in an
    # oracle cannot corrupt the reply stream.
    proto = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    out = os.fdopen(proto, "w", encoding="utf-8")
    # Same-uid processes (the no-namespace fallback) cannot read this process's memory.
    try:
        iso.prctl(iso.PR_SET_DUMPABLE, 0)
    except OSError:
        pass
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 5000))
    inp = sys.stdin.buffer
    try:
        while True:
            line = inp.readline()
            if not line:
                break
            if not line.strip():
                continue
            rid = None
            try:
                req = json.loads(line)
                rid = req.get("id")
                reply = handle(req)
                reply["id"] = rid
            except OracleError as e:
                reply = {"id": rid, "error": str(e)[:1000]}
            except Exception as e:  # a harness bug: report it as a judge_error, keep serving
                reply = {"id": rid, "error": "judge worker: " + exc_line(e)}
            out.write(json.dumps(reply) + "\n")
            out.flush()
    finally:
        if _zygote is not None:
            _zygote.sock.close()
            try:
                _zygote.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                _zygote.proc.kill()
