import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { JudgePool } from "../../judge/JudgePool.js";
import { questionText } from "../../templates/render.js";
import type { Template } from "../../templates/types.js";
import type { ParamValue } from "../../vocabulary.js";
import { oneLine } from "../../util/errors.js";
import type { PublishedRerun, RerunSide } from "../../store/publishedVerdicts.js";
import { readPythonString } from "./pythonRepr.js";

/** The function the re-run calls in the sandbox: the published tests, once per seed. */
const RUNNER = "turbulence_published_test";

/** One response whose published verdict eddy disagrees with, ready for a re-run of the published test. */
export interface RerunRequest {
    /** The question's tests.py.template (its candidate import rewritten) and solution.py.template. */
    tests: string;
    solution: string;
    function: string;
    /** The instance's parameter values (as the imported template holds them). */
    params: ParamValue[];
    /** The code Turbulence tested (its own extraction), else eddy's. */
    code: string;
}

/**
 * Turbulence's instantiation: `$i` replaced by str(value), in ascending order (so `$1` also
 * rewrites the start of `$10`, as Turbulence's own files are written for). The values are what the
 * template holds: numbers, strings as themselves, lists and booleans as Python literals, floats
 * already as Python text.
 */
export function instantiate(template: string, values: ParamValue[]): string {
    let out = template;
    values.forEach((v, i) => (out = out.split(`$${i}`).join(questionText(v))));
    return out;
}

/**
 * The answer the sandbox runs: the code under test, the published tests instantiated for this
 * instance (Turbulence fills in the parameters, then the folder number, function name, model and
 * run), and a runner that seeds `random` and calls every zero-argument `test*` function, as pytest
 * would, once per seed.
 */
function rerunSource(code: string, r: RerunRequest): string {
    const tests = instantiate(r.tests, [...r.params, 1, r.function, "eddy", 1]);
    const names = [...tests.matchAll(/^def (test\w*)\(\s*\)/gm)].map((m) => m[1]!);
    return [
        code,
        "",
        "# ---- the published tests, as Turbulence instantiated them ----",
        tests,
        "",
        "",
        `def ${RUNNER}(seeds):`,
        "    import random as _random",
        "    marks, first = [], ''",
        "    for seed in range(1, seeds + 1):",
        "        _random.seed(seed)",
        "        failed = ''",
        `        for name in ${JSON.stringify(names)}:`,
        "            try:",
        "                globals()[name]()",
        "            except BaseException as e:",
        "                text = str(e).splitlines()[0] if str(e) else ''",
        "                failed = ('%s: %s' % (name, type(e).__name__) + (': ' + text if text else ''))[:160]",
        "                break",
        "        marks.append('F' if failed else 'P')",
        "        if failed and not first:",
        "            first = 'seed %d: %s' % (seed, failed)",
        "    return ''.join(marks) + '|' + first",
        ""
    ].join("\n");
}

/** A template made for the re-run alone: one fixed test, `RUNNER(seeds)` must answer all P. */
function rerunTemplate(dir: string, seeds: number): Template {
    const oracle = [
        '"""eddy: re-run of a published Turbulence test (see src/import/turbulence/rerun.ts)."""',
        "",
        "",
        "def solution(seeds, *, seeds_asked):",
        "    return 'P' * seeds_asked + '|'",
        "",
        "",
        "def tests(*, seeds_asked):",
        "    yield (seeds_asked,), 'P' * seeds_asked + '|'",
        "",
        "",
        "def inputs(rng, *, seeds_asked):",
        "    return (seeds_asked,)",
        ""
    ].join("\n");
    const oracleFile = path.join(dir, "turbulence_published_test.py");
    writeFileSync(oracleFile, oracle);
    return {
        id: "turbulence_published_test",
        function: RUNNER,
        arity: 1,
        group: "math",
        subgroups: ["summation"],
        question: "",
        params: [{ name: "seeds_asked", domain: { kind: "choice", values: [seeds] } }],
        edge: [],
        comparator: "ordered",
        // Their tests, every seed: generous, and the judge's CPU budget still stops a runaway.
        budget: { timeMs: 20_000, memoryMb: 512 },
        randomInputs: 0,
        file: oracleFile,
        oracleFile,
        oracleHash: createHash("sha256").update(oracle).digest("hex")
    };
}

/** One side's outcome from the judge's verdict: the runner's answer is quoted in the detail when it is not all P. */
function side(category: string, detail: string, seeds: number): RerunSide {
    if (category === "passed") return { category, seeds: "P".repeat(seeds), failure: null };
    const at = detail.indexOf(", got ");
    if (category === "assertion_error" && at >= 0) {
        try {
            const got = readPythonString(detail, at + ", got ".length).value;
            const bar = got.indexOf("|");
            if (bar === seeds && /^[PF]+$/.test(got.slice(0, bar))) return { category, seeds: got.slice(0, bar), failure: got.slice(bar + 1) || null };
        } catch {
            // fall through: the detail is reported as it is
        }
    }
    return { category, seeds: null, failure: oneLine(detail) };
}

/**
 * Re-runs the published test on each response and on the model solution of its instance, in eddy's
 * sandboxed judge like any answer (the response and their tests are untrusted code), with `seeds`
 * seeds of Python's `random` (their tests draw random inputs). `dir` holds the re-run's oracle.
 */
export async function rerunPublishedTests(pool: JudgePool, dir: string, requests: RerunRequest[], seeds: number): Promise<PublishedRerun[]> {
    const t = rerunTemplate(dir, seeds);
    const bindings = { seeds_asked: seeds };
    const reference = new Map<string, Promise<RerunSide>>();
    const run = async (code: string): Promise<RerunSide> => {
        const v = await pool.judge({ template: t, bindings, code });
        return side(v.category, v.detail, seeds);
    };
    return Promise.all(
        requests.map(async (r) => {
            const solution = instantiate(r.solution, r.params);
            const key = JSON.stringify([r.tests, solution, r.params]);
            if (!reference.has(key)) reference.set(key, run(rerunSource(solution, r)));
            const [response, ref] = await Promise.all([run(rerunSource(r.code, r)), reference.get(key)!]);
            return { seeds, response, reference: ref };
        })
    );
}
