"""A candidate's budget, in CPU time: the same answer gets the same verdict however busy the machine is.

A wall-clock deadline makes a verdict depend on load (a correct answer that needs 1.4 s of CPU
misses a 2 s deadline when it gets a third of a core). CPU time does not. The budget is

    max(template floor x host factor, SOLUTION_FACTOR x the model solution's CPU time on the instance)

where the template's `budget.time_ms` is the floor as measured on the reference machine, scaled by
how fast this machine runs a fixed Python workload (the host factor: measured once per machine on
a quiet moment, stored in the user's cache folder and reused, never re-measured under load), and the model solution's
cost is measured while the worker computes the expected outputs (same machine, same inputs),
as EvalPlus scales its limit by the ground truth's time, but in CPU time.

The keeper stops a candidate at budget x (1 + MARGIN); one that finishes over budget but within
the margin is judged again, alone, before it is called resource_exhaustion. A candidate that does
not run (sleeps, blocks) is stopped once it has been neither on a CPU nor waiting for one for
BLOCKED_MS: no CPU used (by any of its threads or processes, exited ones included) and no thread
runnable over that window, its own state, never wall time minus a sample. A wall-clock backstop
many times the budget catches anything else.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import sys
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


def _workload() -> tuple[float, float]:
    """(CPU ms, wall ms) of one run of the fixed workload."""
    t = time.process_time()
    w = time.perf_counter()
    acc = 0
    d: dict[int, int] = {}
    for i in range(60000):
        acc = (acc * 31 + i) % 1000003
        d[i & 1023] = acc
    sorted(d.values())
    return (time.process_time() - t) * 1000.0, (time.perf_counter() - w) * 1000.0


# A run counts as quiet when it had a CPU to itself for nearly all its wall time.
QUIET_SHARE = 0.9
QUIET_RUNS = 5
MAX_RUNS = 60
CACHE_VERSION = 1


def _grid(raw: float) -> float:
    raw = min(8.0, max(0.25, raw))
    return float(2.0 ** (round(4.0 * math.log2(raw)) / 4.0))


def machine_key() -> str:
    """What makes a measurement this machine's: its id, CPU model and count, and the Python."""
    parts = [sys.version, platform.machine(), str(os.cpu_count())]
    for path in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
        try:
            with open(path) as f:
                parts.append(f.read().strip())
            break
        except OSError:
            pass
    try:
        with open("/proc/cpuinfo") as f:
            parts += sorted({ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")})
    except OSError:
        pass
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]


def cache_file() -> str:
    """Where the measured factor is kept: the user's cache folder (XDG), one entry per machine."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "eddy", "host-factor.json")


def measure() -> tuple[float, bool]:
    """(factor, quiet): the best run of the workload among those that had a CPU to themselves.
    On a busy machine few runs are quiet; then the best run of all, marked not quiet."""
    quiet: list[float] = []
    every: list[float] = []
    for _ in range(MAX_RUNS):
        cpu, wall = _workload()
        every.append(cpu)
        if wall > 0 and cpu >= QUIET_SHARE * wall:
            quiet.append(cpu)
            if len(quiet) >= QUIET_RUNS:
                break
        elif len(every) >= QUIET_RUNS and not quiet and len(every) >= MAX_RUNS // 2:
            break
    ok = len(quiet) >= QUIET_RUNS
    return _grid(min(quiet if ok else every) / REFERENCE_MS), ok


def _read_cache(path: str, key: str) -> float | None:
    try:
        with open(path) as f:
            data = json.load(f)
        entry = data.get("machines", {}).get(key) if data.get("version") == CACHE_VERSION else None
        value = float(entry["factor"]) if isinstance(entry, dict) else None
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
    return value if value is not None and math.isfinite(value) and 0.25 <= value <= 8.0 else None


def _write_cache(path: str, key: str, factor: float) -> None:
    try:
        try:
            with open(path) as f:
                data = json.load(f)
            if not isinstance(data, dict) or data.get("version") != CACHE_VERSION or not isinstance(data.get("machines"), dict):
                data = {}
        except (OSError, ValueError):
            data = {}
        data = {"version": CACHE_VERSION, "machines": dict(data.get("machines", {}))}
        data["machines"][key] = {"factor": factor, "measuredAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = "%s.%d.tmp" % (path, os.getpid())
        with open(tmp, "w") as f:
            json.dump(data, f)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home: measured again next time


def host_factor_with_source() -> tuple[float, str]:
    """This machine's speed relative to the reference, and where it came from: "env"
    (EDDY_JUDGE_CPU_FACTOR fixes it), "cache" (measured once on a quiet moment and stored in the
    user's cache folder, keyed by machine), "measured" (measured now, on a quiet moment, and
    stored) or "measured-busy" (no stored value and the machine was busy: the best run, used for
    this pool only and not stored). On a grid of quarter powers of two, so that small
    differences between measurements do not change budgets."""
    fixed = os.environ.get("EDDY_JUDGE_CPU_FACTOR")
    if fixed:
        try:
            value = float(fixed)
            if math.isfinite(value) and value > 0:
                return value, "env"
        except ValueError:
            pass
    path = cache_file()
    key = machine_key()
    cached = _read_cache(path, key)
    if cached is not None:
        return cached, "cache"
    factor, quiet = measure()
    if quiet:
        _write_cache(path, key, factor)
        return factor, "measured"
    return factor, "measured-busy"


def host_factor() -> float:
    return host_factor_with_source()[0]


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
