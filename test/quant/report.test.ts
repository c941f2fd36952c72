import { describe, expect, it } from "vitest";
import type { DriftReport, DriftResult } from "../../src/quant/drift/types.js";
import type { QuantFile } from "../../src/quant/models/checkSameModel.js";
import { paretoFront, textScatter } from "../../src/quant/report/pareto.js";
import { renderQuantHtml } from "../../src/quant/report/renderQuantHtml.js";
import { renderQuantText } from "../../src/quant/report/renderQuantText.js";
import { recommendationTable } from "../../src/quant/report/recommendationTable.js";
import { buildQuantReport } from "../../src/quant/study/buildQuantReport.js";
import { outcomes } from "./fixtures.js";

const file = (name: string, quantization: string, sizeBytes: number): QuantFile => ({ path: `/m/${name}.gguf`, quantization, sizeBytes, architecture: "llama", vocabulary: 512, tensors: 48 });
const FILES = [file("m-f16", "F16", 4000), file("m-q8_0", "Q8_0", 2100), file("m-q4_0", "Q4_0", 1200), file("m-q2_k", "Q2_K", 800)];

function drift(path: string, kl: number, top1: number): DriftResult {
    return { file: path, positions: 100, top1_agreement: top1, kl_mean: kl, kl_p50: kl / 2, kl_p90: kl * 2, kl_p99: kl * 4, kl_max: kl * 8, truncated_texts: 0, eval_tokens_per_s: 1000, memory: { modelRamBytes: 1000, modelVramBytes: 0, contextBytes: 500 } };
}

// Ten instances of one template, 2 rounds each. Q8_0 answers like F16; Q4_0 loses one instance and
// gains another; Q2_K fails everything F16 solves (10 instances lost: McNemar p = 2·0.5^10 ≈ 0.002).
const all = (s: string) => Array<string>(10).fill(s);
const OUT = [
    ...outcomes("m-f16", { t1: all("PP") }),
    ...outcomes("m-q8_0", { t1: all("PP") }),
    ...outcomes("m-q4_0", { t1: ["PA", ...all("PP").slice(1)] }),
    ...outcomes("m-q2_k", { t1: all("AN") })
];

function report() {
    const d: DriftReport = {
        reference: "/m/m-f16.gguf", vocabulary: 512, texts: 4, referenceMemory: { modelRamBytes: 4000, modelVramBytes: 0, contextBytes: 500 },
        results: [drift("/m/m-f16.gguf", 0, 1), drift("/m/m-q8_0.gguf", 0.001, 0.99), drift("/m/m-q4_0.gguf", 0.05, 0.9), drift("/m/m-q2_k.gguf", 0.4, 0.7)]
    };
    return buildQuantReport({
        runId: "run-1", db: "/tmp/x.db", study: { templates: ["t1"], instances: 10, rounds: 2, seed: 1, temperature: 0, wrapper: "default", maxTokens: 64 },
        files: FILES, reference: "/m/m-f16.gguf", outcomes: OUT, drift: d, driftSource: "reference answers", driftTexts: 4,
        configurations: FILES.map((f) => ({ modelPath: f.path, quantization: f.quantization, promptTokensPerS: 500, generationTokensPerS: 50 })), bootstrapSeed: 3
    });
}

describe("quantisation report", () => {
    it("compares each file with the reference and picks the cheapest not significantly worse", () => {
        const r = report();
        const [f16, q8, q4, q2] = r.files;
        expect(f16!.reference).toBe(true);
        expect(q8!.scores.AS.delta).toBe(0);
        expect(q4!.flip_counts.responses).toMatchObject({ lost: 1, gained: 0 });
        expect(q4!.flip_counts.instances).toMatchObject({ lost: 1, gained: 0 });
        expect(q4!.not_worse).toBe(true); // one loss is no evidence: McNemar p = 1
        expect(q2!.flip_counts.instances.lost).toBe(10);
        expect(q2!.mcnemar.instance.p).toBeCloseTo(2 / 1024, 10); // exact binomial: 2·0.5^10
        expect(q2!.scores.AS.ci.hi).toBeLessThan(0);
        expect(q2!.not_worse).toBe(false);
        expect(r.cheapest_not_worse).toBe("/m/m-q4_0.gguf");
        expect(q2!.transitions).toEqual({ "passed→assertion_error": 10, "passed→no_function": 10 });
        // the JSON contract: per file at least quantization, top1_agreement, kl_mean
        const json = JSON.parse(JSON.stringify(r));
        for (const f of json.files) expect(Object.keys(f)).toEqual(expect.arrayContaining(["quantization", "top1_agreement", "kl_mean"]));
        expect(json.files.map((f: { quantization: string }) => f.quantization)).toEqual(["F16", "Q8_0", "Q4_0", "Q2_K"]);
    });

    it("renders a terminal table with a Pareto plot, and a self-contained HTML page with charts and drill-down", async () => {
        const r = report();
        const text = renderQuantText(r);
        expect(text).toContain("Cheapest file not significantly worse than the reference: Q4_0");
        expect(text).toMatch(/Q2_K .*NO/);
        expect(text).toContain("top-1 agreement ↑");
        expect(text).toContain("− t1#0 (0) round 1: passed → assertion_error");
        const html = await renderQuantHtml(r);
        expect(html.match(/<svg/g)?.length).toBe(2);
        expect(html).toContain("<details");
        expect(html).toContain("passed → assertion_error");
        expect(html).not.toMatch(/<script|<link|src="http/);
    });
});

describe("the recommendation table: one builder, drawn by the terminal, the HTML report and the viewer", () => {
    it("puts every cell the builder makes into both renderings, tokens per CPU-second and the configuration to ship included", async () => {
        const r = buildQuantReport({
            runId: "run-1", db: "/tmp/x.db", study: { templates: ["t1"], instances: 10, rounds: 2, seed: 1, temperature: 0, wrapper: "default", maxTokens: 64 },
            files: FILES, reference: "/m/m-f16.gguf", outcomes: OUT, driftSource: "skipped", driftTexts: 0,
            configurations: FILES.map((f, i) => ({ modelPath: f.path, quantization: f.quantization, promptTokensPerS: 500, generationTokensPerS: 50, tokensPerCpuSecond: 100 * (i + 1) + 0.4 })), bootstrapSeed: 3
        });
        expect(r.files.map((f) => f.tokens_per_cpu_second)).toEqual([100.4, 200.4, 300.4, 400.4]);
        const t = recommendationTable(r);
        expect(t.rows.filter((row) => row.recommended).map((row) => row.label)).toEqual(["Q4_0"]);
        expect(t.columns.map((c) => c.head)).toEqual(expect.arrayContaining(["bits/weight", "size", "pass@1 [95% CI]", "AS", "CPS", "CCS", "McNemar p", "lost/gained inst", "top-1 agree", "KL mean", "tok/CPU-s", "not worse"]));
        const text = renderQuantText(r);
        const page = await renderQuantHtml(r);
        for (const row of t.rows) {
            // HTML: the row's cell of each column, tags stripped, is the builder's text and note
            const tr = new RegExp(`<tr class="[a-z]*" data-config="${row.file.model}">(.*?)</tr>`, "s").exec(page)?.[1];
            expect(tr, row.label).toBeDefined();
            for (const c of t.columns) {
                const cell = row.cells[c.key]!;
                const td = new RegExp(`<td class="[a-z]*" data-col="${c.key}">(.*?)</td>`, "s").exec(tr!)?.[1]?.replace(/<[^>]+>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&#39;/g, "'").replace(/&amp;/g, "&");
                expect(td, `${row.label} ${c.key}`).toBe(cell.note ? `${cell.text} ${cell.note}` : cell.text);
            }
            // terminal: each group's line for the row holds the group's cells in order
            const name = row.label + (row.reference ? " (ref)" : "") + (row.recommended ? " (ship)" : "");
            for (const g of ["quality", "consistency", "evidence", "cost"]) {
                const cells = t.columns.filter((c) => c.group === g).map((c) => row.cells[c.key]!).map((c) => (c.note ? `${c.text} ${c.note}` : c.text));
                const line = new RegExp(`^${name.replace(/[()]/g, "\\$&")} +${cells.map((c) => c.replace(/[[\]().+*?^$|]/g, "\\$&")).join(" +")}$`, "m");
                expect(text, `${name} ${g}`).toMatch(line);
            }
        }
        expect(text).toMatch(/^Q4_0 \(ship\) +/m);
    });
});

describe("quantisation verdict on too little data", () => {
    const tiny = (out: typeof OUT) =>
        buildQuantReport({
            runId: "run-2", db: "/tmp/x.db", study: { templates: ["t1"], instances: 3, rounds: 1, seed: 1, temperature: 0, wrapper: "default", maxTokens: 64 },
            files: FILES.slice(0, 3), reference: "/m/m-f16.gguf", outcomes: out, driftSource: "skipped", driftTexts: 0,
            configurations: FILES.slice(0, 3).map((f) => ({ modelPath: f.path, quantization: f.quantization, promptTokensPerS: 500, generationTokensPerS: 50 })), bootstrapSeed: 3
        });

    it("names no winner on 3 instances × 1 round with every AS at 0, and says what would be enough", async () => {
        const r = tiny([...outcomes("m-f16", { t1: ["A", "A", "A"] }), ...outcomes("m-q8_0", { t1: ["A", "A", "A"] }), ...outcomes("m-q4_0", { t1: ["A", "A", "A"] })]);
        expect(r.files.slice(1).map((f) => [f.not_worse, f.evidence])).toEqual([
            [null, { reference_passed: 0, needed: 6, enough: false }],
            [null, { reference_passed: 0, needed: 6, enough: false }]
        ]);
        expect(r.cheapest_not_worse).toBeNull();
        expect(r.verdict.decided).toBe(false);
        expect(r.verdict.text).toMatch(/^Too little data to decide whether Q4_0 is worse than the reference: the reference passed 0 of the compared answers.*at least 6 reference passes/);
        const text = renderQuantText(r);
        expect(text).not.toContain("Cheapest file not significantly worse");
        expect(text).toContain("Too little data to decide");
        expect(text).toMatch(/Q4_0 .*n\/a/);
        // HTML says the same, not the reference as the "cheapest".
        const html = await renderQuantHtml(r);
        expect(html).toMatch(/<p id="verdict">Too little data to decide whether Q4_0/);
    });

    it("with enough reference passes, decides; with nothing compared, shows no McNemar p", () => {
        const six = tiny([...outcomes("m-f16", { t1: ["PP", "PP", "PP"] }), ...outcomes("m-q8_0", { t1: ["PP", "PP", "PP"] }), ...outcomes("m-q4_0", { t1: ["PP", "PP", "PP"] })]);
        expect(six.verdict).toMatchObject({ decided: true, file: "/m/m-q4_0.gguf" });
        const none = tiny([...outcomes("m-f16", { t1: ["PP", "PP", "PP"] }), ...outcomes("m-q8_0", { t1: ["PP", "PP", "PP"] }), ...outcomes("m-q4_0", { t1: ["TT", "TT", "TT"] })]);
        const q4 = none.files[2]!;
        expect([q4.instances, q4.not_worse]).toEqual([0, null]);
        expect(none.verdict.text).toMatch(/Q4_0 .*no instance could be compared/);
        // Q4_0: 0 compared, no p (a p of 1 would read as evidence).
        expect(renderQuantText(none)).toMatch(/^Q4_0 +0 +– +0\/0 +0\/0$/m);
    });
});

describe("Pareto front", () => {
    it("keeps the points nothing cheaper beats", () => {
        const pts = [
            { id: "a", cost: 4, quality: 0.9 },
            { id: "b", cost: 2, quality: 0.9 },
            { id: "c", cost: 1, quality: 0.5 },
            { id: "d", cost: 3, quality: 0.6 },
            { id: "e", cost: 5, quality: 0.95 }
        ];
        // a is beaten by b (cheaper, as good); d by b; c, b and e each are the cheapest at their quality
        expect([...paretoFront(pts)].sort()).toEqual(["b", "c", "e"]);
        const plot = textScatter(pts.map((p) => ({ ...p, label: p.id })), { xLabel: "MiB", yLabel: "AS", width: 20, height: 5 });
        expect(plot.split("\n").filter((l) => l.includes("|"))).toHaveLength(5);
        expect(plot).toContain("  B * b");
        expect(plot).toContain("  A   a");
    });
});
