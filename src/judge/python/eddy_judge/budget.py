"""A candidate's budget, in CPU time: the same answer gets the same verdict however busy the machine is.

A wall-clock deadline makes a verdict depend on load (a correct answer that needs 1.4 s of CPU
misses a 2 s deadline when it gets a third of a core). CPU time does not. The budget is

    max(template floor x host factor, SOLUTION_FACTOR x the model solution's CPU time on the instance)

where the template's `budget.time_ms` is the floor as measured on the reference machine, scaled by
how fast this machine runs a fixed Python workload (the host factor), and the model solution's
cost is measured while the worker computes the expected outputs (same machine, same inputs),
as EvalPlus scales its limit by the ground truth's time, but in CPU time.

The keeper stops a candidate at budget x (1 + MARGIN); one that finishes over budget but within
the margin is judged again, alone, before it is called resource_exhaustion. A candidate that does
not run (sleeps, blocks) is stopped once it has been neither on a CPU nor waiting for one for
BLOCKED_MS; a wall-clock backstop many times the budget catches anything else.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass

# What the calibration workload takes on one core of the reference machine (a 2-core cloud VM,
# CPython 3.11), where the templates' floors were set.
REFERENCE_MS = 5.0
SOLUTION_FACTOR = 10.0
MARGIN = 0.5
BLOCKED_MIN_MS = 1000.0
WALL_FACTOR = 10.0
WALL_EXTRA_MS = 10_000.0


def _workload() -> float:
    t = time.process_time()
    acc = 0
    d: dict[int, int] = {}
    for i in range(60000):
        acc = (acc * 31 + i) % 1000003
        d[i & 1023] = acc
    sorted(d.values())
    return (time.process_time() - t) * 1000.0


def host_factor() -> float:
    """This machine's speed relative to the reference: the best of five runs of a fixed workload
    (CPU time, so load barely moves it), on a grid of quarter powers of two so that small
    differences between measurements do not change budgets. EDDY_JUDGE_CPU_FACTOR fixes it."""
    fixed = os.environ.get("EDDY_JUDGE_CPU_FACTOR")
    if fixed:
        try:
            value = float(fixed)
            if math.isfinite(value) and value > 0:
                return value
        except ValueError:
            pass
    raw = min(_workload() for _ in range(5)) / REFERENCE_MS
    raw = min(8.0, max(0.25, raw))
    return float(2.0 ** (round(4.0 * math.log2(raw)) / 4.0))


@dataclass
class Budget:
    cpu_ms: float  # the budget
    kill_ms: float  # where the keeper stops it
    blocked_ms: float
    wall_ms: float
    floor_ms: float
    solution_ms: float

    def limits(self) -> tuple[float, float, float]:
        return (self.kill_ms, self.blocked_ms, self.wall_ms)

    def explain(self) -> str:
        base = "max(%.0f ms floor x host factor, %g x the model solution's %.1f ms)" % (self.floor_ms, SOLUTION_FACTOR, self.solution_ms)
        return base


def make_budget(floor_ms: float, factor: float, solution_ms: float, margin: float = MARGIN) -> Budget:
    cpu = max(floor_ms * factor, SOLUTION_FACTOR * solution_ms)
    kill = cpu * (1.0 + margin)
    return Budget(
        cpu_ms=cpu,
        kill_ms=kill,
        blocked_ms=max(BLOCKED_MIN_MS, cpu),
        wall_ms=WALL_FACTOR * kill + WALL_EXTRA_MS,
        floor_ms=floor_ms,
        solution_ms=solution_ms,
    )
