/**
 * Issue #47: one rule for numbers. `eddy quant` printed `AS 0.0%` beside `ΔAS +0.000`; every score (AS, CPS, CCS,
 * pass@1…) now reads as a fraction with its decimals, and a difference of scores signed with the same decimals,
 * in the terminal, the reports and the viewer (src/report/scoreTable.ts scoreValue/scoreDelta); percentages are
 * for shares of counts only.
 */
import { describe, expect, it } from "vitest";
import type { QuantFile } from "../../src/quant/models/checkSameModel.js";
import { renderQuantHtml } from "../../src/quant/report/renderQuantHtml.js";
import { renderQuantText } from "../../src/quant/report/renderQuantText.js";
import { recommendationTable } from "../../src/quant/report/recommendationTable.js";
import { buildQuantReport } from "../../src/quant/study/buildQuantReport.js";
import { renderReport } from "../../src/report/renderReport.js";
import { scoreDelta, scoreValue } from "../../src/report/scoreTable.js";
import { outcomes } from "../quant/fixtures.js";
import { sampleStudy } from "./sample.js";

const file = (name: string, quantization: string, sizeBytes: number): QuantFile => ({ path: `/m/${name}.gguf`, quantization, sizeBytes, architecture: "llama", vocabulary: 512, tensors: 48 });
const FILES = [file("m-f16", "F16", 4000), file("m-q8_0", "Q8_0", 2100), file("m-q4_0", "Q4_0", 1200)];
const all = (s: string) => Array<string>(10).fill(s);

function quantReport() {
    return buildQuantReport({
        runId: "run-1", db: "/tmp/x.db", study: { templates: ["t1"], instances: 10, rounds: 2, seed: 1, temperature: 0, wrapper: "default", maxTokens: 64 },
        // F16 passes everything; Q8_0 loses one round of one instance; Q4_0 fails everything.
        files: FILES, reference: "/m/m-f16.gguf",
        outcomes: [...outcomes("m-f16", { t1: all("PP") }), ...outcomes("m-q8_0", { t1: ["PA", ...all("PP").slice(1)] }), ...outcomes("m-q4_0", { t1: all("AA") })],
        driftSource: "skipped", driftTexts: 0,
        configurations: FILES.map((f) => ({ modelPath: f.path, quantization: f.quantization, promptTokensPerS: 500, generationTokensPerS: 50 })), bootstrapSeed: 3
    });
}

describe("scores read as fractions, their differences signed with the same decimals", () => {
    it("the rule, defined once", () => {
        expect(scoreValue("AS", 0)).toBe("0.000");
        expect(scoreValue("CCS", 2 / 3)).toBe("0.667");
        expect(scoreValue("pass@1", 1)).toBe("1.000");
        expect(scoreValue("pass@5", 0.5)).toBe("0.500");
        expect(scoreValue("AV", 0.25)).toBe("0.2500");
        expect(scoreValue("AS", null)).toBe("–");
        expect(scoreDelta("AS", -0.05)).toBe("-0.050");
        expect(scoreDelta("AS", 0.125)).toBe("+0.125");
        expect(scoreDelta("AS", 0)).toBe("+0.000");
        // A difference that rounds to zero has no minus sign.
        expect(scoreDelta("AS", -0.0001)).toBe("+0.000");
        expect(scoreDelta("AS", NaN)).toBe("–");
    });

    it("eddy quant: the scores and their deltas, in the terminal, the HTML report and the recommendation the viewer draws", async () => {
        const r = quantReport();
        const t = recommendationTable(r);
        const q4 = t.rows.find((row) => row.label === "Q4_0")!;
        const f16 = t.rows.find((row) => row.reference)!;
        // Q4_0: AS 0 (was "0.0%"), ΔAS −1 (was "-1.000"): the same form.
        expect([q4.cells.as!.text, q4.cells.das!.text, q4.cells.ccs!.text, q4.cells.dccs!.text, q4.cells.cps!.text]).toEqual(["0.000", "-1.000", "0.000", "-1.000", "0.000"]);
        expect([f16.cells.as!.text, f16.cells.pass1!.text]).toEqual(["1.000", "1.000"]);
        for (const row of t.rows)
            for (const key of ["pass1", "as", "das", "cps", "dcps", "ccs", "dccs"]) expect(row.cells[key]!.text, `${row.label} ${key}`).toMatch(/^([+-]?\d\.\d{3}|–)$/);
        const text = renderQuantText(r);
        expect(text).toMatch(/^Q4_0 .* 0\.000 .* -1\.000 /m);
        // Quality and consistency lines (scores and deltas) hold no percentage; top-1 token agreement (a share) may.
        for (const line of text.split("\n").filter((l) => /^(F16|Q8_0|Q4_0)\b/.test(l) && /[+-]\d\.\d{3}|\b[01]\.\d{3}\b/.test(l) && !/MiB/.test(l))) expect(line).not.toMatch(/%/);
        const page = await renderQuantHtml(r);
        // The per-template breakdown: AS and CCS reference → file, fractions too.
        expect(page).toMatch(/1\.000 → 0\.000/);
        expect(page).not.toMatch(/100\.0% → 0\.0%/);
    });

    it("eddy report: the same scores in the same form in text, Markdown and HTML (category shares stay percentages)", async () => {
        const outcomes = sampleStudy();
        for (const f of ["text", "md", "html"] as const) {
            const out = await renderReport(outcomes, [], f, { generated: "2026-01-01T00:00:00Z" });
            expect(out, f).toMatch(/\b[01]\.\d{3}\b/);
            // No score as a percentage: a percentage only follows a category or verdict share's label.
            expect(out, f).not.toMatch(/\b(AS|CPS|CCS|pass@1)\b[ :=]+\d+(\.\d)?%/);
        }
    });
});
