/**
 * Report speed and size on a large synthetic study: 60 templates × 100 instances × 5 rounds ×
 * 4 configurations (120,000 judged responses). Prints one JSON object: per format, milliseconds
 * and bytes, with ratios against the baseline of scoring alone (scoreNeighbourhoods) measured in the same run.
 *
 *   npx tsx scripts/bench-report.ts [--templates 60] [--instances 100] [--rounds 5] [--configs 4]
 */
import { performance } from "node:perf_hooks";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import type { Category } from "../src/vocabulary.js";
import { PROBLEM_GROUPS } from "../src/templates/taxonomy.js";
import { scoreNeighbourhoods } from "../src/scores/neighbourhood.js";
import type { Outcome } from "../src/vocabulary.js";
import { renderReport } from "../src/report/renderReport.js";
import { REPORT_FORMATS } from "../src/report/types.js";

function arg(name: string, dflt: number): number {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}

const T = arg("templates", 60);
const M = arg("instances", 100);
const R = arg("rounds", 5);
const C = arg("configs", 4);
const FAILS: Category[] = ["assertion_error", "fuzzing_failure", "runtime_error", "syntax_error", "no_function", "static_error", "resource_exhaustion"];

/** Synthetic outcomes: each configuration has a skill, each template a difficulty, a few instances are "holes". */
function synthesise(): Outcome[] {
    const rng = xoroshiro128plus(42);
    const u = () => uniformFloat64(rng);
    const out: Outcome[] = [];
    for (let c = 0; c < C; c++) {
        const model = `model-${Math.floor(c / 2)}`;
        const temperature = c % 2 === 0 ? 0 : 0.8;
        const config = `${model} t=${temperature} default`;
        const skill = 0.55 + 0.1 * c;
        for (let t = 0; t < T; t++) {
            const difficulty = ((t * 37) % 100) / 100;
            const group = PROBLEM_GROUPS[t % PROBLEM_GROUPS.length]!;
            for (let i = 0; i < M; i++) {
                const lo = i < 4 ? [0, 7, 0, 9][i]! : Math.floor(u() * 1000);
                const hi = i < 4 ? [0, 7, 1, 10][i]! : lo + Math.floor(u() * 1000);
                const hole = lo === hi || u() < 0.03;
                const p = hole ? 0.05 : Math.max(0, Math.min(1, skill + 0.4 - difficulty + (u() - 0.5) * 0.3));
                for (let r = 0; r < R; r++) {
                    const roll = u();
                    const category: Category = roll < 0.004 ? "truncated" : roll < 0.005 ? "judge_error" : u() < p ? "passed" : FAILS[Math.floor(u() * FAILS.length)]!;
                    out.push({
                        runId: `bench-${model}`,
                        config,
                        model,
                        quantization: "Q4_0",
                        temperature,
                        wrapper: "default",
                        template: `template_${String(t).padStart(2, "0")}`,
                        group,
                        subgroups: [`sub${t % 4}`],
                        instance: i,
                        params: [lo, hi],
                        round: r,
                        seed: (c * 1e6 + t * 1e4 + i * 10 + r) >>> 0,
                        category,
                        detail: category === "passed" ? "" : `${category}: f(${lo}, ${hi}) expected 42, got 41`,
                        code: `def template_${t}(values):\n    return sum(values[${lo}:${hi}])\n`,
                        response: `\`\`\`python\ndef template_${t}(values):\n    return sum(values[${lo}:${hi}])\n\`\`\``
                    });
                }
            }
        }
    }
    return out;
}

const t0 = performance.now();
const outcomes = synthesise();
const synthMs = performance.now() - t0;
const runMeta = [...new Set(outcomes.map((o) => o.runId))].map((id) => ({ id, status: "complete", backend: "synthetic" }));

const b0 = performance.now();
scoreNeighbourhoods(outcomes);
const baselineMs = performance.now() - b0;

const formats: Record<string, { ms: number; bytes: number; ratio: number; widestLine?: number }> = {};
for (const f of REPORT_FORMATS) {
    const s = performance.now();
    const text = await renderReport(outcomes, runMeta, f, { generated: "2026-01-01T00:00:00.000Z", width: 100 });
    const ms = performance.now() - s;
    formats[f] = { ms: Math.round(ms), bytes: Buffer.byteLength(text), ratio: Number((ms / baselineMs).toFixed(2)) };
    // The text report is fitted to 100 columns (not a TTY): its widest line, in characters.
    if (f === "text") formats[f].widestLine = Math.max(...text.split("\n").map((l) => [...l].length));
}
console.log(
    JSON.stringify({
        study: { templates: T, instances: M, rounds: R, configs: C, outcomes: outcomes.length },
        synthesiseMs: Math.round(synthMs),
        baseline: { what: "scoreNeighbourhoods alone", ms: Math.round(baselineMs) },
        formats,
        heapMB: Math.round(process.memoryUsage().heapUsed / 2 ** 20)
    })
);
