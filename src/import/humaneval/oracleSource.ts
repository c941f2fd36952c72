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

/** Where the expected outputs of template `id` are kept, beside its oracle. */
export function expectedFileName(id: string): string {
    return `${id}.expected.pkl`;
}

// The oracle's shared part. Self-contained Python; every imported oracle carries the same text.
// EvalPlus's evaluation (evalplus/eval/__init__.py, unsafe_execute) is reproduced in _evalplus_same:
// the same program order, the same comparison, the same special oracles.
const HELPERS = `
_data = None


def _expected():
    """The expected outputs computed at import (never recomputed here), checked against the hash
    this file carries: the oracle's hash, recorded with every run, covers them."""
    global _data
    if _data is None:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), _EXPECTED_FILE)
        with open(path, "rb") as f:
            blob = f.read()
        if hashlib.sha256(blob).hexdigest() != _EXPECTED_SHA256:
            raise RuntimeError("%s does not match this oracle (import the problems again)" % _EXPECTED_FILE)
        _data = pickle.loads(blob)
    return _data


class _Expected:
    """Expected answer of one base_input/plus_input, with what EvalPlus's check of it needs."""

    def __init__(self, group, index, args, value, atol_before, atol, limit_ms=None, digest=None):
        self.group = group
        self.index = index
        self.args = args
        self.value = value
        self.atol_before = atol_before
        self.atol = atol
        self.limit_ms = limit_ms
        self.digest = digest

    @property
    def eddy_value(self):
        # What the judge bounds an answer's results by (prepare.py's result_limits).
        return self.digest if self.digest is not None else self.value

    @property
    def eddy_digest(self):
        # An output too large to keep, stored as its digest (eddy_judge/digest.py): the answer's
        # harness sends the digest of its own result for this input instead of the result.
        return self.digest

    @property
    def eddy_time_limit_ms(self):
        # EvalPlus times out each input on its own: max(4 s, 4 x the canonical solution's time on
        # it), in reference-machine CPU ms (the judge scales it by its host factor).
        return self.limit_ms

    def __repr__(self):
        if self.digest is not None:
            return "<an output compared by its digest, %s>" % self.digest
        return repr(self.value)


class _CheckCall:
    """Expected value of one call check(candidate) makes: the answer is judged by check's own assertions."""

    def __init__(self, index, value):
        self.index = index
        self.value = value

    @property
    def eddy_value(self):
        return self.value

    def __repr__(self):
        return repr(self.value)


def _poly(xs, x):
    # evalplus/eval/_special_oracle.py (HumanEval/32's find_zero is judged by the polynomial's value).
    return sum([coeff * math.pow(x, i) for i, coeff in enumerate(xs)])


def _surface_Area(base_edge, height):
    slant_height = math.sqrt((base_edge / 2) ** 2 + height**2)
    return round(base_edge**2 + 4 * (base_edge * slant_height) / 2)


def _digit_distance_nums(num1, num2):
    a, b = str(num1), str(num2)
    n = max(len(a), len(b))
    a, b = a.zfill(n), b.zfill(n)
    return sum(abs(int(x) - int(y)) for x, y in zip(a, b))


_MBPP_OUTPUT_SET_EQ_TASKS = ["similar_elements", "find_char_long", "common_in_nested_lists", "extract_singly", "larg_nnum", "intersection_array", "find_dissimilar", "Diff"]
_MBPP_OUTPUT_NOT_NONE_TASKS = ["check_str", "text_match_three", "text_starta_endb"]


def _is_floats(x):
    if isinstance(x, float):
        return True
    if isinstance(x, (list, tuple)) and x:
        return all(isinstance(i, float) for i in x)
    return False


def _allclose(out, exp, atol):
    """np.allclose(out, exp, rtol=1e-07, atol=atol), as EvalPlus calls it."""
    try:
        import numpy as np
    except ImportError:
        return _allclose_plain(out, exp, atol)
    try:
        return bool(np.allclose(out, exp, rtol=1e-07, atol=atol))
    except BaseException:
        return False


def _allclose_plain(out, exp, atol):
    # Without numpy: element-wise, same shape, NaN equal to nothing, an infinity only to itself.
    if isinstance(exp, (list, tuple)) or isinstance(out, (list, tuple)):
        if not isinstance(exp, (list, tuple)) or not isinstance(out, (list, tuple)) or len(out) != len(exp):
            return False
        return all(_allclose_plain(o, e, atol) for o, e in zip(out, exp))
    if isinstance(out, str) or isinstance(exp, str):
        return False
    try:
        o, e = float(out), float(exp)
    except (TypeError, ValueError, OverflowError):
        return False
    if math.isinf(o) or math.isinf(e):
        return o == e
    return abs(o - e) <= atol + 1e-7 * abs(e)


def _evalplus_same(e, out):
    """unsafe_execute's check of one output: exact, else (atol, 1e-6 once an answer is a float)
    the same type and length and np.allclose; MBPP+'s and HumanEval+'s special oracles first."""
    exp, atol, inp = e.value, e.atol_before, e.args
    if e.digest is not None:
        # Only an output that == alone compares (no float, no tolerance, no special oracle) is
        # stored as a digest: the answer's harness sent the digest of its result, or a text
        # saying it has none (not plain data), which equals no digest.
        return type(out) is str and out == e.digest
    try:
        # The standard library's containers (a Counter, a deque, ...) reach the oracle rebuilt
        # whole, so == is Python's own, as in EvalPlus's process; any other object that is not
        # plain data arrives as its repr (an Opaque), equal to nothing.
        exact_match = out == exp
        if DATASET == "mbpp":
            if ENTRY_POINT == "are_equivalent":
                exact_match = exact_match or True
            elif ENTRY_POINT == "sum_div":
                exact_match = exact_match or out == 0
            elif ENTRY_POINT == "surface_Area":
                exact_match = exact_match or abs(out - _surface_Area(*inp)) <= atol
            elif ENTRY_POINT == "digit_distance_nums":
                exact_match = exact_match or out == _digit_distance_nums(*inp)
            elif ENTRY_POINT in _MBPP_OUTPUT_SET_EQ_TASKS:
                exact_match = set(out) == set(exp)
            elif ENTRY_POINT in _MBPP_OUTPUT_NOT_NONE_TASKS:
                if isinstance(out, bool):
                    exact_match = out == exp
                else:
                    exact_match = exp == (out is not None)
        if DATASET == "humaneval" and ENTRY_POINT == "find_zero":
            return bool(abs(_poly(*inp, out)) <= atol)
        atol = e.atol
        if not exact_match and atol != 0:
            if type(out) != type(exp):
                return False
            if isinstance(exp, (list, tuple)) and len(out) != len(exp):
                return False
            return _allclose(out, exp, atol)
        return bool(exact_match)
    except BaseException:
        return False


def _canonical():
    namespace = {"__name__": "__main__"}
    exec(compile(_PROMPT + _CANONICAL, "solution.py", "exec"), namespace)
    return namespace


def _run_check(candidate):
    # HumanEval's program: prompt, solution and test in one namespace (the tests may call helpers
    # the prompt defines, or the function by its own name), the entry point bound as candidate.
    namespace = _canonical()
    namespace[ENTRY_POINT] = candidate
    exec(compile(_TEST, "test.py", "exec"), namespace)
    namespace["check"](candidate)


def _positional(fn, args, kwargs):
    bound = inspect.signature(fn).bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.args) + tuple(bound.kwargs.values())


def _check_accepts(index, actual):
    """check() passes when call index answers actual and every other call answers as the canonical solution did."""
    calls = _expected()["check_calls"]
    fn = _canonical()[ENTRY_POINT]
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
    except BaseException:
        return False
    return seen[0] > index


def _first():
    d = _expected()
    if "check_calls" in d:
        return None
    g = "base" if d["base_input"] else "plus"
    return _Expected(g, 0, d[g + "_input"][0], None, d[g + "_atol"][0][0], d[g + "_atol"][0][1])


def compare(expected, actual, **params):
    if isinstance(expected, _CheckCall):
        return _check_accepts(expected.index, actual)
    if isinstance(expected, _Expected):
        return _evalplus_same(expected, actual)
    # The one random input repeats the first test input (inputs() below): judged as that input is.
    first = _first()
    if first is None:
        # check()'s first call: judged by check's own assertions, as that fixed test is.
        return _check_accepts(0, actual)
    first.value = expected
    return _evalplus_same(first, actual)


def tests(*, task_id):
    d = _expected()
    if "check_calls" in d:
        for k, (args, result) in enumerate(d["check_calls"]):
            yield tuple(copy.deepcopy(args)), _CheckCall(k, result)
        return
    # Fresh copies each time: a solution that changes its arguments must not change the stored inputs.
    for g in ("base", "plus"):
        limits = d.get(g + "_limit_ms") or [None] * len(d[g])
        digests = d.get(g + "_digest") or [None] * len(d[g])
        for k, (args, value, atols, limit, digest) in enumerate(zip(d[g + "_input"], d[g], d[g + "_atol"], limits, digests)):
            yield tuple(copy.deepcopy(args)), _Expected(g, k, copy.deepcopy(args), value, atols[0], atols[1], limit, digest)


_answers = None


def _key(args):
    return hashlib.sha256(repr(tuple(args)).encode("utf-8", "surrogatepass")).digest()


def _stored_answer(args):
    """(the stored answer,) for a test input: in the oracle, the model solution answers from the
    import's outputs (a run's one 'random' input, the judge's checks of the oracle) instead of
    computing them again; None for an input the import did not see."""
    global _answers
    try:
        if _answers is None:
            d = _expected()
            if "check_calls" in d:
                pairs = d["check_calls"]
            else:
                # An output kept as its digest has no value here: the solution computes it.
                pairs = [(a, v) for g in ("base", "plus") for a, v, h in zip(d[g + "_input"], d[g], d.get(g + "_digest") or [None] * len(d[g])) if h is None]
            answers = {}
            for a, value in pairs:
                answers.setdefault(_key(a), value)
            _answers = answers
        key = _key(args)
        if key in _answers:
            return (copy.deepcopy(_answers[key]),)
    except BaseException:
        pass
    return None


def inputs(rng, *, task_id):
    # Every test input is a fixed test; the one 'random' input is the first of them, so that the
    # model solution is timed on a known input and nothing new is computed at run time.
    d = _expected()
    if "check_calls" in d:
        return copy.deepcopy(tuple(d["check_calls"][0][0]))
    return copy.deepcopy(tuple(_first().args))
`;

/** What the importer computed for a problem's oracle (src/import/humaneval/expected.py). */
export interface OracleFacts {
    arity: number;
    dataset: "humaneval" | "mbpp";
    /** sha256 of the expected-outputs file the oracle reads. */
    sha256: string;
}

/** The eddy oracle (oracles/<id>.py) of one imported HumanEval+ or MBPP+ problem. */
export function oracleSource(p: HumanEvalProblem, id: string, facts: OracleFacts, mutants: GenericMutant[]): string {
    const args = argNames(facts.arity);
    const sig = [...args, "*", "task_id"].join(", ");
    const parts = [
        [
            `"""Imported from ${p.task_id} by 'eddy import ${facts.dataset}'.`,
            ``,
            `solution() is the canonical solution. The expected outputs were computed once at import and`,
            `are read from ${expectedFileName(id)} (its sha256 is below). With base_input/plus_input, each`,
            `input is a fixed test judged as EvalPlus judges it (exact, else within atol; special oracles`,
            `as EvalPlus's); without them, each call check(candidate) makes is a fixed test judged by check's`,
            `own assertions, prompt, solution and test in one namespace.`,
            `"""`,
            `import copy`,
            `import hashlib`,
            `import inspect`,
            `import math`,
            `import os`,
            `import pickle`,
            ``,
            `TASK_ID = ${pyString(p.task_id)}`,
            `DATASET = ${pyString(facts.dataset)}`,
            `ENTRY_POINT = ${pyString(p.entry_point)}`,
            `_PROMPT = ${pyString(p.prompt)}`,
            `_CANONICAL = ${pyString(p.canonical_solution)}`,
            `_TEST = ${pyString(p.test ?? "")}`,
            `_EXPECTED_FILE = ${pyString(expectedFileName(id))}`,
            `_EXPECTED_SHA256 = ${pyString(facts.sha256)}`,
            ``
        ].join("\n"),
        HELPERS.trim() + "\n",
        [
            `def solution(${sig}):`,
            `    # In the oracle, the stored answer of the one input a run asks it for; as a reference`,
            `    # answer (its source alone, in the sandbox), the canonical solution itself.`,
            `    stored = globals().get("_stored_answer")`,
            `    hit = stored((${args.join(", ")}${args.length === 1 ? "," : ""})) if stored is not None else None`,
            `    if hit is not None:`,
            `        return hit[0]`,
            `    fn = solution.__dict__.get("fn")`,
            `    if fn is None:`,
            `        namespace = {"__name__": "__main__"}`,
            `        exec(compile(${pyString(p.prompt + p.canonical_solution)}, "solution.py", "exec"), namespace)`,
            `        fn = solution.__dict__["fn"] = namespace[${pyString(p.entry_point)}]`,
            `    return fn(${args.join(", ")})`,
            ``
        ].join("\n"),
        ...mutants.map((m) => [`def ${m.name}(${sig}):`, `    ${m.body}`, ""].join("\n"))
    ];
    return parts.join("\n\n");
}
