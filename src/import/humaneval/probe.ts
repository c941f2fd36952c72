import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { JudgePool } from "../../judge/JudgePool.js";
import type { Verdict } from "../../judge/types.js";
import type { Template } from "../../templates/types.js";
import type { ProbeFacts, ProbeOutcome } from "../../store/publishedVerdicts.js";
import { oneLine } from "../../util/errors.js";
import { pyString } from "../turbulence/oracleSource.js";

/**
 * A probe of one sample on one input of an imported EvalPlus problem, in eddy's sandboxed judge
 * like any answer: the answer (or the canonical solution, rendered by the problem's oracle as a
 * reference answer) is called on that one input, under a generous limit of its own, and what it
 * gives is compared there, in the trusted worker, by the problem's own oracle (its EvalPlus rule)
 * and by the rules of other EvalPlus versions (exact, type and length, np.allclose, the distance
 * in units in the last place). The probe's oracle always answers "not equal", so that the judge's
 * verdict quotes what it found: its expected object's repr, between EVIDENCE marks. A wrapper
 * appended to the code times the one call (time.process_time in the answer's own process: evidence,
 * never a verdict) and sends [its CPU ms, its output].
 */

/** Marks around the probe's findings in the verdict's detail. */
const MARK = "EDDY-EVIDENCE";
/** The function the probe calls: the problem's, timed by the answer's own process (CPU time of the one call). */
const PROBE_FN = "eddy_probe_call";

/** The answer with the probe's wrapper: [CPU ms of the call, its output]. */
function withWrapper(code: string, fn: string, arity: number): string {
    const args = Array.from({ length: arity }, (_, i) => `a${i}`).join(", ");
    return [
        code.replace(/\n*$/, "\n"),
        "",
        `def ${PROBE_FN}(${args}):`,
        "    import time as _eddy_time",
        "    _eddy_t0 = _eddy_time.process_time()",
        `    _eddy_out = ${fn}(${args})`,
        "    return [(_eddy_time.process_time() - _eddy_t0) * 1000.0, _eddy_out]",
        ""
    ].join("\n");
}

/**
 * Where the input is: its index in its group, or the input as EvalPlus named it (its JSON, as
 * written in the results), or the one after it (`after`: a timeout named by the last input that finished).
 */
export type ProbeInput = { group: string; index: number } | { group: string; reported: string; after?: boolean };

export interface ProbeSpec {
    /** The imported problem's template (its oracle is loaded by the probe's, in the trusted worker). */
    template: Template;
    taskId: string;
    dataset: "humaneval" | "mbpp";
    input: ProbeInput;
}

/** The probe's oracle: trusted code, run in the judge's worker; the answer runs in the sandbox. */
function probeOracle(spec: ProbeSpec): string {
    const reported = "reported" in spec.input ? spec.input.reported : null;
    return `"""eddy: a probe of one input of ${spec.taskId} (src/import/humaneval/probe.ts): the answer's output
there compared by the problem's oracle and by other EvalPlus versions' rules; always 'not equal',
so that the verdict's detail quotes the findings."""
import importlib.util
import json
import math
import struct

_ORACLE = ${pyString(spec.template.oracleFile)}
TASK_ID = ${pyString(spec.taskId)}
DATASET = ${pyString(spec.dataset)}
GROUP = ${pyString(spec.input.group)}
INDEX = ${"index" in spec.input ? spec.input.index : "None"}
REPORTED = ${reported === null ? "None" : pyString(reported)}
AFTER = ${"after" in spec.input && spec.input.after ? "True" : "False"}
_MARK = ${pyString(MARK)}
_mod = None
_case = None


def _imported():
    global _mod
    if _mod is None:
        s = importlib.util.spec_from_file_location("eddy_probed_problem", _ORACLE)
        m = importlib.util.module_from_spec(s)
        s.loader.exec_module(m)
        _mod = m
    return _mod


def _same_input(arg, rep):
    """The stored argument and EvalPlus's JSON of it (tuples as lists; MBPP+'s sets as lists,
    its complex numbers and some floats as their str()) are the same input."""
    if isinstance(arg, (set, frozenset)):
        if not isinstance(rep, list) or len(rep) != len(arg):
            return False
        left = list(arg)
        for r in rep:
            k = next((i for i, a in enumerate(left) if _same_input(a, r)), None)
            if k is None:
                return False
            left.pop(k)
        return True
    if isinstance(arg, (list, tuple)):
        return isinstance(rep, list) and len(rep) == len(arg) and all(_same_input(a, r) for a, r in zip(arg, rep))
    if isinstance(arg, dict):
        return isinstance(rep, dict) and len(rep) == len(arg) and all(str(k) in rep and _same_input(v, rep[str(k)]) for k, v in arg.items())
    if isinstance(rep, str) and isinstance(arg, (complex, float)) and not isinstance(arg, bool):
        return rep == str(arg)
    if isinstance(arg, float) and isinstance(rep, float) and math.isnan(arg):
        return math.isnan(rep)
    if isinstance(arg, bool) or isinstance(rep, bool):
        return type(arg) is type(rep) and arg == rep
    try:
        return bool(arg == rep)
    except BaseException:
        return False


def _find():
    global _case
    if _case is None:
        cases = [(a, e) for a, e in _imported().tests(task_id=TASK_ID) if getattr(e, "group", None) == GROUP]
        if REPORTED is None:
            _case = cases[INDEX] if INDEX is not None and 0 <= INDEX < len(cases) else (None, None)
        else:
            rep = json.loads(REPORTED)
            k = next((k for k, (a, e) in enumerate(cases) if _same_input(tuple(a), rep)), None)
            if k is not None and AFTER:
                k = k + 1 if k + 1 < len(cases) else None
            _case = cases[k] if k is not None else ((cases[0][0], None) if cases else (None, None))
    return _case


class _Probe:
    def __init__(self, e):
        self.e = e
        self.facts = {}

    @property
    def eddy_value(self):
        # What the answer's result is bounded by: the output and the time beside it.
        return [0.0, self.e.value if self.e is not None else None]

    @property
    def eddy_time_limit_ms(self):
        # Twice the largest limit any EvalPlus version set on this input (reference-machine ms).
        limit = getattr(self.e, "limit_ms", None) if self.e is not None else None
        return 2.0 * max(4000.0, float(limit or 0))

    def __repr__(self):
        # The judge quotes 300 characters of it: the two values give way until the findings fit.
        f = dict(self.facts)
        text = json.dumps(f, separators=(",", ":"), allow_nan=False)
        n = 48
        while len(text) > 268 and n > 8:
            n -= 8
            for k in ("o", "e"):
                if isinstance(f.get(k), str) and len(f[k]) > n:
                    f[k] = f[k][: n - 3] + "..."
            text = json.dumps(f, separators=(",", ":"), allow_nan=False)
        return _MARK + text + _MARK


def _short(v, n=48):
    try:
        r = repr(v)
    except BaseException:
        r = "<unprintable %s>" % type(v).__name__
    return r if len(r) <= n else r[: n - 3] + "..."


def _key(x):
    i = struct.unpack("<q", struct.pack("<d", x))[0]
    return i if i >= 0 else -(i & 0x7FFFFFFFFFFFFFFF)


def _numbers(out, exp):
    """(answer, expected) float pairs of two numbers or two equally long lists of them; None otherwise."""
    if isinstance(exp, (list, tuple)):
        if not isinstance(out, (list, tuple)) or len(out) != len(exp):
            return None
        pairs = []
        for o, x in zip(out, exp):
            p = _numbers(o, x)
            if p is None:
                return None
            pairs += p
        return pairs
    if isinstance(out, (int, float)) and isinstance(exp, (int, float)) and not isinstance(out, bool) and not isinstance(exp, bool):
        try:
            return [(float(out), float(exp))]
        except OverflowError:
            return None
    return None


def _finite(x):
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None


def _facts(e, out):
    m = _imported()
    exp = e.value
    f = {"at": "%s:%d" % (e.group, e.index), "a0": _finite(e.atol_before), "a": _finite(e.atol), "lm": round(e.limit_ms, 1) if _finite(e.limit_ms) is not None else None}
    same = getattr(m, "_evalplus_same", None)
    try:
        f["ok"] = bool(same(e, out)) if same is not None else None
    except BaseException:
        f["ok"] = False
    if e.digest is not None:
        # Kept as its digest at import: compared by the problem's oracle in the run, not here.
        f["dg"] = True
        return f
    try:
        f["x"] = bool(out == exp)
    except BaseException:
        f["x"] = False
    f["t"] = type(out) is type(exp)
    f["n"] = (len(out) == len(exp)) if isinstance(exp, (list, tuple)) and isinstance(out, (list, tuple)) else None
    f["fl"] = isinstance(exp, float) or (isinstance(exp, (list, tuple)) and len(exp) > 0 and all(isinstance(i, float) for i in exp))
    f["fl0"] = isinstance(exp, float) or (isinstance(exp, (list, tuple)) and all(isinstance(i, float) for i in exp))
    close = getattr(m, "_allclose", None)
    tol = e.atol if e.atol else 1e-6
    try:
        f["c"] = bool(close(out, exp, tol)) if close is not None else None
    except BaseException:
        f["c"] = False
    pairs = _numbers(out, exp)
    if pairs:
        ulps, diffs = [], []
        for o, x in pairs:
            if o == x:
                ulps.append(0)
                diffs.append(0.0)
            elif math.isfinite(o) and math.isfinite(x):
                ulps.append(abs(_key(o) - _key(x)))
                diffs.append(abs(o - x))
            else:
                ulps.append(None)
        f["u"] = None if None in ulps else max(ulps)
        f["d"] = float("%.3g" % max(diffs)) if diffs and math.isfinite(max(diffs)) else None
    f["o"] = _short(out)
    f["e"] = _short(exp)
    return f


def tests(*, probe):
    args, e = _find()
    if args is None:
        raise RuntimeError("%s has no %s inputs" % (TASK_ID, GROUP))
    yield tuple(args), _Probe(e)


def compare(expected, actual, **params):
    # The wrapper's [CPU ms of the call, output]; anything else is what the answer's process sent instead.
    if not (isinstance(actual, list) and len(actual) == 2 and isinstance(actual[0], float)):
        expected.facts = {"err": "the probe's call sent " + _short(actual, 60)}
        return False
    ms, out = actual
    if expected.e is None:
        expected.facts = {"nf": True, "ms": round(ms, 3)}
    else:
        try:
            expected.facts = _facts(expected.e, out)
        except BaseException as err:
            expected.facts = {"err": _short(err, 80)}
        expected.facts["ms"] = round(ms, 2)
    return False


def solution(*args, probe):
    return None


def inputs(rng, *, probe):
    return tuple(_find()[0])
`;
}

/** The template a probe is judged under: the problem's function, one fixed test, the probe's oracle. */
function probeTemplate(dir: string, spec: ProbeSpec, n: number): Template {
    const oracle = probeOracle(spec);
    const oracleFile = path.join(dir, `probe_${n}.py`);
    writeFileSync(oracleFile, oracle);
    return {
        id: `probe_${n}`,
        function: PROBE_FN,
        arity: spec.template.arity,
        group: spec.template.group,
        subgroups: spec.template.subgroups,
        question: "",
        params: [{ name: "probe", domain: { kind: "choice", values: [0] } } as Template["params"][number]],
        edge: [],
        comparator: "ordered",
        // The one call has its own limit (the expected object's): twice the largest EvalPlus set there.
        budget: { timeMs: 60_000, memoryMb: spec.template.budget.memoryMb },
        randomInputs: 0,
        file: oracleFile,
        oracleFile,
        oracleHash: createHash("sha256").update(oracle).digest("hex")
    };
}

const FACT_KEYS: Record<string, keyof ProbeFacts> = {
    at: "at",
    ok: "eddyAccepts",
    x: "exact",
    t: "sameType",
    n: "sameLength",
    fl: "floats",
    fl0: "floatsBefore",
    a0: "atolBefore",
    a: "atol",
    c: "allclose",
    u: "ulps",
    d: "difference",
    o: "output",
    e: "expected",
    lm: "limitMs",
    dg: "digest",
    nf: "notFound",
    err: "error",
    ms: "callMs"
};

/** What one probe's verdict says: the findings quoted between the marks, or why there are none. */
export function probeOutcome(v: Pick<Verdict, "category" | "detail" | "cpuMs">): ProbeOutcome {
    const at = v.detail.indexOf(MARK);
    const end = at >= 0 ? v.detail.indexOf(MARK, at + MARK.length) : -1;
    if (at >= 0 && end > at) {
        try {
            const raw = JSON.parse(v.detail.slice(at + MARK.length, end)) as Record<string, unknown>;
            const facts: ProbeFacts = {};
            for (const [k, value] of Object.entries(raw)) {
                const name = FACT_KEYS[k];
                if (name) (facts as Record<string, unknown>)[name] = value;
            }
            const cpuMs = typeof facts.callMs === "number" ? Math.round(facts.callMs * 10) / 10 : null;
            return { category: "answered", cpuMs, facts };
        } catch {
            // fall through: the detail is kept as it is
        }
    }
    return { category: v.category, cpuMs: null, detail: oneLine(v.detail).slice(0, 300) };
}

/**
 * Probes each (answer code, input) in eddy's sandbox, and the canonical solution once per input
 * (rendered by the problem's oracle as its reference answer): its CPU time on the same input, the
 * same way. `dir` holds the probes' oracles.
 */
export async function runProbes(pool: JudgePool, dir: string, items: { spec: ProbeSpec; code: string }[], onDone?: () => void): Promise<{ answer: ProbeOutcome; canonical: ProbeOutcome | null }[]> {
    const templates = new Map<string, Template>();
    const canonical = new Map<string, Promise<ProbeOutcome | null>>();
    const templateOf = (spec: ProbeSpec): Template => {
        const key = JSON.stringify([spec.template.oracleFile, spec.taskId, spec.input]);
        let t = templates.get(key);
        if (!t) templates.set(key, (t = probeTemplate(dir, spec, templates.size)));
        return t;
    };
    const bindings = { probe: 0 };
    return Promise.all(
        items.map(async ({ spec, code }) => {
            const t = templateOf(spec);
            const key = t.oracleHash;
            if (!canonical.has(key))
                canonical.set(
                    key,
                    pool
                        .answerSource(spec.template, { task_id: spec.taskId }, "solution")
                        .then((src) => pool.judge({ template: t, bindings, code: withWrapper(src, spec.template.function, spec.template.arity) }))
                        .then(probeOutcome)
                        .catch(() => null)
                );
            const [answer, ref] = await Promise.all([pool.judge({ template: t, bindings, code: withWrapper(code, spec.template.function, spec.template.arity) }).then(probeOutcome), canonical.get(key)!]);
            onDone?.();
            return { answer, canonical: ref };
        })
    );
}
