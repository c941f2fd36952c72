import { readFileSync } from "node:fs";
import path from "node:path";
import { packageRoot } from "../../util/paths.js";
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

/** Where the expected outputs of template `id` are kept, beside its oracle (tagged JSON: expected_codec.py). */
export function expectedFileName(id: string): string {
    return `${id}.expected.json`;
}

/** The name an earlier eddy gave the expected outputs (pickled): removed when a problem is imported again. */
export function legacyExpectedFileName(id: string): string {
    return `${id}.expected.pkl`;
}

let codecText: string | undefined;

/**
 * expected_codec.py's text, copied into every imported oracle: the one reader of the expected
 * outputs (tagged JSON; a total, bounded reader that builds plain values only), the same code
 * expected.py writes them with.
 */
export function expectedCodecSource(): string {
    return (codecText ??= readFileSync(path.join(packageRoot(), "src", "import", "humaneval", "expected_codec.py"), "utf8"));
}

// The oracle's shared part. Self-contained Python; every imported oracle carries the same text.
// EvalPlus's evaluation (evalplus/eval/__init__.py, unsafe_execute) is reproduced in _evalplus_same:
// the same program order, the same comparison, the same special oracles. Nothing here runs the
// problem's own code (issue #43): the canonical solution, the prompt's helpers and check() ran in
// the judge's sandbox at import, and only what they gave back, as plain data, is read here.
const HELPERS = `
_data = None
# The expected-outputs file is what the import wrote (its sha256 is checked before it is parsed);
# nothing larger than the import writes (expected.py MAX_FILE_BYTES) is read.
_EXPECTED_MAX_BYTES = 1024 * 1024 * 1024


def _expected():
    """The expected outputs computed at import (never recomputed here), checked against the hash
    this file carries: the oracle's hash, recorded with every run, covers them."""
    global _data
    if _data is None:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), _EXPECTED_FILE)
        if os.path.getsize(path) > _EXPECTED_MAX_BYTES:
            raise RuntimeError("%s is larger than any expected outputs eddy writes (import the problems again)" % _EXPECTED_FILE)
        with open(path, "rb") as f:
            blob = f.read(_EXPECTED_MAX_BYTES + 1)
        if hashlib.sha256(blob).hexdigest() != _EXPECTED_SHA256:
            raise RuntimeError("%s does not match this oracle (import the problems again)" % _EXPECTED_FILE)
        data = decode_expected(blob)
        if data.get("task_id") != TASK_ID or type(data.get("groups")) is not list:
            raise RuntimeError("%s is not this problem's (import the problems again)" % _EXPECTED_FILE)
        _data = data
    return _data


class _Expected:
    """Expected answer of one test input, with what EvalPlus's check of it needs."""

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


def _first():
    d = _expected()
    g = next((g for g in d["groups"] if d[g + "_input"]), d["groups"][0])
    return _Expected(g, 0, d[g + "_input"][0], None, d[g + "_atol"][0][0], d[g + "_atol"][0][1])


def compare(expected, actual, **params):
    if isinstance(expected, _Expected):
        return _evalplus_same(expected, actual)
    # The one random input repeats the first test input (inputs() below): judged as that input is.
    first = _first()
    first.value = expected
    return _evalplus_same(first, actual)


def _cases():
    """Every test input with its expected answer, group by group (EvalPlus's base, then plus; or
    the calls check(candidate) made at import, for a problem without them)."""
    d = _expected()
    for g in d["groups"]:
        n = len(d[g + "_input"])
        limits = d.get(g + "_limit_ms") or [None] * n
        digests = d.get(g + "_digest") or [None] * n
        for k, (args, value, atols, limit, digest) in enumerate(zip(d[g + "_input"], d[g], d[g + "_atol"], limits, digests)):
            yield _Expected(g, k, args, value, atols[0], atols[1], limit, digest)


def tests(*, task_id):
    # Fresh copies each time: a solution that changes its arguments must not change the stored inputs.
    for e in _cases():
        e.args = copy.deepcopy(e.args)
        yield tuple(copy.deepcopy(e.args)), e


_answers = None


def _key(args):
    return hashlib.sha256(repr(tuple(args)).encode("utf-8", "surrogatepass")).digest()


def _stored_answer(args):
    """(the stored answer,) of a test input: in the oracle, the model solution answers from the
    import's outputs (a run's one 'random' input, the judge's checks of the oracle); an output
    kept as its digest is answered by its expected object, which the judge compares by digest.
    Any other input is refused: the problem's own code never runs in the trusted worker."""
    global _answers
    if _answers is None:
        answers = {}
        for e in _cases():
            answers.setdefault(_key(e.args), e)
        _answers = answers
    e = _answers.get(_key(args))
    if e is None:
        raise LookupError("an imported problem's model solution answers its stored test inputs only (its own code runs only in the judge's sandbox)")
    if e.digest is not None:
        return (_Expected(e.group, e.index, copy.deepcopy(e.args), None, e.atol_before, e.atol, e.limit_ms, e.digest),)
    return (copy.deepcopy(e.value),)


def inputs(rng, *, task_id):
    # Every test input is a fixed test; the one 'random' input is the first of them, so that the
    # model solution is timed on a known input and nothing new is computed at run time.
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
    // Every text of the problem's is in the module as a string literal (pyString): none is ever
    // part of its code, its comments or its docstring.
    const parts = [
        [
            `"""Imported by 'eddy import ${facts.dataset}' (the task is TASK_ID below).`,
            ``,
            `solution() is the canonical solution. The expected outputs were computed once at import, the`,
            `problem's own code run in the judge's sandbox, and are read from the file named below (tagged`,
            `JSON; its sha256 is below). With base_input/plus_input, each input is a fixed test judged as`,
            `EvalPlus judges it (exact, else within atol; special oracles as EvalPlus's); without them,`,
            `each call check(candidate) made at import is a fixed test, its answer judged as EvalPlus judges`,
            `a base input. This module never runs the problem's own code: in the judge's worker solution()`,
            `answers from the stored outputs; only as a reference answer, alone in the sandbox, does it run`,
            `the canonical solution.`,
            `"""`,
            `import copy`,
            `import hashlib`,
            `import math`,
            `import os`,
            ``,
            `TASK_ID = ${pyString(p.task_id)}`,
            `DATASET = ${pyString(facts.dataset)}`,
            `ENTRY_POINT = ${pyString(p.entry_point)}`,
            `_EXPECTED_FILE = ${pyString(expectedFileName(id))}`,
            `_EXPECTED_SHA256 = ${pyString(facts.sha256)}`,
            ``
        ].join("\n"),
        `# ---- the expected-outputs reader (src/import/humaneval/expected_codec.py) ----\n` + expectedCodecSource().trim() + "\n",
        `# ---- the oracle ----\n` + HELPERS.trim() + "\n",
        [
            `def solution(${sig}):`,
            `    # In the oracle, the stored answer of the one input a run asks it for; as a reference`,
            `    # answer (its source alone, in the sandbox), the canonical solution itself.`,
            `    stored = globals().get("_stored_answer")`,
            `    if stored is not None:`,
            `        return stored((${args.join(", ")}${args.length === 1 ? "," : ""}))[0]`,
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
