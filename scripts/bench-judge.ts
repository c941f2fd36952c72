/**
 * Judge benchmark (`npm run bench:judge`): a fixed mixed set of candidates — correct, wrong,
 * crashing, slow — over several templates, K = 50 random inputs each, judged by eddy's pool;
 * then the same candidates on the same inputs, each in a fresh `python3` process with no
 * isolation and no checks (the baseline); and the fork floor: the median time for a pre-started
 * Python process to fork a child that runs an empty function and exits (`vs_fork_floor` is eddy's
 * median time per verdict over it). Prints one JSON object.
 */
import { performance } from "node:perf_hooks";
import { availableParallelism } from "node:os";
import { execa } from "execa";
import { JudgePool } from "../src/judge/JudgePool.js";
import { inputSeed, paramTuple } from "../src/judge/cache.js";
import { pythonCommand } from "../src/judge/workerScript.js";
import { quantileSorted } from "../src/stats/bootstrap.js";
import { loadTemplate } from "../src/templates/loadTemplates.js";
import { pythonLiteral } from "../src/templates/render.js";
import { sampleInstances } from "../src/templates/instances.js";
import type { Instance, Template } from "../src/templates/types.js";

const TEMPLATE_IDS = ["list_every_kth", "string_substring_inclusive", "math_count_multiples", "search_find_in_window", "set_union_first_n", "copy_last_n"];
const INSTANCES_PER_TEMPLATE = 4;
const K = 50;

interface Job {
    template: Template;
    instance: Instance;
    kind: "correct" | "wrong" | "crashing" | "slow";
    code: string;
}

function argNames(arity: number): string[] {
    return Array.from({ length: arity }, (_, i) => `a${i}`);
}

async function buildJobs(pool: JudgePool): Promise<Job[]> {
    const jobs: Job[] = [];
    for (const id of TEMPLATE_IDS) {
        let t: Template;
        try {
            t = { ...loadTemplate(id), randomInputs: K };
        } catch {
            continue; // the set is fixed, but a renamed template should not stop the benchmark
        }
        const mutant = (await pool.mutants(t))[0];
        const args = argNames(t.arity).join(", ");
        for (const instance of sampleInstances(t, INSTANCES_PER_TEMPLATE, 1)) {
            const correct = await pool.answerSource(t, instance.bindings, "solution");
            jobs.push({ template: t, instance, kind: "correct", code: correct });
            if (mutant) jobs.push({ template: t, instance, kind: "wrong", code: await pool.answerSource(t, instance.bindings, mutant) });
            jobs.push({ template: t, instance, kind: "crashing", code: `def ${t.function}(${args}):\n    raise RuntimeError("boom")\n` });
            // Correct but slow: about 2 ms of busy work per call.
            const slow = correct.replace(/\ndef (\w+)\(([^)]*)\):\n/, (_m, fn: string, a: string) => `\ndef ${fn}(${a}):\n    import time\n    _t = time.perf_counter()\n    while time.perf_counter() - _t < 0.002:\n        pass\n`);
            jobs.push({ template: t, instance, kind: "slow", code: slow });
        }
    }
    return jobs;
}

/** The baseline program: load the candidate and the oracle's input generator, call, print nothing. */
function bareProgram(job: Job): string {
    const t = job.template;
    const seed = inputSeed(t.id, paramTuple(t, job.instance.bindings));
    return [
        "import importlib.util, random",
        `spec = importlib.util.spec_from_file_location("oracle", ${JSON.stringify(t.oracleFile)})`,
        "oracle = importlib.util.module_from_spec(spec); spec.loader.exec_module(oracle)",
        `kw = dict(${Object.entries(job.instance.bindings).map(([k, v]) => `${k}=${pythonLiteral(v)}`).join(", ")})`,
        `ns = {}; exec(compile(${JSON.stringify(job.code)}, "candidate.py", "exec"), ns); f = ns[${JSON.stringify(t.function)}]`,
        `rng = random.Random(${seed})`,
        `calls = [tuple(a) for a, _ in oracle.tests(**kw)] + [tuple(oracle.inputs(rng, **kw)) for _ in range(${K})]`,
        "for a in calls:",
        "    try:",
        "        f(*a)",
        "    except Exception:",
        "        pass",
        ""
    ].join("\n");
}

/** Median ms for a pre-started Python process to fork a child that calls an empty function and exits. */
async function forkFloorMs(python: string): Promise<number> {
    const program = [
        "import os, time, statistics",
        "def empty():",
        "    pass",
        "ts = []",
        "for _ in range(300):",
        "    t = time.perf_counter()",
        "    pid = os.fork()",
        "    if pid == 0:",
        "        empty()",
        "        os._exit(0)",
        "    os.waitpid(pid, 0)",
        "    ts.append(time.perf_counter() - t)",
        "print(statistics.median(ts) * 1000)",
        ""
    ].join("\n");
    const r = await execa(python, ["-c", program]);
    return Number(r.stdout.trim());
}

async function inParallel<T>(items: T[], width: number, each: (item: T) => Promise<void>): Promise<void> {
    let next = 0;
    await Promise.all(
        Array.from({ length: width }, async () => {
            while (next < items.length) await each(items[next++]!);
        })
    );
}

const workers = availableParallelism();
const pool = await JudgePool.start({ workers });
try {
    const jobs = await buildJobs(pool);

    // One pass, cold: every candidate is new (the verdict cache never hits) and each worker
    // prepares an instance's expected outputs the first time it sees it, as in a real run.
    const t0 = performance.now();
    const verdicts = await Promise.all(jobs.map((j) => pool.judge({ template: j.template, bindings: j.instance.bindings, code: j.code })));
    const eddyWall = performance.now() - t0;

    const python = pythonCommand();
    const b0 = performance.now();
    await inParallel(jobs, workers, async (job) => {
        await execa(python, ["-c", bareProgram(job)], { reject: false, timeout: 30_000 });
    });
    const bareWall = performance.now() - b0;

    const forkFloor = await forkFloorMs(python);

    const byKind: Record<string, Record<string, number>> = {};
    jobs.forEach((j, k) => {
        const c = verdicts[k]!.category;
        byKind[j.kind] ??= {};
        byKind[j.kind]![c] = (byKind[j.kind]![c] ?? 0) + 1;
    });
    const perVerdict = eddyWall / jobs.length;
    const median = quantileSorted(verdicts.map((v) => v.ms).sort((a, b) => a - b), 0.5);
    const perBare = bareWall / jobs.length;
    console.log(
        JSON.stringify({
            verdicts: jobs.length,
            templates: new Set(jobs.map((j) => j.template.id)).size,
            random_inputs: K,
            workers,
            isolation: pool.isolation.level,
            verdicts_per_s: round(1000 / perVerdict),
            median_ms: round(median),
            fork_floor_ms: round(forkFloor, 3),
            vs_fork_floor: round(median / forkFloor, 2),
            eddy_ms_per_verdict: round(perVerdict),
            bare_ms_per_candidate: round(perBare),
            vs_bare_fork: round(perVerdict / perBare, 3),
            turbulence_ms_per_instance: 3600,
            vs_turbulence: round(perVerdict / 3600, 4),
            categories: byKind
        })
    );
} finally {
    await pool.close();
}

function round(x: number, digits = 2): number {
    const f = 10 ** digits;
    return Math.round(x * f) / f;
}
