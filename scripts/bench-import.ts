/**
 * Import benchmark (`npm run bench:import`): eddy's own Turbulence-format fixture (test/import/fixtures.ts,
 * original questions) with ROUNDS runs of responses, each round's code distinct so no verdict comes from
 * a cache. Imports the questions, then times `import turbulence-results` (read, replay run, judge,
 * store): responses re-judged per second, and `vs_turbulence_per_instance`, eddy's seconds per
 * instance ÷ the 3.6 s the original harness takes per instance (a published figure; goal ≤ 0.01).
 * The baseline measured in the same run: each response judged in a fresh python3 process against the
 * same imported oracle (fixed tests and random inputs, no isolation), one after another, the way a
 * harness that starts a process per instance works. Prints one JSON object.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { extractCode } from "../src/extract/extractCode.js";
import { importTurbulence } from "../src/import/turbulence/importQuestions.js";
import { importTurbulenceResults } from "../src/import/turbulence/importResults.js";
import { readTurbulenceResults } from "../src/import/turbulence/results.js";
import { pythonCommand } from "../src/judge/workerScript.js";
import { writeTurbulenceFixture } from "../test/import/fixtures.js";

// `npm run bench:import -- --rounds 20`: more rounds amortise the fixed start-up cost further.
const roundsArg = process.argv.indexOf("--rounds");
const ROUNDS = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 10;
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error("--rounds takes a positive integer");
const TURBULENCE_S_PER_INSTANCE = 3.6;
const GOAL = 0.01;
const BASELINE_SAMPLE = 40;

const BASELINE = `
import importlib.util, json, random, sys
req = json.loads(sys.stdin.read())
spec = importlib.util.spec_from_file_location("oracle", req["oracle"])
oracle = importlib.util.module_from_spec(spec); spec.loader.exec_module(oracle)
kw = req["bindings"]
ns = {}
ok = True
try:
    exec(compile(req["code"] or "", "generated_answer.py", "exec"), ns)
    fn = ns[req["function"]]
    for args, expected in oracle.tests(**kw):
        ok = ok and fn(*args) == expected
    rng = random.Random(1)
    for _ in range(50):
        args = oracle.inputs(rng, **kw)
        ok = ok and fn(*args) == oracle.solution(*args, **kw)
except Exception:
    ok = False
print(json.dumps(ok))
`;

async function main(): Promise<void> {
    const dir = mkdtempSync(path.join(tmpdir(), "eddy-bench-import-"));
    try {
        const { benchmark, results } = writeTurbulenceFixture(dir, { rounds: ROUNDS });
        const out = path.join(dir, "imported");
        const workers = availableParallelism();
        let t0 = performance.now();
        const summary = await importTurbulence(benchmark, { out, workers });
        const importTemplatesS = (performance.now() - t0) / 1000;

        t0 = performance.now();
        const imported = await importTurbulenceResults(results, { templates: out, db: path.join(dir, "eddy.db"), judgeWorkers: workers });
        const rejudgeS = (performance.now() - t0) / 1000;
        const responses = imported.runs.reduce((n, r) => n + r.responses, 0);
        const eddyPerInstance = rejudgeS / responses;

        // Baseline: a sample of the same responses, one fresh python3 each, sequentially.
        const read = readTurbulenceResults(results).responses.filter((r) => r.response !== null);
        const sample = read.filter((_, i) => i % Math.max(1, Math.floor(read.length / BASELINE_SAMPLE)) === 0).slice(0, BASELINE_SAMPLE);
        t0 = performance.now();
        for (const r of sample) {
            const id = `turbulence_q${r.question}`;
            const yaml = readFileSync(path.join(out, "templates", `${id}.yaml`), "utf8");
            const fn = /^function: (\w+)/m.exec(yaml)![1]!;
            const bindings = Object.fromEntries(r.params.map((v, i) => [`p${i}`, v]));
            spawnSync(pythonCommand(), ["-c", BASELINE], {
                input: JSON.stringify({ oracle: path.join(out, "oracles", `${id}.py`), bindings, code: extractCode(r.response!, fn), function: fn }),
                encoding: "utf8"
            });
        }
        const baselinePerResponse = (performance.now() - t0) / 1000 / sample.length;

        const result = {
            benchmark: "import",
            templates: summary.templates.length,
            responses,
            rounds: ROUNDS,
            judge_workers: workers,
            import_templates_s: round(importTemplatesS),
            rejudge_s: round(rejudgeS),
            responses_per_s: round(responses / rejudgeS),
            eddy_s_per_instance: round(eddyPerInstance, 5),
            turbulence_s_per_instance: TURBULENCE_S_PER_INSTANCE,
            vs_turbulence_per_instance: round(eddyPerInstance / TURBULENCE_S_PER_INSTANCE, 5),
            goal_vs_turbulence: GOAL,
            meets_goal: eddyPerInstance / TURBULENCE_S_PER_INSTANCE <= GOAL,
            study_wall_s: round(imported.runs.reduce((n, r) => n + r.wallMs, 0) / 1000),
            study_verdicts_per_s: round(imported.runs[0]?.verdictsPerS ?? NaN),
            load_average_1m: round(loadavg()[0]!, 2),
            baseline_fresh_process_s_per_response: round(baselinePerResponse, 5),
            baseline_sample: sample.length,
            vs_fresh_process_per_response: round(eddyPerInstance / baselinePerResponse, 4)
        };
        process.stdout.write(JSON.stringify(result, null, 2) + "\n");
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
}

function round(x: number, digits = 3): number {
    return Number(x.toFixed(digits));
}

await main();
