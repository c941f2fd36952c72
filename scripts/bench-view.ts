/**
 * `eddy view` on a large store: generates a study of 100,000 judged answers (4 configurations ×
 * 50 templates × 100 instances × 5 rounds, with response text) into a fresh database through the
 * store's API, serves it, and times each page over HTTP. Prints one JSON object: per page, the
 * milliseconds of the first request (cold) and of a second one (warm), and their ratio against the baseline measured in the same run: reading the run's answers as
 * `eddy report` does (loadOutcomes). The viewer scores the newest run as it starts (startupMs);
 * runPageColdMs is the run page of a viewer that has not (every neighbourhood scored), and
 * runPageAfterAWriteMs the run page reloaded after another connection wrote one answer (a running
 * study: only that answer's neighbourhood is scored again), leaderboardAfterAWriteMs the front page
 * reloaded after another (the run's leaderboard rows built again).
 *
 *   npx tsx scripts/bench-view.ts [--templates 50] [--instances 100] [--rounds 5] [--configs 4] [--keep]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { PROBLEM_GROUPS } from "../src/templates/taxonomy.js";
import { loadOutcomes } from "../src/store/outcomes.js";
import { openStore } from "../src/store/Store.js";
import type { NewGeneration, NewVerdict } from "../src/store/types.js";
import type { Category } from "../src/vocabulary.js";
import { startViewer } from "../src/view/server.js";
import { answersUrl, auditsUrl, compareUrl, instanceUrl, leaderboardUrl, runsUrl, runUrl, templateUrl } from "../src/view/urls.js";

function arg(name: string, dflt: number): number {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}

const T = arg("templates", 50);
const M = arg("instances", 100);
const R = arg("rounds", 5);
const C = arg("configs", 4);
const FAILS: Category[] = ["assertion_error", "fuzzing_failure", "runtime_error", "syntax_error", "no_function"];
const RUN = "bench-view";

const dir = mkdtempSync(path.join(tmpdir(), "eddy-bench-view-"));
const db = path.join(dir, "eddy.db");

/** The study, written as eddy run writes one: run, templates, instances, configurations, then one batch per configuration. */
function generate(): number {
    const rng = xoroshiro128plus(7);
    const u = () => uniformFloat64(rng);
    const store = openStore(db);
    try {
        store.createOrFindRun({ id: RUN, configHash: "bench", config: { templates: "bench", instances: M, rounds: R }, eddyVersion: "bench", backend: "synthetic", seed: 1 }, false);
        const templates = Array.from({ length: T }, (_, t) => ({ id: `template_${String(t).padStart(2, "0")}`, oracleHash: "h", group: PROBLEM_GROUPS[t % PROBLEM_GROUPS.length]!, subgroups: [`sub${t % 4}`], function: `f${t}` }));
        store.recordTemplates(RUN, templates);
        for (const t of templates)
            store.insertInstances(
                RUN,
                Array.from({ length: M }, (_, i) => ({ templateId: t.id, index: i, params: [i, i + (i % 7)], bindings: { lo: i, hi: i + (i % 7) }, question: `Write ${t.function}(values) returning the sum of values[${i}:${i + (i % 7)}].` }))
            );
        let n = 0;
        for (let c = 0; c < C; c++) {
            // Two models, each in two quantisations (a model label is its file's stem, so each quantisation has its own).
            const quantization = c % 2 ? "Q4_0" : "Q8_0";
            const conf = store.upsertConfiguration({ runId: RUN, model: `model-${c >> 1}-${quantization}`, quantization, temperature: 0, wrapper: "default", decoding: { temperature: 0 } as never });
            const generations: NewGeneration[] = [];
            const verdicts: NewVerdict[] = [];
            for (const t of templates)
                for (let i = 0; i < M; i++)
                    for (let r = 0; r < R; r++) {
                        const category: Category = u() < 0.7 + 0.05 * c ? "passed" : FAILS[Math.floor(u() * FAILS.length)]!;
                        const code = `def ${t.function}(values):\n    total = 0\n    for v in values[${i}:${i + (i % 7)}]:\n        total += v\n    return total${category === "passed" ? "" : " + 1"}\n`;
                        const key = { configId: conf.id, templateId: t.id, instance: i, round: r };
                        generations.push({ ...key, seed: n, prompt: JSON.stringify([{ role: "user", content: `question ${t.id} #${i}` }]), response: `Here is the function.\n\`\`\`python\n${code}\`\`\`\nIt sums the slice.${n === 77_777 ? " needle-in-the-haystack" : ""}`, code, stopReason: "eos", promptTokens: 60, generatedTokens: 80, ttftMs: 5, genMs: 40 } as never);
                        verdicts.push({ ...key, category, judgeCategory: category, detail: category === "passed" ? "4 fixed tests and 50 random inputs agree" : `fixed test 1: ${t.function}([1, 2, 3]) expected 6, got 7`, ms: 20 });
                        n++;
                    }
            store.writeBatch({ generations, verdicts, responses: [], verdictCache: [] });
        }
        store.setRunStatus(RUN, "complete");
        return n;
    } finally {
        store.close();
    }
}

const g0 = performance.now();
const answers = generate();
const generateMs = performance.now() - g0;

// Baseline: the run's answers read as `eddy report` reads them (every text included).
const b0 = performance.now();
const store = openStore(db, { readonly: true });
loadOutcomes(store, [RUN]);
store.close();
const baselineMs = performance.now() - b0;

if (process.argv.includes("--only-generate")) { console.log(db); process.exit(0); }
// The run page of a viewer that has not scored the run yet (started with warm: false): every neighbourhood scored.
const cold = await startViewer({ db, port: 0, warm: false });
const r0 = performance.now();
await (await fetch(cold.url.replace(/\/$/, "") + runUrl(RUN))).text();
const runPageColdMs = performance.now() - r0;
await cold.close();

const s0 = performance.now();
const viewer = await startViewer({ db, port: 0 });
const startupMs = performance.now() - s0;
const origin = viewer.url.replace(/\/$/, "");
const pages: Record<string, string> = {
    leaderboard: leaderboardUrl(),
    "leaderboard sorted by CCS, filtered": leaderboardUrl({ sort: "CCS", dir: "asc", quant: "Q4_0" }),
    runs: runsUrl(),
    run: runUrl(RUN),
    template: templateUrl(RUN, "template_07"),
    instance: instanceUrl(RUN, 2, "template_07", 42),
    answers: answersUrl({}),
    "answers page 100": answersUrl({ page: 100 }),
    "answers failing in a template": answersUrl({ run: RUN, template: "template_31", category: "failing" }),
    "answers search (one match)": answersUrl({ q: "needle-in-the-haystack" }),
    "compare (flips side by side)": compareUrl(1, 2),
    "compare gained, page 2, sorted": compareUrl(1, 2, { flips: "gained", page: 2, sort: "dCCS" }),
    audits: auditsUrl()
};
const timings: Record<string, { coldMs: number; warmMs: number; bytes: number; status: number; coldRatio: number; warmRatio: number }> = {};
for (const [name, url] of Object.entries(pages)) {
    const get = async () => {
        const s = performance.now();
        const res = await fetch(origin + url);
        const body = await res.text();
        return { ms: performance.now() - s, bytes: Buffer.byteLength(body), status: res.status };
    };
    const cold = await get();
    const warm = await get();
    timings[name] = { coldMs: Math.round(cold.ms), warmMs: Math.round(warm.ms), bytes: warm.bytes, status: warm.status, coldRatio: Number((cold.ms / baselineMs).toFixed(2)), warmRatio: Number((warm.ms / baselineMs).toFixed(2)) };
}
const failed = Object.entries(timings).filter(([, t]) => t.status !== 200);
if (failed.length) throw new Error(`pages that did not answer 200: ${failed.map(([n, t]) => `${n} (${t.status})`).join(", ")}`);
/** One answer written by another connection, as a running study writes it. */
function writeOne(instance: number): void {
    const writer = openStore(db);
    const key = { configId: 1, templateId: "template_03", instance, round: R };
    writer.writeBatch({
        generations: [{ ...key, seed: 1, prompt: "[]", response: "late", code: null, stopReason: "eos", promptTokens: 1, generatedTokens: 1, ttftMs: 1, genMs: 1 } as never],
        verdicts: [{ ...key, category: "passed", judgeCategory: "passed", detail: "", ms: 1 }],
        responses: [],
        verdictCache: []
    });
    writer.close();
}
// A running study: one answer written, then the run page reloaded (its neighbourhood rescored).
writeOne(5);
const w0 = performance.now();
const after = await (await fetch(origin + runUrl(RUN))).text();
const runPageAfterAWriteMs = performance.now() - w0;
if (!after.includes("Configurations")) throw new Error("the run page after a write did not render");
// Another answer, then the leaderboard reloaded: the run's data and its leaderboard rows built again.
writeOne(6);
const l0 = performance.now();
const board = await (await fetch(origin + leaderboardUrl())).text();
const leaderboardAfterAWriteMs = performance.now() - l0;
if (!board.includes('id="board"')) throw new Error("the leaderboard after a write did not render");
await viewer.close();
if (!process.argv.includes("--keep")) rmSync(dir, { recursive: true, force: true });
console.log(
    JSON.stringify({
        study: { templates: T, instances: M, rounds: R, configs: C, answers },
        generateMs: Math.round(generateMs),
        baseline: { what: "loadOutcomes of the run (what eddy report reads)", ms: Math.round(baselineMs) },
        startupMs: Math.round(startupMs),
        runPageColdMs: Math.round(runPageColdMs),
        runPageAfterAWriteMs: Math.round(runPageAfterAWriteMs),
        leaderboardAfterAWriteMs: Math.round(leaderboardAfterAWriteMs),
        pages: timings,
        slowestWarmMs: Math.max(...Object.values(timings).map((t) => t.warmMs)),
        slowestColdMs: Math.max(...Object.values(timings).map((t) => t.coldMs)),
        ...(process.argv.includes("--keep") ? { db } : {})
    })
);
