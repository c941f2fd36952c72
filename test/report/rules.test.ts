import { describe, expect, it } from "vitest";
import { renderReport } from "../../src/report/renderReport.js";
import { renderTable, shorten, terminalWidth } from "../../src/report/terminalTable.js";
import { plannedKey } from "../../src/scores/neighbourhood.js";
import { determinismKey } from "../../src/report/types.js";
import { safeJsonStringify, safeTerminalText } from "../../src/util/safeText.js";
import { neighbourhood } from "../scores/fixtures.js";
import { sampleStudy } from "./sample.js";

/** Widest line in code points. */
const widest = (text: string) => Math.max(...text.split("\n").map((l) => [...l].length));

describe("coverage and mode in every report format", () => {
    // Template "gap": 4 instances planned... 3 judged (one all truncated) and a fifth planned but never answered.
    const outcomes = [
        ...neighbourhood([[1, 1], [1, 1], [1, 1], ["truncated", "truncated"]], { template: "gap", runId: "r-fast", model: "fastm" }),
        ...neighbourhood([[1, 0], [1, 1]], { template: "full", runId: "r-old", model: "oldm" })
    ];
    const planned = new Map([
        [plannedKey("r-fast", "gap"), { instances: 5, rounds: 2 }],
        [plannedKey("r-old", "full"), { instances: 2, rounds: 2 }]
    ]);
    // r-fast recorded its mode in the configuration metadata; r-old is from before the mode was recorded.
    const meta = [
        { id: "r-fast", config: { mode: "fast" }, configurations: [{ label: "fastm t=0 default", metadata: { mode: "fast" }, modelSha256: "f".repeat(64) }] },
        { id: "r-old", config: {}, configurations: [{ label: "oldm t=0 default", metadata: null }] }
    ];
    const determinism = new Map([[determinismKey("f".repeat(64), "fast"), { identical: false, differingShare: 0.25, created: "2026-11-20T10:00:00Z" }]]);
    const render = (f: "text" | "md" | "json" | "csv" | "html") => renderReport(outcomes, meta, f, { planned, determinism, generated: "2026-01-01T00:00:00Z" });

    it("JSON carries M, M_total, the withheld category and the mode", async () => {
        const json = JSON.parse(await render("json"));
        const gap = json.runs[0].templates[0];
        expect([gap.template, gap.M, gap.Mtotal, gap.category, gap.mode]).toEqual(["gap", 3, 5, "incomplete", "fast"]);
        const full = json.runs[1].templates[0];
        expect([full.M, full.Mtotal, full.category, full.mode]).toEqual([2, 2, "stochastic_failure", "reproducible"]);
        // The fifth planned instance of "gap" has no answer for either of its 2 rounds.
        expect(gap.harness).toEqual({ truncated: 2, judge_error: 0, missing: 2 });
        expect(json.runs.map((r: { missing: number }) => r.missing)).toEqual([2, 0]);
        expect(json.configs.map((c: { mode: string; coverage: unknown }) => [c.mode, c.coverage])).toEqual([
            ["fast", { judged: 3, total: 5 }],
            ["reproducible", { judged: 2, total: 2 }]
        ]);
    });
    it("CSV has mode, M and M_total columns", async () => {
        const [head, gap] = (await render("csv")).trim().split("\n").map((l) => l.split(","));
        const col = (name: string) => gap![head!.indexOf(name)];
        expect([col("mode"), col("M"), col("M_total"), col("category"), col("missing")]).toEqual(["fast", "3", "5", "incomplete", "2"]);
    });
    it("text, Markdown and HTML say '3 of 5', the missing category and the mode", async () => {
        for (const f of ["text", "md", "html"] as const) {
            const out = await render(f);
            expect(out, f).toContain("3 of 5");
            expect(out, f).toContain("Not categorised (under 90% judged)");
            expect(out, f).toMatch(/fast/);
            expect(out, f).toMatch(/reproducible/);
            expect(out, f).toContain("differs in 25.0% of responses (2026-11-20)");
            expect(out, f).toContain("2 answers missing");
        }
        const text = await render("text");
        // judged answers of planned ones (6 of 10: 2 truncated, 2 missing); instances with a judged answer (3 of 5) per template
        expect(text).toMatch(/^fastm t=0 default +fast +6 of 10 +1\.000/m);
        expect(text).toMatch(/^gap +3 of 5 +2 +1\.000 +1\.000 +1\.000 +Not categorised/m);
    });
});

describe("terminal tables", () => {
    it("have a header rule and no rule between rows, and fit the width by shortening text columns", () => {
        const rows = Array.from({ length: 3 }, (_, i) => [`a-very-long-template-identifier-number-${i}-with-more-words`, "0.500", `configuration label ${i} that is long`]);
        const t = renderTable(["template", "AS", "config"], rows, { width: 60 });
        const lines = t.split("\n");
        expect(lines).toHaveLength(2 + 3);
        expect(lines.filter((l) => /^[─ ]+$/.test(l))).toHaveLength(1);
        expect(widest(t)).toBeLessThanOrEqual(60);
        expect(lines[2]).toContain("0.500"); // numbers are never shortened
        expect(lines[2]).toContain("…");
        const wide = renderTable(["template", "AS", "config"], rows, { width: 60, wide: true });
        expect(wide).toContain(rows[0]![0]);
        expect(widest(wide)).toBeGreaterThan(60);
    });
    it("take the terminal's width when stdout is one, else 100 columns", () => {
        expect(terminalWidth({ isTTY: true, columns: 80 })).toBe(80);
        expect(terminalWidth({ isTTY: false, columns: 80 })).toBe(100);
        expect(terminalWidth({})).toBe(100);
    });
    it("shorten ids in the middle and text at the end", () => {
        expect(shorten("20261122-3fa9c1-abcdef", 11, "middle")).toBe("20261…bcdef");
        expect(shorten("inconsistent", 6)).toBe("incon…");
        expect(shorten("short", 6)).toBe("short");
    });
    it("the text report fits 100 columns, even with long labels, and --wide shows them whole", async () => {
        const long = "model-with-a-really-quite-long-file-name-Q4_K_M-instruct-v2";
        const outcomes = [...sampleStudy(), ...neighbourhood([[1, 0], [0, 0]], { template: "template_with_an_unusually_long_identifier_for_tests", model: long, runId: "run-a" })];
        const text = await renderReport(outcomes, [{ id: "run-a" }, { id: "run-b" }], "text", { width: 100 });
        expect(widest(text)).toBeLessThanOrEqual(100);
        // An 80-column terminal too.
        expect(widest(await renderReport(sampleStudy(), [{ id: "run-a" }, { id: "run-b" }], "text", { width: 80 }))).toBeLessThanOrEqual(80);
        expect(text.split("\n").some((l) => l.includes("…"))).toBe(true);
        const wide = await renderReport(outcomes, [{ id: "run-a" }, { id: "run-b" }], "text", { width: 100, wide: true });
        expect(wide).toContain(`${long} t=0 default`);
        expect(widest(wide)).toBeGreaterThan(100);
    });
});

describe("control characters in text outputs", () => {
    it("safeTerminalText escapes C0 (but \\n and \\t), DEL, C1 and bidi controls", () => {
        expect(safeTerminalText("a\x1b[31mred\x07\r\nb\tc\x7f\x9b\u202eX")).toBe("a\\x1b[31mred\\x07\\x0d\nb\tc\\x7f\\x9b\\u{202e}X");
        expect(safeTerminalText("plain ünïcode – δ")).toBe("plain ünïcode – δ");
    });
    it("safeJsonStringify keeps the value and escapes what JSON.stringify leaves raw", () => {
        const v = { s: "x\x1b\x9b\u202ey" };
        const out = safeJsonStringify(v);
        expect(out).toBe('{"s":"x\\u001b\\u009b\\u202ey"}');
        expect(JSON.parse(out)).toEqual(v);
    });
    it("text, Markdown and CSV reports never carry a raw escape sequence from a label", async () => {
        const evil = neighbourhood([[1, 0]], { template: "t\x1b[2J\x1b[31mpassed\r", model: "m\x9b31m" });
        for (const f of ["text", "md", "csv"] as const) {
            const out = await renderReport(evil, [{ id: "run1" }], f);
            expect(out, f).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
            expect(out, f).toContain("t\\x1b[2J\\x1b[31mpassed\\x0d");
        }
    });
});
