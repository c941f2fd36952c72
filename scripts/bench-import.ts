/**
 * Import benchmark (`npm run bench:import`), on eddy's own Turbulence-format fixture (test/import/
 * fixtures.ts, original questions) laid out as the v2 repository publishes results: ROUNDS rounds of
 * every question, each response a printed SDK object (OpenAI-style ChatCompletion), each round's
 * code distinct so that no verdict comes from a cache. Prints one JSON object:
 *
 * - `rejudge_s`, `responses_per_s`, `eddy_s_per_instance`: `import turbulence-results` as a lab runs
 *   it (decode, match, replay run, judge, store, and the sandboxed re-run of the published test where
 *   eddy and Turbulence disagree);
 * - `vs_turbulence_per_instance`: eddy's seconds per instance ÷ Turbulence's own, from its published
 *   reports: the "Test duration" of each round in the Final_report_*.html files listed in PUBLISHED
 *   (ShahinHonarvar/Turbulence-Benchmark-v2; 100 instances per round; the test phase only, no model
 *   calls), summed and divided by the instances. Goal ≤ 0.01;
 * - `import_question_s`: `import turbulence` of one question with a neighbourhood of 100 tuples
 *   (validation in one trusted process, cached by oracle hash), beside `baseline_sandboxed_validation_s`,
 *   the same files validated the old way (model solution and every mutant on every tuple through
 *   the sandboxed judge), measured in the same run; `reimport_question_s` is the cached re-import;
 * - `baseline_fresh_process_s_per_response`: a same-run baseline judging each response in a fresh
 *   python3 process against the same oracle (no isolation), the way a harness that starts a process
 *   per instance works;
 * - `humaneval_plus`: `import humaneval` of a generated file shaped as HumanEvalPlus.jsonl v0.1.10
 *   (164 problems, original content: about 9 base and 760 plus inputs each, two problems with plus
 *   inputs up to n = 1,000,011, as the release's largest), expected outputs and validation included
 *   (goal: under 180 s on 2 cores), beside `baseline_sequential_expected_s`, the expected outputs
 *   alone computed in one process one problem after another, as EvalPlus's get_groundtruth does,
 *   measured in the same run. `--only humaneval` runs this part alone; `--humaneval-file <path>`
 *   imports that file instead (EvalPlus's own release, HumanEvalPlus-v0.1.10.jsonl.gz, which is not
 *   part of eddy's repository).
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { extractCode } from "../src/extract/extractCode.js";
import { importTurbulence } from "../src/import/turbulence/importQuestions.js";
import { importHumanEval } from "../src/import/humaneval/importProblems.js";
import { importTurbulenceResults } from "../src/import/turbulence/importResults.js";
import { libraryAt } from "../src/templates/library.js";
import { readTurbulenceResults } from "../src/import/turbulence/results.js";
import { JudgePool } from "../src/judge/JudgePool.js";
import { validateTemplate } from "../src/judge/validateTemplate.js";
import { pythonCommand } from "../src/judge/workerScript.js";
import { loadTemplate } from "../src/templates/loadTemplates.js";
import { sampleInstances } from "../src/templates/instances.js";
import { writeTurbulenceFixture } from "../test/import/fixtures.js";

// `npm run bench:import -- --rounds 20`: more rounds amortise the fixed start-up cost further.
const roundsArg = process.argv.indexOf("--rounds");
const ROUNDS = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 10;
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error("--rounds takes a positive integer");
const GOAL = 0.01;
const BASELINE_SAMPLE = 40;

/** "Test duration" (s) of each round (100 instances) in Turbulence's published reports, as read in ShahinHonarvar/Turbulence-Benchmark-v2. */
const PUBLISHED: { report: string; rounds: number[] }[] = [
    { report: "Claude_3_5_Haiku_T_0/Q1/Final_report_20241114-102734.html", rounds: [353.387, 358.398, 365.314, 369.366, 371.607] },
    { report: "Claude_3_5_Haiku_T_0/Q10/Final_report_20241118-151857.html", rounds: [351.315, 339.332, 365.693, 358.272, 352.298] },
    { report: "Gemma_2_27B_T_0/Q1/Final_report_20241102-213520.html", rounds: [387.463, 401.851, 412.745, 416.928, 413.691] },
    { report: "Gemma_2_27B_T_0/Q10/Final_report_20241103-011522.html", rounds: [121.871, 122.547, 119.775, 120.436, 120.698] },
    { report: "Gemma_2_27B_T_0/Q11/Final_report_20241103-020838.html", rounds: [633.537, 656.176, 639.181, 637.963, 628.95] },
    { report: "Codestral_T_0/Q1/Final_report_20241022-003820.html", rounds: [316.44, 324.782, 337.207, 361.705, 384.073] },
    { report: "Codestral_T_0/Q10/Final_report_20241022-080449.html", rounds: [672.01, 666.898, 684.7, 686.905, 708.015] },
    { report: "Codestral_T_0/Q11/Final_report_20241022-095603.html", rounds: [1297.492, 1314.296, 1346.969, 1349.83, 1364.886] }
];
const INSTANCES_PER_ROUND = 100;
const publishedRounds = PUBLISHED.flatMap((p) => p.rounds);
const TURBULENCE_S_PER_INSTANCE = publishedRounds.reduce((a, b) => a + b, 0) / (publishedRounds.length * INSTANCES_PER_ROUND);

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

/** One question (Q1 of the fixture) with a published neighbourhood of 100 tuples. */
function hundredTupleQuestion(benchmark: string, dir: string): string {
    const root = path.join(dir, "bench100");
    cpSync(path.join(benchmark, "Q1"), path.join(root, "Q1"), { recursive: true });
    const tuples = Array.from({ length: 100 }, (_, i) => `(${i % 37}, ${(i % 37) + 3 + ((i * 7) % 50)})`);
    writeFileSync(path.join(root, "Q1", "all_params.txt"), tuples.join("\n"));
    return root;
}

/** Original problems in HumanEvalPlus.jsonl's layout: `n` tasks built from a few kinds, each with its base and plus inputs. */
export function humanEvalPlusLike(n = 164): string {
    const kinds: { name: string; sig: string; doc: string; body: string; input: (k: number, r: () => number) => unknown[] }[] = [
        { name: "sum_of_multiples", sig: "(values: list, m: int) -> int", doc: "Sum of the values divisible by m.", body: "    return sum(v for v in values if v % m == 0)\n", input: (k, r) => [Array.from({ length: 1 + Math.floor(r() * 40) }, () => Math.floor(r() * 1000) - 500), 1 + (k % 9)] },
        { name: "rotate_text", sig: "(text: str, k: int) -> str", doc: "Text rotated left by k places.", body: "    if not text:\n        return text\n    k %= len(text)\n    return text[k:] + text[:k]\n", input: (k, r) => [Array.from({ length: Math.floor(r() * 30) }, () => "abcdefghij"[Math.floor(r() * 10)]).join(""), Math.floor(r() * 50)] },
        { name: "count_runs", sig: "(values: list) -> int", doc: "Number of maximal runs of equal neighbours.", body: "    return sum(1 for i, v in enumerate(values) if i == 0 or values[i - 1] != v)\n", input: (_k, r) => [Array.from({ length: Math.floor(r() * 60) }, () => Math.floor(r() * 3))] },
        { name: "mean_gap", sig: "(values: list) -> float", doc: "Mean absolute difference of neighbours (0.0 for fewer than two values).", body: "    if len(values) < 2:\n        return 0.0\n    return sum(abs(a - b) for a, b in zip(values, values[1:])) / (len(values) - 1)\n", input: (_k, r) => [Array.from({ length: Math.floor(r() * 25) }, () => Math.round(r() * 1000) / 10)] },
        { name: "fib_mod", sig: "(n: int, m: int) -> int", doc: "The n-th Fibonacci number modulo m.", body: "    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, (a + b) % m\n    return a\n", input: (k, r) => [Math.floor(r() * 3000), 2 + (k % 97)] },
        { name: "digits_sorted", sig: "(n: int) -> list", doc: "The decimal digits of abs(n), sorted.", body: "    return sorted(int(d) for d in str(abs(n)))\n", input: (_k, r) => [Math.floor(r() * 1e12) - 5e11] }
    ];
    let seed = 12345;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const lines: string[] = [];
    for (let t = 0; t < n; t++) {
        const big = t === 15 || t === 100;
        const kind = kinds[t % kinds.length]!;
        const fn = big ? `count_up_${t}` : `${kind.name}_${t}`;
        const prompt = big
            ? `def ${fn}(n: int) -> str:\n    """The numbers 0 to n separated by single spaces."""\n`
            : `def ${fn}${kind.sig}:\n    """${kind.doc}"""\n`;
        const canonical = big ? `    return " ".join(str(x) for x in range(n + 1))\n` : kind.body;
        const input = (k: number) => (big ? [k < 5 ? k : Math.floor(rnd() * 1000)] : kind.input(k, rnd));
        const base = Array.from({ length: 9 }, (_, k) => input(k));
        const plus = Array.from({ length: 760 }, (_, k) => input(k + 9));
        if (big) plus.push([1000011], [750000], [500003]);
        lines.push(JSON.stringify({ task_id: `Bench/${t}`, prompt, entry_point: fn, canonical_solution: canonical, test: `\n\ndef check(candidate):\n    pass\n`, contract: "", base_input: base, plus_input: plus, atol: 0 }));
    }
    return lines.join("\n") + "\n";
}

/** The expected outputs of every problem in one process, one after another (EvalPlus's get_groundtruth). */
const SEQUENTIAL_EXPECTED = `
import copy, gzip, json, sys, time
with open(sys.argv[1], "rb") as f:
    gz = f.read(2) == b"\\x1f\\x8b"
for line in (gzip.open(sys.argv[1], "rt") if gz else open(sys.argv[1])):
    p = json.loads(line)
    ns = {}
    exec(p["prompt"] + p["canonical_solution"], ns)
    fn = ns[p["entry_point"]]
    for inp in p["base_input"] + p["plus_input"]:
        fn(*copy.deepcopy(inp))
`;

async function humanEvalPlusBench(dir: string): Promise<Record<string, unknown>> {
    const given = process.argv.indexOf("--humaneval-file");
    const file = given > 0 ? path.resolve(process.argv[given + 1] ?? "") : path.join(dir, "HumanEvalPlus-like.jsonl");
    if (given < 0) writeFileSync(file, humanEvalPlusLike());
    const workers = availableParallelism();
    const loadBefore = loadavg()[0]!;
    let t0 = performance.now();
    const summary = await importHumanEval(file, { out: path.join(dir, "he-plus"), workers });
    const importS = (performance.now() - t0) / 1000;
    t0 = performance.now();
    const seq = spawnSync(pythonCommand(), ["-c", SEQUENTIAL_EXPECTED, file], { encoding: "utf8" });
    // A baseline that failed would make any ratio meaningless.
    if (seq.status !== 0) throw new Error(`the sequential baseline failed: ${seq.stderr.trim().split("\n").pop() ?? ""}`);
    const sequentialS = (performance.now() - t0) / 1000;
    return {
        source: given > 0 ? file : "generated (HumanEvalPlus-like.jsonl)",
        problems: summary.templates.length,
        skipped: summary.skipped.length,
        inputs: summary.templates.reduce((n, t) => n + t.fixedTests.base + t.fixedTests.plus, 0),
        workers,
        import_s: round(importS),
        goal_s: 180,
        meets_goal: importS < 180,
        baseline_sequential_expected_s: round(sequentialS),
        vs_sequential_expected: round(importS / sequentialS),
        expected_mb: round(summary.templates.reduce((n, t) => n + t.expectedBytes, 0) / 1e6, 1),
        load_average_1m_before: round(loadBefore, 2),
        load_average_1m: round(loadavg()[0]!, 2)
    };
}

async function main(): Promise<void> {
    if (process.argv.includes("--only") && process.argv[process.argv.indexOf("--only") + 1] === "humaneval") {
        const dir = mkdtempSync(path.join(tmpdir(), "eddy-bench-import-"));
        try {
            process.stdout.write(JSON.stringify({ benchmark: "import", humaneval_plus: await humanEvalPlusBench(dir) }, null, 2) + "\n");
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
        return;
    }
    const dir = mkdtempSync(path.join(tmpdir(), "eddy-bench-import-"));
    try {
        const { benchmark, results } = writeTurbulenceFixture(dir, { rounds: ROUNDS });
        const out = path.join(dir, "imported");
        const workers = availableParallelism();
        let t0 = performance.now();
        const summary = await importTurbulence(benchmark, { out, workers, results });
        const importTemplatesS = (performance.now() - t0) / 1000;

        // One question of 100 tuples: imported, re-imported (cached), and validated the old way.
        const q100 = hundredTupleQuestion(benchmark, dir);
        const out100 = path.join(dir, "imported100");
        t0 = performance.now();
        await importTurbulence(q100, { out: out100, workers });
        const importQuestionS = (performance.now() - t0) / 1000;
        t0 = performance.now();
        await importTurbulence(q100, { out: out100, workers });
        const reimportQuestionS = (performance.now() - t0) / 1000;
        const pool = await JudgePool.start({ workers });
        let sandboxedValidationS: number;
        try {
            const t = loadTemplate(libraryAt(out100), "turbulence_q1");
            const start = performance.now();
            await validateTemplate(pool, t, sampleInstances(t, 100, 0));
            sandboxedValidationS = (performance.now() - start) / 1000;
        } finally {
            await pool.close();
        }

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
            response_forms: imported.forms,
            rounds: ROUNDS,
            judge_workers: workers,
            import_templates_s: round(importTemplatesS),
            import_question_s: round(importQuestionS),
            reimport_question_s: round(reimportQuestionS),
            baseline_sandboxed_validation_s: round(sandboxedValidationS),
            import_question_tuples: 100,
            rejudge_s: round(rejudgeS),
            reruns: imported.runs.reduce((n, r) => n + r.reruns, 0),
            responses_per_s: round(responses / rejudgeS),
            eddy_s_per_instance: round(eddyPerInstance, 5),
            turbulence_s_per_instance: round(TURBULENCE_S_PER_INSTANCE, 4),
            turbulence_source: `ShahinHonarvar/Turbulence-Benchmark-v2: "Test duration" of ${publishedRounds.length} rounds × ${INSTANCES_PER_ROUND} instances in ${PUBLISHED.length} Final_report_*.html files (scripts/bench-import.ts, PUBLISHED)`,
            vs_turbulence_per_instance: round(eddyPerInstance / TURBULENCE_S_PER_INSTANCE, 5),
            goal_vs_turbulence: GOAL,
            meets_goal: eddyPerInstance / TURBULENCE_S_PER_INSTANCE <= GOAL,
            study_wall_s: round(imported.runs.reduce((n, r) => n + r.wallMs, 0) / 1000),
            study_verdicts_per_s: round(imported.runs[0]?.verdictsPerS ?? NaN),
            load_average_1m: round(loadavg()[0]!, 2),
            baseline_fresh_process_s_per_response: round(baselinePerResponse, 5),
            baseline_sample: sample.length,
            vs_fresh_process_per_response: round(eddyPerInstance / baselinePerResponse, 4),
            humaneval_plus: await humanEvalPlusBench(dir)
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
