"""Oracle strength of one template: branch coverage of its model solution and edge-case hits.

Reads one JSON request on stdin:
  {"oracle": path, "instances": [{"bindings": {...}, "seed": "123"}], "randomInputs": K,
   "edges": ["empty", ...], "comparator": "ordered", "timeMs": 2000, "check": false}
and writes one JSON object on stdout (see measure()). Standard library only.

With "check": true it also judges, in this process, the model solution against the fixed tests
and every mutant_* against the fixed tests and the solution's outputs on the random inputs (the
oracle is trusted code: no sandbox, one process per template, hence fast enough for `npm test`).
Equality is the judge's own (eddy_judge/compare.py: make_comparator, strict_equal), so there is
one definition of a correct answer; each mutant's kill carries the verdict category the judge would
give it (a structured field: Node does not read it from the text). `eddy templates validate` judges
through the real judge pool; this is the quick form of the same check.

Branches are found in the AST of `solution` (if/elif/else, while, for, except handlers), the way
coverage.py counts them: each has two outcomes (taken / not taken; a loop entered / left) and an
outcome counts as reached when sys.settrace sees the matching line-to-line arc. Conditions inside
one line (a ternary, `and`/`or`, a comprehension's `if`) are not separate branches. The random
inputs are the judge's own (eddy_judge/oracle.py: random_inputs, one random.Random(seed) per instance).
An oracle whose solution() runs other code (an imported Turbulence template) names it with
solution_source(**params) -> (filename, source): that code's branches are measured instead.
"""

from __future__ import annotations

import ast
import copy
import json
import resource
import signal
import sys
import time
from types import FrameType
from typing import Any, Callable, cast

from eddy_sandbox.digest import as_digest

from .. import oracle
from ..categories import Category
from ..compare import make_comparator, strict_equal
from ..prepare import digest_of
from ..oracle import Oracle, OracleError


class Branch:
    """One two-way decision of the solution: a label per outcome and the arcs that prove it."""

    def __init__(self, kind: str, node: ast.stmt, span: set[int], first_taken: int, first_else: int | None) -> None:
        self.kind = kind
        self.line = node.lineno
        self.span = span  # lines of the test / loop header
        self.taken = first_taken  # first line of the body
        self.other = first_else  # first line of the else part, or None: "anything after"

    def outcomes(self, arcs: set[tuple[int, int]]) -> tuple[bool, bool]:
        taken = any((a, self.taken) in arcs for a in self.span)
        if self.other is not None:
            other = any((a, self.other) in arcs for a in self.span)
        else:
            other = any(a in self.span and b not in self.span and b != self.taken for (a, b) in arcs)
        return taken, other

    def labels(self) -> tuple[str, str]:
        if self.kind == "for":
            return ("line %d for: loop entered" % self.line, "line %d for: loop left" % self.line)
        return ("line %d %s: true" % (self.line, self.kind), "line %d %s: false" % (self.line, self.kind))


def _end(node: ast.expr | ast.stmt) -> int:
    # Always set by ast.parse; typed optional for nodes built by hand.
    return node.end_lineno or node.lineno


def find_solution(tree: ast.Module) -> ast.FunctionDef:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "solution":
            return node
    raise ValueError("the oracle defines no top-level solution()")


def branch_points(fn: ast.AST) -> tuple[list[Branch], list[tuple[str, int]], set[int], list[str]]:
    """Every measurable branch of `fn` (and functions nested in it), plus notes on unmeasurable ones."""
    branches: list[Branch] = []
    handlers: list[tuple[str, int]] = []
    notes: list[str] = []
    for node in ast.walk(fn):
        if isinstance(node, (ast.If, ast.While)):
            span = set(range(node.test.lineno, _end(node.test) + 1))
            kind = "if" if isinstance(node, ast.If) else "while"
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            span = set(range(node.lineno, max(_end(node.iter), _end(node.target)) + 1))
            kind = "for"
        elif isinstance(node, ast.Try):
            for h in node.handlers:
                handlers.append(("line %d except: handler run" % h.lineno, h.body[0].lineno))
            continue
        else:
            continue
        first = node.body[0].lineno
        other = node.orelse[0].lineno if node.orelse else None
        if first in span or (other is not None and other in span):
            notes.append("line %d: a branch body on the same line as its test is not measured; put it on its own line" % node.lineno)
            continue
        branches.append(Branch(kind, node, span, first, other))
    statements = {n.lineno for n in ast.walk(fn) if isinstance(n, ast.stmt) and n is not fn}
    return branches, handlers, statements, notes


class Tracer:
    """Line arcs of every frame whose code lies inside the solution's lines in the oracle file."""

    def __init__(self, filename: str, lo: int, hi: int) -> None:
        self.filename, self.lo, self.hi = filename, lo, hi
        self.arcs: set[tuple[int, int]] = set()
        self.lines: set[int] = set()
        # Once every branch outcome and statement has been seen, tracing further calls adds
        # nothing: they run untraced (a traced prime sieve is a hundred times slower).
        self.saturated = False
        self._seen = 0

    def update(self, branches: list[Branch], handlers: list[tuple[str, int]], statements: set[int]) -> None:
        if self.saturated or len(self.arcs) + len(self.lines) == self._seen:
            return
        self._seen = len(self.arcs) + len(self.lines)
        if statements - self.lines:
            return
        if any(first not in self.lines for _, first in handlers):
            return
        self.saturated = all(all(b.outcomes(self.arcs)) for b in branches)

    def __call__(self, frame: FrameType, event: str, arg: Any) -> Any:
        code = frame.f_code
        if code.co_filename != self.filename or not (self.lo <= code.co_firstlineno <= self.hi):
            return None
        arcs, lines = self.arcs, self.lines
        state = [-1, False]  # last line; an exception is propagating

        def local(frame: FrameType, event: str, arg: Any) -> Any:
            if event == "line":
                ln = frame.f_lineno
                arcs.add((state[0], ln))
                lines.add(ln)
                state[0], state[1] = ln, False
            elif event == "return":
                if not state[1]:
                    arcs.add((state[0], -1))
            elif event == "exception":
                state[1] = True
            return local

        return local


def coverage(branches: list[Branch], handlers: list[tuple[str, int]], statements: set[int], tracer: Tracer) -> dict[str, Any]:
    total = 2 * len(branches) + len(handlers)
    missed = []
    for b in branches:
        for hit, label in zip(b.outcomes(tracer.arcs), b.labels()):
            if not hit:
                missed.append(label)
    for label, first in handlers:
        if first not in tracer.lines:
            missed.append(label)
    covered = total - len(missed)
    return {
        "branches": total,
        "covered": covered,
        "coverage": 1.0 if total == 0 else covered / total,
        "missed": missed,
        "lines": len(statements),
        "linesRun": len(statements & tracer.lines),
    }


# One instance's cases: its parameters, (args, expected) per fixed test and (args, the model
# solution's answer or _RAISED) per random input.
Case = tuple[dict[str, Any], list[tuple[tuple[Any, ...], Any]], list[tuple[tuple[Any, ...], Any]]]


class _Timeout(Exception):
    pass


class Failed(Exception):
    """A call that does not pass: raised, too slow, changed its arguments or a wrong result;
    `category` is the verdict the judge gives it."""

    def __init__(self, text: str, category: Category = "runtime_error") -> None:
        super().__init__(text)
        self.category: Category = category


_ATOMS = (int, float, str, bool, bytes, type(None), complex)


def fresh(v: Any) -> Any:
    """A deep copy of plain data (what oracles pass), much faster than copy.deepcopy on big inputs."""
    t = type(v)
    if t in _ATOMS:
        return v
    if t is list:
        return [x if type(x) in _ATOMS else fresh(x) for x in v]
    if t is tuple:
        return tuple(x if type(x) in _ATOMS else fresh(x) for x in v)
    if t is frozenset:
        return v
    if t is set:
        # Elements are hashable, and hashable plain data (numbers, strings, tuples of them) is immutable.
        return set(v)
    if t is dict:
        return {k: fresh(x) for k, x in v.items()}
    return copy.deepcopy(v)


def call(fn: Callable[..., Any], args: tuple[Any, ...], kw: dict[str, Any], time_s: float, keep: bool) -> Any:
    """fn(*args, **kw) on copies, within time_s; Failed when it raises, times out or (keep) mutates."""
    mine = fresh(args)
    signal.setitimer(signal.ITIMER_REAL, time_s)
    try:
        out = fn(*mine, **fresh(kw))
    except _Timeout:
        raise Failed("time limit of %s s exceeded" % time_s, "resource_exhaustion")
    except Exception as e:
        raise Failed("%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    if keep and not strict_equal(args, mine):
        raise Failed("modified its arguments")
    return out


def check(mod: Oracle, req: dict[str, Any], cases: list[Case]) -> dict[str, Any]:
    """Solution failures per instance, and per mutant the first instance that kills it."""
    time_s = max(int(req.get("timeMs", 2000)), 1) / 1000.0
    keep = oracle.keep_arguments(mod)
    # "mutants": false: only the model solution is checked (a run's validation before judging, SPEC §2).
    names = oracle.mutant_names(mod) if req.get("mutants", True) else []
    alive: dict[str, dict[str, Any] | None] = {n: None for n in names}
    failures = []
    for index, (kw, fixed, rnd) in enumerate(cases):
        raw_cmp = make_comparator(mod, req.get("comparator") or "ordered", kw)

        def cmp(expected, actual, raw_cmp=raw_cmp):
            # A comparison that raises (an odd answer) is a mismatch, as in the judge.
            try:
                if digest_of(expected) is not None:
                    # An expected output kept as its digest: compared with the answer's digest, as in the judge.
                    # The model solution of an imported problem answers such an input with the expected
                    # object itself (its own code runs only in the sandbox): it stands for its digest.
                    own = digest_of(actual)
                    actual = own if own is not None else as_digest(actual)
                return bool(raw_cmp(expected, actual))
            except Exception:
                return False

        for k, (args, expected) in enumerate(fixed):
            try:
                if not cmp(expected, call(mod.solution, args, kw, time_s, keep)):
                    raise Failed("wrong result")
            except Failed as e:
                failures.append({"index": index, "detail": "fixed test %d: %s" % (k + 1, e)})
                break
        for name in [n for n, v in alive.items() if v is None]:
            fn = getattr(mod, name)
            try:
                for k, (args, expected) in enumerate(fixed):
                    if not cmp(expected, call(fn, args, kw, time_s, keep)):
                        raise Failed("fixed test %d" % (k + 1), "assertion_error")
                for args, expected in rnd:
                    if expected is _RAISED:
                        continue
                    if not cmp(expected, call(fn, args, kw, time_s, keep)):
                        raise Failed("random input", "fuzzing_failure")
            except Failed as e:
                alive[name] = {"index": index, "by": str(e), "category": e.category}
    mutants = [{"name": n, "killed": v is not None, **({"killedOn": v["index"], "by": v["by"], "category": v["category"]} if v else {})} for n, v in alive.items()]
    return {"solutionFailures": failures, "mutants": mutants}


_RAISED = object()


def measure(req: dict[str, Any]) -> dict[str, Any]:
    path = req["oracle"]
    mod = oracle.load(path, "eddy_strength_oracle")
    source_of: Any = getattr(mod, "solution_source", None)
    if callable(source_of) and req["instances"]:
        # solution() runs other code (an imported template instantiates and executes its source):
        # the oracle names that code, and its branches are the ones measured, in every frame compiled from it.
        filename, source = cast("tuple[str, str]", source_of(**copy.deepcopy(req["instances"][0]["bindings"])))
        branches, handlers, statements, notes = branch_points(ast.parse(source, filename=filename))
        lo, hi = 0, sys.maxsize
    else:
        with open(path, encoding="utf-8") as f:
            fn = find_solution(ast.parse(f.read(), filename=path))
        branches, handlers, statements, notes = branch_points(fn)
        filename, lo, hi = mod.solution.__code__.co_filename, fn.lineno, _end(fn)
    edge_fn = getattr(mod, "edge_cases", None)
    edges = list(req.get("edges") or [])
    fixed_tracer = Tracer(filename, lo, hi)
    random_tracer = Tracer(filename, lo, hi)
    random_hits = {name: 0 for name in edges}
    fixed_hits = {name: 0 for name in edges}
    unknown = set()
    counts = {"fixed": 0, "random": 0, "randomWithEdge": 0, "solutionErrors": 0}
    # "trace": false skips coverage (a run's validation needs only the verdicts).
    tracing = req.get("trace", True) is not False

    def run(tracer: Tracer, args: tuple[Any, ...], kw: dict[str, Any]) -> Any:
        traced = tracing and not tracer.saturated
        if traced:
            sys.settrace(tracer)
        try:
            # No copy: the model solution must not modify its arguments (templates/README.md);
            # check() calls it again on copies and, under KEEP_ARGUMENTS, catches one that does.
            return mod.solution(*args, **fresh(kw))
        except _Timeout:
            raise
        except Exception:
            counts["solutionErrors"] += 1
            return _RAISED
        finally:
            if traced:
                sys.settrace(None)
                tracer.update(branches, handlers, statements)

    def edges_of(args: tuple[Any, ...], kw: dict[str, Any]) -> list[str]:
        if edge_fn is None:
            return []
        names = list(edge_fn(fresh(args), **fresh(kw)) or [])
        for n in names:
            if n not in random_hits:
                unknown.add(str(n))
        return [n for n in dict.fromkeys(names) if n in random_hits]

    cases = []
    for inst in req["instances"]:
        kw = inst["bindings"]
        fixed, rnd = [], []
        for args, expected in oracle.fixed_tests(mod, kw):
            fixed.append((args, expected))
            counts["fixed"] += 1
            run(fixed_tracer, args, kw)
            for n in edges_of(args, kw):
                fixed_hits[n] += 1
        for args in oracle.random_inputs(mod, kw, inst["seed"], req["randomInputs"]):
            counts["random"] += 1
            rnd.append((args, run(random_tracer, args, kw)))
            hit = edges_of(args, kw)
            if hit:
                counts["randomWithEdge"] += 1
            for n in hit:
                random_hits[n] += 1

        cases.append((kw, fixed, rnd))

    n_random = max(counts["random"], 1)
    out = {
        "fixed": coverage(branches, handlers, statements, fixed_tracer),
        "random": coverage(branches, handlers, statements, random_tracer),
        "counts": counts,
        "edges": {
            "names": edges,
            "measured": edge_fn is not None,
            "randomShare": {n: random_hits[n] / n_random for n in edges},
            "fixedHits": fixed_hits,
            "randomWithAnyEdge": counts["randomWithEdge"] / n_random,
            "unknown": sorted(unknown),
        },
        "notes": notes,
    }
    if req.get("check"):
        out["check"] = check(mod, req, cases)
    return out


def main() -> None:
    req = json.load(sys.stdin)

    def on_alarm(signum: int, frame: object) -> None:
        raise _Timeout()

    signal.signal(signal.SIGALRM, on_alarm)
    # A runaway mutant must not take the machine's memory; the whole run's time is bounded by the caller.
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = 2 << 30
        if hard == resource.RLIM_INFINITY or hard > limit:
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):
        pass
    try:
        out = measure(req)
        out["cpuS"] = round(time.process_time(), 3)
    except _Timeout:
        out = {"error": "the model solution or the oracle exceeded the time limit"}
    except OracleError as e:
        out = {"error": str(e)}
    except BaseException as e:  # the oracle is trusted but may be broken: report, do not crash
        sys.settrace(None)
        line = str(e).splitlines()[0] if str(e) else ""
        out = {"error": "%s: %s" % (type(e).__name__, line) if line else type(e).__name__}
    sys.stdout.write(json.dumps(out))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
