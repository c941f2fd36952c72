"""One instance's cases, prepared by the trusted worker: the oracle loaded (oracle.py) under a
wall-clock guard, its fixed tests and random inputs, the model solution's answers, the comparator."""

from __future__ import annotations

import copy
import json
import marshal
import signal
import time
from dataclasses import dataclass, field
from typing import Any

from . import oracle
from .compare import Comparator, UnknownComparator, make_comparator
from .oracle import Oracle, OracleError
from .protocol import MAX_INT_DIGITS, exc_line
from .wire import WireError, calls_json

ORACLE_TIMEOUT_S = 20.0
# What an answer may send back: the outputs of every call of one instance, at most this many bytes
# on the wire, and integers of at most MAX_INT_DIGITS 15-bit digits; where the model solution's
# own outputs (trusted, computed by the worker or at import) are larger, RESULT_PER_EXPECTED times
# theirs. The answer stays bounded; a problem whose expected outputs are large can still be judged.
MAX_RESULT_BYTES = 32 * 1024 * 1024
RESULT_PER_EXPECTED = 2


class _OracleTimeout(BaseException):
    pass


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
    compare_bound: int | None = None  # how many values the comparison accepts (verdicts.py), once per instance
    result_bytes: int = MAX_RESULT_BYTES  # what the answer's results may take on the wire
    int_digits: int = MAX_INT_DIGITS  # the largest integer (15-bit digits) an answer may send
    call_limits_ms: list[float | None] | None = None  # each call's own CPU limit (reference ms), where the oracle sets one
    digest_calls: list[int] | None = None  # calls whose result the harness sends as its digest (eddy_sandbox/digest.py), where the oracle asks


def time_limit_ms(expected: Any) -> float | None:
    """An oracle's own limit for one call (`eddy_time_limit_ms` of its expected object: an
    imported EvalPlus problem times out each input on its own), in reference-machine CPU ms."""
    if getattr(type(expected), "eddy_time_limit_ms", None) is None:
        return None
    v = expected.eddy_time_limit_ms
    return float(v) if isinstance(v, (int, float)) and v > 0 else None


def digest_of(expected: Any) -> str | None:
    """The digest an oracle's expected object stands for (`eddy_digest`: an output too large to
    keep, stored as its digest at import), or None: compared by value."""
    if getattr(type(expected), "eddy_digest", None) is None:
        return None
    v = expected.eddy_digest
    return v if isinstance(v, str) else None


def bare(expected: Any) -> Any:
    """The value an expected object stands for: an oracle's own expected objects (carrying what
    its compare() needs besides the value) say so with an `eddy_value` attribute."""
    v = getattr(type(expected), "eddy_value", None)
    return expected.eddy_value if v is not None else expected


def _largest_int_digits(values: list[Any]) -> int:
    most = 0
    todo = list(values)
    while todo:
        x = todo.pop()
        t = type(x)
        if t is int:
            most = max(most, x.bit_length() // 15 + 1)
        elif t is list or t is tuple or t is set or t is frozenset:
            todo.extend(x)
        elif isinstance(x, dict):
            todo.extend(x.keys())
            todo.extend(x.values())
    return most


def result_limits(expected: list[Any], calls_blob: bytes, keep_args: bool) -> tuple[int, int]:
    """(bytes, integer digits) an answer's results may take: the defaults, or RESULT_PER_EXPECTED
    times what the model solution's outputs (and the arguments sent back with them) take."""
    values = [bare(e) for e in expected]
    size = len(calls_blob) if keep_args else 0
    for v in values:
        try:
            size += len(marshal.dumps(v))
        except ValueError:  # not plain data (a Counter): its own share is not counted
            pass
    digits = _largest_int_digits(values)
    return max(MAX_RESULT_BYTES, RESULT_PER_EXPECTED * size), max(MAX_INT_DIGITS, RESULT_PER_EXPECTED * digits)


_prepared: dict[tuple[Any, ...], Prepared] = {}


def _copy(x: Any) -> Any:
    """A deep copy of plain data by a marshal round trip (shared objects stay shared), about ten
    times faster than copy.deepcopy, which two thirds of an instance's preparation went to (issue
    #36); copy.deepcopy for anything marshal does not take."""
    try:
        return marshal.loads(marshal.dumps(x))
    except ValueError:
        return copy.deepcopy(x)


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
            a, k = _copy(args), _copy(kw)
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
        calls=_copy(calls),
        expected=expected,
        n_fixed=n_fixed,
        compare=cmp,
        keep_args=oracle.keep_arguments(mod),
        new_object=oracle.new_object(mod),
        calls_blob=calls_blob,
        solution_ms=solution_ms,
    )
    out.result_bytes, out.int_digits = result_limits(expected, calls_blob, out.keep_args)
    limits = [time_limit_ms(e) for e in expected]
    out.call_limits_ms = limits if any(x is not None for x in limits) else None
    digests = [i for i, e in enumerate(expected) if digest_of(e) is not None]
    out.digest_calls = digests or None
    if len(_prepared) > 512:
        _prepared.clear()
    _prepared[key] = out
    return out


def wire_blob(p: Prepared) -> bytes:
    if p.wire_blob is None:
        try:
            p.wire_blob = calls_json(p.calls)
        except WireError as e:
            raise OracleError("the template's calls cannot be sent to another language: %s" % e) from None
    return p.wire_blob
