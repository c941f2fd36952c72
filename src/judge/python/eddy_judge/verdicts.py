"""Verdicts: one answer judged (judge()), from the run's limits, its errors and its answers
compared with the model solution's, each said in one line."""

from __future__ import annotations

import marshal
import os
import signal
import time
from dataclasses import dataclass
from typing import Any, Callable, Literal

from eddy_sandbox.sandbox import MAX_FILE_BYTES, MAX_OPEN_FILES, MAX_PROCS, SCRATCH_BYTES, TAMPER_EXIT

from . import checked_code
from .budget import MARGIN, Budget, make_budget
from .candidate import stamp, DETAIL_CHARS, PRECHECK_WALL_S, Run, cpu_factor, read_result, read_results, run_candidate
from .categories import Category
from .compare import not_plain, strict_equal
from eddy_sandbox.relay import Foreign

from .foreign import foreign_runtime, read_foreign, read_foreign_one
from .languages import NATIVE
from .oracle import OracleError
from .prepare import MAX_RESULT_BYTES, RESULT_PER_EXPECTED, Prepared, _copy, _Guard, bare, load_oracle, prepare, result_limits
from .protocol import shares, short
from .references import answer_source
from .shrink import shrink_failure

# Largest code the judge accepts. The one place it is set: the worker reports it in its hello
# reply (worker.py handle) and the Node pool refuses larger code with it before sending any.
MAX_CODE_BYTES = 256 * 1024

# Which limit decided a resource_exhaustion (src/judge/types.ts Verdict.limit).
Limit = Literal["cpu", "blocked", "wall"]


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
    limit: Limit | None = None  # which limit decided a resource_exhaustion: a field of the reply, never read from the detail
    borderline: bool = False  # over budget within the margin: to be judged again, alone
    cpu_ms: float | None = None
    budget_ms: float = 0.0
    stamps: dict[str, float] | None = None  # when each phase of the verdict ended (profile.py)
    index: int | None = None  # the call a fuzzing_failure was decided at
    shrunk: dict[str, Any] | None = None  # its input shrunk (shrink.py), where asked for: the verdict is unchanged


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
    arity = int(req["arity"])
    profile = bool(req.get("profile"))
    # The static check's earlier word on this code (Python only; a profile measures every phase).
    known, refusal = checked_code.lookup(code, fn, arity) if foreign is None and not profile else (False, None)
    if refusal is not None:
        return Outcome(refusal[0], refusal[1], budget_ms=budget.cpu_ms)

    def fails_at(run: Run, i: int) -> bool:
        """Result i, looked at as it comes back: True at the first failing input."""
        if not read_result(run, i) or (run.foreign and not read_foreign_one(run, p, i)):
            return True
        out = _failure_at(run, p, fn, i, memory_mb)
        if out is None:
            return False
        run.failure = out
        return True

    run = run_candidate(code, fn, arity, p, budget, memory_mb, foreign, profile, checked=known, fails_at=fails_at)
    if foreign is None and not known and run.prechecked:
        # Said by harness code in the sandbox before any of the answer's code ran (the first authenticated frame).
        checked_code.remember(code, fn, arity, run.pre)
    if foreign is not None:
        read_foreign(run, p)
    out = _verdict(run, p, fn, budget, bool(req.get("rejudge")), memory_mb)
    stamp(run, "w_verdict")
    if out is None:
        # Something went wrong around the candidate before its code ran: a judge_error only if
        # the model solution fails the same way on this instance, else the candidate's failure.
        why = run.setup or "the sandbox failed"
        if reference or _reference_fails(req, p):
            raise OracleError(why)
        return Outcome("runtime_error", "the candidate's sandbox failed: %s" % why)
    out.budget_ms = budget.cpu_ms
    if req.get("shrink") and out.category == "fuzzing_failure" and out.index is not None and not reference:
        out.shrunk = _shrunk(req, p, code, fn, arity, budget, memory_mb, foreign, out.index, run)
    if run.usage is not None:
        out.cpu_ms = run.usage.cpu_ms
        run.stamps["answer_cpu_ms"] = run.usage.cpu_ms
    out.stamps = run.stamps
    return out


def _reference_fails(req: dict[str, Any], p: Prepared) -> bool:
    key = "solution"
    if key not in p.reference_ok:
        try:
            # The model solution in Python: it checks the oracle and the sandbox, in any language.
            ref = dict(req, code=answer_source(dict(req, which="solution", language=NATIVE)), language=NATIVE)
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


def _over_own_limit(run: Run, p: Prepared, i: int) -> Outcome | None:
    """Call i over its own CPU limit (a template that times each input on its own, as EvalPlus
    does): the answer's resource_exhaustion there, whatever it returned."""
    if p.call_limits_ms is None or run.call_ms is None or i >= len(run.call_ms) or i >= len(p.call_limits_ms):
        return None
    ms, limit = run.call_ms[i], p.call_limits_ms[i]
    factor = cpu_factor()
    if limit is not None and ms > limit * factor:
        return Outcome(
            "resource_exhaustion",
            "CPU time limit of one input exceeded %s: %.0f ms of CPU time; its own limit %.0f ms (%.0f ms on the reference machine x host factor %.2f)"
            % (where(i, p.n_fixed), ms, limit * factor, limit, factor),
            "cpu",
        )
    return None


def _verdict(run: Run, p: Prepared, fn: str, budget: Budget, rejudge: bool, memory_mb: int) -> Outcome | None:
    if run.pre is None and not run.too_large and run.tamper is None:
        read_results(run)
    if run.pre is not None:
        return Outcome(*run.pre)
    if run.tamper is not None:
        return Outcome("runtime_error", run.tamper)
    if run.cut is not None and run.failure is not None:
        # Stopped at its first failing input: whatever the stop cut short after it (a frame half
        # written, the process's end) is not the answer's.
        return run.failure
    if run.ready and not run.done and run.status is not None and os.WIFEXITED(run.status) and os.WEXITSTATUS(run.status) == TAMPER_EXIT:
        return Outcome("runtime_error", "tampering: the judge's guard stopped the answer (exit status %d)" % TAMPER_EXIT)
    hit = _limit_verdict(run, p, budget)
    if hit is not None:
        # An input that had already failed (a wrong value, memory, recursion…) before the limit
        # stopped the run is the verdict: the first failing input is the one to report.
        if run.ready and run.load is not None:
            return _natural_verdict(run, p, fn, memory_mb)
        first = _first_failure(run, p, fn, memory_mb) if run.ready else None
        return first or hit
    if run.too_large:
        first = _first_failure(run, p, fn, memory_mb) if run.ready and run.load is None else None
        return first or Outcome("resource_exhaustion", "output larger than %s %s" % (_result_cap_text(p.result_bytes), where(len(run.results), p.n_fixed)))
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
    if natural.category != "passed":
        # The first failing input decides: the answer was stopped there (or would have been).
        return natural
    u = run.usage
    if u is not None and u.cpu_ms + run.compare_ms > budget.cpu_ms:
        used = u.cpu_ms + run.compare_ms
        over = 100.0 * (used - budget.cpu_ms) / budget.cpu_ms
        text = "used %.0f ms of CPU time, over its budget of %.0f ms (%s) by %.0f%%" % (used, budget.cpu_ms, budget.explain(), over)
        if run.compare_ms >= 1.0:
            text += " (%.0f ms of it the judge's comparison of its answers)" % run.compare_ms
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
    """The verdict at the answer's first failing input, in the order the inputs were asked (the
    load first): an error there, a call over its own limit, more values than the judge compares,
    or a value that differs; then where the run ended without a result; else passed."""
    n_fixed = p.n_fixed
    if run.load is not None:
        kind, text = run.load
        if kind == "resource":
            return Outcome("resource_exhaustion", "%s %s%s" % (text, where(None, n_fixed), _which_limit(text, memory_mb)))
        return Outcome("runtime_error", "%s %s" % (text, where(None, n_fixed)))
    stamp(run, "w_results")
    first = _first_failure(run, p, fn, memory_mb)
    if first is not None:
        return first
    n = len(run.results)
    if n < len(p.calls) or not run.done:
        if run.done:
            return Outcome("runtime_error", "no result came back %s" % where(n, n_fixed))
        desc, kind = _describe_status(run.status)
        tail = run.captured.decode("utf-8", "replace").strip().splitlines()[-1:] if run.captured else []
        text = desc + ("; " + tail[0][:120] if tail else "")
        at = where(n if run.loaded else None, n_fixed) if n < len(p.calls) else "after its last call"
        if kind == "resource":
            return Outcome("resource_exhaustion", "%s %s%s" % (text, at, _which_limit(text, memory_mb)))
        return Outcome("runtime_error", "%s %s" % (text, at))
    return Outcome("passed", "%d fixed tests and %d random inputs agree" % (n_fixed, len(p.calls) - n_fixed))


def _first_failure(run: Run, p: Prepared, fn: str, memory_mb: int) -> Outcome | None:
    """The verdict at the first failing input among the results that came back (looked at from
    where the worker left off while the answer ran), or None."""
    if run.failure is not None:
        return run.failure
    while run.checked < len(run.results) and run.broken is None:
        i = run.checked
        run.checked += 1
        if not read_result(run, i) or (run.foreign and i not in run.converted):
            break
        out = _failure_at(run, p, fn, i, memory_mb)
        if out is not None:
            run.failure = out
            return out
    return None


def _failure_at(run: Run, p: Prepared, fn: str, i: int, memory_mb: int) -> Outcome | None:
    """Result i's failure (its results before it are all right), or None."""
    n_fixed = p.n_fixed
    tag, a, b = run.results[i]
    if tag == "e":
        if a == "resource":
            return Outcome("resource_exhaustion", "%s %s%s" % (b, where(i, n_fixed), _which_limit(str(b), memory_mb)))
        return Outcome("runtime_error", "%s %s" % (b, where(i, n_fixed)))
    late = _over_own_limit(run, p, i)
    if late is not None:
        return late
    run.compared_values += run.expanded.get(i, 0)
    bound = _compare_bound(p)
    if run.compared_values > bound:
        return Outcome(
            "resource_exhaustion",
            "the answers up to this input hold %d values once shared references are expanded, more than the judge compares for this instance (%d: %d x the model solution's, at least %d) %s"
            % (run.compared_values, bound, COMPARE_PER_EXPECTED, COMPARE_FLOOR, where(i, n_fixed)),
            "cpu",
        )
    t0 = time.process_time()
    try:
        return _compared_at(run, p, fn, i)
    finally:
        run.compare_ms += (time.process_time() - t0) * 1000.0


# The trusted comparison is bounded by what crossed the wire: an answer may hold up to this many
# times the values of the model solution's outputs (and always this floor) once shared
# references are expanded; beyond, it is the answer's resource_exhaustion, decided before any
# comparison runs. What the comparison costs is charged to the answer's CPU time.
COMPARE_FLOOR = 1_000_000
COMPARE_PER_EXPECTED = 4


def _result_cap_text(n: int) -> str:
    mb = n / (1024 * 1024)
    if n <= MAX_RESULT_BYTES:
        return "%d MB" % mb
    return "%.1f MB (%d x the model solution's outputs)" % (mb, RESULT_PER_EXPECTED)


def _expanded_size(v: Any, cap: int) -> int:
    n = 0
    todo = [v]
    while todo and n <= cap:
        x = todo.pop()
        n += 1
        t = type(x)
        if t is list or t is tuple or t is set or t is frozenset:
            todo.extend(x)
        elif t is dict:
            todo.extend(x.keys())
            todo.extend(x.values())
    return n


def _compare_bound(p: Prepared) -> int:
    """Computed once per prepared instance (it walks every expected output and argument)."""
    if p.compare_bound is None:
        cap = COMPARE_FLOOR * 100
        expected = sum(_expanded_size(bare(e), cap) + _expanded_size(a, cap) for e, a in zip(p.expected, p.calls))
        p.compare_bound = max(COMPARE_FLOOR, COMPARE_PER_EXPECTED * expected)
    return p.compare_bound


def _compared_at(run: Run, p: Prepared, fn: str, i: int) -> Outcome | None:
    """Call i's value compared with the model solution's: its failure, or None."""
    n_fixed = p.n_fixed
    args = p.calls[i]
    tag, value, after = run.results[i]
    actual = not_plain(value) if tag == "o" else value
    expected = p.expected[i]
    try:
        same = bool(p.compare(expected, actual))
    except Exception:
        same = False
    if not same:
        fault = None
    # Compared by value in this process: set iteration order or a patched encoder in the
    # candidate's process cannot hide a change.
    elif p.keep_args and (not isinstance(after, tuple) or not strict_equal(args, after)):
        fault = "modified its argument, which the question forbids"
    # The value and the arguments came back in one marshal stream: an argument object that
    # is also (part of) the answer is one object here.
    elif p.new_object and (i in run.shared or (isinstance(after, tuple) and shares(value, after))):
        fault = "returned its argument object (or holds it) instead of a new one, which the question asks for"
    else:
        return None
    fixed = i < n_fixed
    label = ("fixed test %d" % (i + 1)) if fixed else ("random input %d" % (i - n_fixed + 1))
    wrong = "assertion_error" if fixed else "fuzzing_failure"
    if fault is not None:
        return Outcome(wrong, "%s: %s %s" % (label, call_text(fn, args), fault), index=None if fixed else i)
    if fixed:
        return Outcome(wrong, "%s: %s expected %s, got %s" % (label, call_text(fn, args), short(expected), short(actual)))
    return Outcome(wrong, "%s: %s: model solution gives %s, candidate gives %s" % (label, call_text(fn, args), short(expected), short(actual)), index=i)


def _shrunk(req: dict[str, Any], p: Prepared, code: str, fn: str, arity: int, budget: Budget, memory_mb: int, foreign: Foreign | None, index: int, first: Run) -> dict[str, Any] | None:
    """Random input `index`, on which the answer failed, shrunk (shrink.py): the template's
    generator and the model solution run here, under the oracle's guard; the answer runs in its
    sandbox under its own budget, on each batch of smaller inputs, smallest first."""
    if index < p.n_fixed:
        return None
    mod = load_oracle(req["oracle"], req["oracleHash"])
    generator: Callable[..., Any] | None = getattr(mod, "inputs", None)
    if not callable(generator):
        return None
    draw: Callable[..., Any] = generator
    kw = req["bindings"]

    def inputs(rng: Any) -> tuple[Any, ...]:
        made: tuple[Any, ...] = ()
        with _Guard("drawing an input to shrink"):
            made = tuple(draw(rng, **_copy(kw)))
        return made

    def solve(args: tuple[Any, ...]) -> Any:
        with _Guard("running the model solution on a shrunk input"):
            return mod.solution(*_copy(args), **_copy(kw))

    def run_batch(calls: list[tuple[Any, ...]], expected: list[Any]) -> tuple[int, str, str] | None:
        try:
            blob = marshal.dumps(calls)
        except ValueError:
            return None
        q = Prepared(calls=_copy(calls), expected=expected, n_fixed=0, compare=p.compare, keep_args=p.keep_args, new_object=p.new_object, calls_blob=blob, solution_ms=p.solution_ms)
        q.result_bytes, q.int_digits = result_limits(expected, blob, q.keep_args)
        hit: list[tuple[int, str, str]] = []

        def fails_at(run: Run, i: int) -> bool:
            if not read_result(run, i) or (run.foreign and not read_foreign_one(run, q, i)):
                return True
            o = _failure_at(run, q, fn, i, memory_mb)
            if o is None or o.category != "fuzzing_failure":
                # Another failure on a smaller input (it raised, say) is not this one: look on.
                return o is not None and o.category == "resource_exhaustion"
            tag, value, _after = run.results[i]
            hit.append((i, short(bare(expected[i])), short(not_plain(value) if tag == "o" else value)))
            return True

        run_candidate(code, fn, arity, q, budget, memory_mb, foreign, checked=foreign is None, fails_at=fails_at)
        return hit[0] if hit else None

    try:
        found = shrink_failure(inputs, int(req["seed"]), index - p.n_fixed, p.calls[index], solve, run_batch, strict_equal)
    except OracleError:
        return None
    if found is None:
        return None
    if found.steps == 0:
        # Already the smallest: both values as the first run gave them.
        tag, value, _after = first.results[index]
        found.expected, found.actual = short(bare(p.expected[index])), short(not_plain(value) if tag == "o" else value)
    return {"call": call_text(fn, found.args), "expected": found.expected, "actual": found.actual, "from": call_text(fn, p.calls[index]), "tried": found.tried, "steps": found.steps}
