import { pyString } from "../turbulence/oracleSource.js";
import type { HumanEvalProblem } from "./problems.js";

/** One generic wrong answer: a body that needs nothing from the problem. */
export interface GenericMutant {
    name: string;
    body: string;
    how: string;
}

/** Wrong answers tried on every problem; those the problem's own tests do not reject are left out. */
export function genericMutants(arity: number): GenericMutant[] {
    return [
        { name: "mutant_returns_none", body: "return None", how: "returns None" },
        { name: "mutant_raises", body: "raise ValueError('not implemented')", how: "raises" },
        { name: "mutant_returns_first_argument", body: arity > 0 ? "return a0" : "return None", how: "returns its first argument" },
        { name: "mutant_returns_zero", body: "return 0", how: "returns 0" },
        { name: "mutant_returns_empty_list", body: "return []", how: "returns []" }
    ];
}

/** The positional argument names every oracle function uses (never `task_id`, the parameter). */
function argNames(arity: number): string[] {
    return Array.from({ length: arity }, (_, i) => `a${i}`);
}

// The oracle's shared part: check() replayed against one answer, and EvalPlus's output comparison.
// Self-contained Python; every HumanEval oracle carries the same text.
const HELPERS = `
class _CheckCall:
    """Expected value of one call that check(candidate) makes: the answer is judged by check's own assertions."""

    def __init__(self, index, value):
        self.index = index
        self.value = value

    def __repr__(self):
        return repr(self.value)


class _Differential:
    """Expected value of one base_input/plus_input: compared the way EvalPlus compares outputs."""

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return repr(self.value)


def _canonical():
    namespace = {"__name__": "humaneval_solution"}
    exec(compile(_PROMPT + _CANONICAL, "solution.py", "exec"), namespace)
    return namespace[ENTRY_POINT]


def _run_check(candidate):
    namespace = {"__name__": "humaneval_test"}
    exec(compile(_TEST, "test.py", "exec"), namespace)
    namespace["check"](candidate)


def _positional(fn, args, kwargs):
    # A keyword argument check() passes becomes positional: eddy calls answers positionally.
    bound = inspect.signature(fn).bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.args) + tuple(bound.kwargs.values())


_recorded = None


def _record():
    """The calls check(candidate) makes on the canonical solution, with their results."""
    global _recorded
    if _recorded is None:
        fn = _canonical()
        calls = []

        def recording(*args, **kwargs):
            args = _positional(fn, args, kwargs)
            before = copy.deepcopy(args)
            result = fn(*args)
            calls.append((before, copy.deepcopy(result)))
            return result

        _run_check(recording)
        _recorded = calls
    return _recorded


def _check_accepts(index, actual):
    """check() passes when call index answers actual and every other call answers as the canonical solution did."""
    calls = _record()
    fn = _canonical()
    seen = [0]

    def replay(*args, **kwargs):
        k = seen[0]
        seen[0] += 1
        if k == index:
            return actual
        if k < len(calls):
            return copy.deepcopy(calls[k][1])
        return fn(*_positional(fn, args, kwargs))

    try:
        _run_check(replay)
    except Exception:
        return False
    return seen[0] > index


def _is_floats(x):
    if isinstance(x, float):
        return True
    if isinstance(x, (list, tuple)):
        return all(isinstance(i, float) for i in x)
    return False


def _allclose(out, exp, atol):
    # numpy.testing.assert_allclose(out, exp, atol=atol): rtol 1e-7, NaN equals NaN, same shape.
    if isinstance(exp, (list, tuple)):
        if not isinstance(out, (list, tuple)) or len(out) != len(exp):
            return False
        return all(_allclose(o, e, atol) for o, e in zip(out, exp))
    if isinstance(out, (list, tuple)) or isinstance(exp, str) or isinstance(out, str):
        return False
    try:
        o, e = float(out), float(exp)
    except (TypeError, ValueError):
        return False
    if math.isnan(o) or math.isnan(e):
        return math.isnan(o) and math.isnan(e)
    return abs(o - e) <= atol + 1e-7 * abs(e)


def _evalplus_same(exp, out):
    """EvalPlus's rule: out == exp, else (with atol, 1e-6 for float answers) numerically close."""
    try:
        if out == exp:
            return True
    except Exception:
        return False
    atol = _ATOL
    if atol == 0 and _is_floats(exp):
        atol = 1e-6
    return atol != 0 and _allclose(out, exp, atol)


def compare(expected, actual, **params):
    if isinstance(expected, _CheckCall):
        return _check_accepts(expected.index, actual)
    if isinstance(expected, _Differential):
        return _evalplus_same(expected.value, actual)
    return _evalplus_same(expected, actual)


def tests(*, task_id):
    for k, (args, result) in enumerate(_record()):
        yield args, _CheckCall(k, result)
    fn = _canonical()
    for args in _INPUTS:
        yield tuple(args), _Differential(fn(*copy.deepcopy(args)))


def inputs(rng, *, task_id):
    pool = [tuple(a) for a in _INPUTS] or [args for args, _ in _record()]
    return copy.deepcopy(rng.choice(pool))
`;

/** The eddy oracle (oracles/<id>.py) of one imported HumanEval-format problem. */
export function oracleSource(p: HumanEvalProblem, arity: number, mutants: GenericMutant[]): string {
    const args = argNames(arity);
    const sig = [...args, "*", "task_id"].join(", ");
    const parts = [
        [
            `"""Imported from ${p.task_id} by 'eddy import humaneval'.`,
            ``,
            `solution() is the canonical solution. tests() keeps every call check(candidate) makes as a fixed`,
            `test judged by check's own assertions (an answer passes a call when check() passes with that`,
            `answer in its place), then each base_input/plus_input as a fixed differential test compared`,
            `as EvalPlus compares (==, else within atol; 1e-6 for float answers).`,
            `"""`,
            `import copy`,
            `import inspect`,
            `import json`,
            `import math`,
            ``,
            `TASK_ID = ${pyString(p.task_id)}`,
            `ENTRY_POINT = ${pyString(p.entry_point)}`,
            `_PROMPT = ${pyString(p.prompt)}`,
            `_CANONICAL = ${pyString(p.canonical_solution)}`,
            `_TEST = ${pyString(p.test)}`,
            `# The problem's line as published, read with Python's json: big integers stay exact.`,
            `_PROBLEM = json.loads(${pyString(p.line)})`,
            `_INPUTS = (_PROBLEM.get("base_input") or []) + (_PROBLEM.get("plus_input") or [])`,
            `_ATOL = ${Number(p.atol ?? 0)}`,
            ``
        ].join("\n"),
        HELPERS.trim() + "\n",
        [
            `def solution(${sig}):`,
            `    _eddy_namespace = {"__name__": "humaneval_solution"}`,
            `    exec(compile(${pyString(p.prompt + p.canonical_solution)}, "solution.py", "exec"), _eddy_namespace)`,
            `    return _eddy_namespace[${pyString(p.entry_point)}](${args.join(", ")})`,
            ``
        ].join("\n"),
        ...mutants.map((m) => [`def ${m.name}(${sig}):`, `    ${m.body}`, ""].join("\n"))
    ];
    return parts.join("\n\n");
}
