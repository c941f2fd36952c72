"""Code that is not eddy's own, run on given inputs for its outputs as plain data, in the candidates'
sandbox (issue #43: an imported benchmark's canonical solutions are untrusted input too).

`run_outputs` judges nothing: it runs `code` as the judge runs an answer (candidate.py: the same
bubblewrap world, keepers, rlimits, seccomp allow-list and in-process guard; CPU, blocked and
wall-clock limits enforced by the keeper), calls `fn` on each call's arguments, and hands back what
came back through the answer's result channel as the worker reads an answer's results: every
frame authenticated and read by the one total, bounded reader of untrusted bytes (protocol.py), so
each result is a plain value, a stand-in for one that is not (`o`: its repr, or a standard-library
container's content), or the call's error. Nothing the code returns is unpickled, unmarshalled or
executed here. Used by 'eddy import humaneval|mbpp' (src/import/humaneval/expected.py).
"""

from __future__ import annotations

import marshal
import os
import signal
from dataclasses import dataclass, field
from typing import Any, Callable

from .budget import BLOCKED_MIN_MS, WALL_EXTRA_MS, WALL_FACTOR, Budget
from .candidate import Run, read_result, read_results, run_candidate, zygote
from .prepare import Prepared


@dataclass
class Outputs:
    """What one run gave back, in call order, as far as it went."""

    # One entry per call that came back, in order: ("r", value), ("o", what was sent for a value
    # that is not plain data: compare.not_plain reads it) or ("e", "resource" | "runtime", text).
    results: list[tuple[Any, ...]] = field(default_factory=list)
    # The code failed before its first call: (kind, text). Also the static check's refusal.
    load: tuple[str, str] | None = None
    # Why the run ended before every call came back, where no call's error says it (a limit, the
    # result channel, the sandbox); None when every call came back or a call's error ended it.
    stopped: str | None = None
    # Which limit stopped it: "cpu", "blocked", "wall", or "size" (its outputs over `result_bytes`).
    limit: str | None = None
    # The CPU time the keeper measured (ms), where it reported it.
    cpu_ms: float | None = None
    # Each call's CPU time as the answer's harness measured it (ms), when the run finished.
    call_ms: list[float] | None = None
    # Whether the code loaded (its module ran to the end) before the run ended.
    loaded: bool = False
    # Whether the run was in bubblewrap's sandbox (False: the no-namespace fallback).
    sandboxed: bool = True


def _status_text(status: int | None) -> str:
    if status is None:
        return "ended without a status"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            return "killed by %s" % signal.Signals(sig).name
        except ValueError:
            return "killed by signal %d" % sig
    return "exited with status %d" % os.WEXITSTATUS(status)


def sandboxed() -> bool:
    """Whether this process's candidates run in bubblewrap's sandbox (starts the zygote)."""
    return zygote().mode == "bwrap"


def run_outputs(
    code: str,
    fn: str,
    arity: int,
    calls: list[tuple[Any, ...]],
    cpu_ms: float,
    memory_mb: int,
    result_bytes: int,
    int_digits: int,
    stop_at: Callable[[int, tuple[Any, ...]], bool] | None = None,
    blocked_ms: float | None = None,
) -> Outputs:
    """Run `code` in a sandbox and call `fn` on each of `calls` (argument tuples of plain data), one
    after another in one process, as an answer's calls run; stop at the first call whose result
    `stop_at(i, result)` refuses (default: one that raised or is not plain data). The whole run
    may use `cpu_ms` of CPU time on this machine, be blocked (asleep, waiting) for `blocked_ms`
    (default: max(1 s, min(cpu_ms, 10 s))), and hand back `result_bytes` of frames at most, each
    integer at most `int_digits` 15-bit digits; memory is `memory_mb` of address space."""
    outs = Outputs(sandboxed=sandboxed())
    blob = marshal.dumps(calls)
    p = Prepared(
        calls=calls,
        expected=[None] * len(calls),
        n_fixed=len(calls),
        compare=lambda e, a: True,
        keep_args=False,
        new_object=False,
        calls_blob=blob,
        solution_ms=0.0,
        result_bytes=result_bytes,
        int_digits=int_digits,
    )
    blocked = blocked_ms if blocked_ms is not None else max(BLOCKED_MIN_MS, min(cpu_ms, 10_000.0))
    budget = Budget(cpu_ms=cpu_ms, kill_ms=cpu_ms, blocked_ms=blocked, wall_ms=WALL_FACTOR * cpu_ms + WALL_EXTRA_MS, floor_ms=cpu_ms, solution_ms=0.0)
    refuse = stop_at or (lambda i, r: r[0] != "r")

    def fails_at(run: Run, i: int) -> bool:
        if not read_result(run, i):
            return True
        r = run.results.get(i)
        if not isinstance(r, tuple):
            return True
        tag, a, b = r
        return refuse(i, ("e", a, b) if tag == "e" else (tag, a))

    run = run_candidate(code, fn, arity, p, budget, memory_mb, fails_at=fails_at)
    if run.pre is None and run.tamper is None and not run.too_large:
        read_results(run)
    for i in range(len(calls)):
        r = run.results.get(i)
        if not isinstance(r, tuple):
            break
        tag, value, _after = r
        outs.results.append(("e", value, _after) if tag == "e" else (tag, value))
        if refuse(i, outs.results[-1]):
            break
    if run.usage is not None:
        outs.cpu_ms = run.usage.cpu_ms
    outs.call_ms = run.call_ms
    outs.loaded = run.loaded
    if run.pre is not None:
        outs.load = ("static", "%s: %s" % run.pre)
        return outs
    if run.tamper is not None:
        outs.stopped = run.tamper
        return outs
    if run.load is not None:
        outs.load = run.load
        return outs
    complete = len(outs.results) == len(calls) and run.done
    if complete or (outs.results and refuse(len(outs.results) - 1, outs.results[-1])):
        return outs
    u = run.usage
    if run.too_large:
        outs.limit = "size"
        outs.stopped = "its results took more than %d MB" % (result_bytes // (1024 * 1024))
    elif run.stalled:
        outs.limit = "wall"
        outs.stopped = "the sandbox did not finish within the wall-clock backstop of %.0f s" % (budget.wall_ms / 1000.0)
    elif u is not None and u.limit == "cpu":
        outs.limit = "cpu"
        outs.stopped = "stopped at its CPU time limit: %.0f ms of CPU time, limit %.0f ms" % (u.cpu_ms, cpu_ms)
    elif u is not None and u.limit == "blocked":
        outs.limit = "blocked"
        outs.stopped = "stopped while sleeping or blocked: %.0f ms neither running nor waiting for a CPU (limit %.0f ms), after %.0f ms of CPU time" % (u.blocked_ms, blocked, u.cpu_ms)
    elif u is not None and u.limit is not None:
        outs.limit = "wall"
        outs.stopped = "stopped at the wall-clock backstop of %.0f s, after %.0f ms of CPU time" % (budget.wall_ms / 1000.0, u.cpu_ms)
    elif run.broken is not None:
        outs.stopped = "the result channel broke: %s" % run.broken
    elif run.setup is not None and not run.ready:
        outs.stopped = "the sandbox failed: %s" % run.setup
    else:
        tail = run.captured.decode("utf-8", "replace").strip().splitlines()[-1:] if run.captured else []
        outs.stopped = "its process %s%s" % (_status_text(run.status), ("; " + tail[0][:200]) if tail else "")
    return outs
