import { describe, expect, it } from "vitest";
import { buildReport } from "../../src/report/buildReport.js";
import { renderReport } from "../../src/report/renderReport.js";
import { stripSpec } from "../../src/report/charts.js";
import { csvField } from "../../src/report/csv.js";
import { scoreNeighbourhoods } from "../../src/scores/neighbourhood.js";
import { neighbourhood } from "../scores/fixtures.js";
import { sampleStudy } from "./sample.js";

const meta = [{ id: "run-a", status: "complete" }, { id: "run-b" }];

describe("report data and formats", () => {
    const outcomes = sampleStudy();
    it("groups neighbourhood rows per run with AS, CPS, CCS and category", () => {
        const { data } = buildReport(outcomes, meta);
        expect(data.runs.map((r) => [r.id, r.configs.length, r.templates.length])).toEqual([
            ["run-a", 2, 12],
            ["run-b", 1, 6]
        ]);
        const row = data.runs[0]!.templates.find((t) => t.template === "sum_index_range" && t.config === "tiny-a t=0 default")!;
        expect([row.AS, row.CPS, row.CCS, row.category]).toEqual([1, 1, 1, "perfect_success"]);
        // equal-bounds instances (i % 7 === 3) never pass outside perfect-success neighbourhoods: found as discontinuities with that pattern
        const d = data.discontinuities.find((x) => x.template === "sum_index_range" && x.config === "tiny-a t=0.8 default")!;
        expect(d.instances.filter((i) => i.kind === "never_solved").map((i) => i.params)).toEqual([
            [3, 3],
            [10, 10],
            [17, 17]
        ]);
        expect(d.patterns.map((p) => p.id)).toContain("eq:p1,p2");
    });
    it("says plainly when a run's answers ran without a sandbox, and only then", async () => {
        const bare = [{ id: "run-a", status: "complete", isolationLevel: "NO-SANDBOX rlimits+seccomp" }, { id: "run-b", isolationLevel: "netns+pidns+uid" }];
        for (const format of ["text", "md", "html"] as const) {
            expect(await renderReport(outcomes, bare, format)).toContain("ran WITHOUT a sandbox");
            expect(await renderReport(outcomes, meta, format)).not.toContain("WITHOUT a sandbox");
        }
    });
    it("JSON carries the rows without per-instance data, and the comparison", async () => {
        const json = JSON.parse(await renderReport(outcomes, meta, "json"));
        expect(json.runs[1].templates[0]).toHaveProperty("AS");
        expect(json.runs[1].templates[0]).not.toHaveProperty("instances");
        expect(json.comparison.configs).toHaveLength(3);
    });
    it("CSV has one row per run × configuration × template", async () => {
        const csv = (await renderReport(outcomes, meta, "csv")).trim().split("\n");
        expect(csv).toHaveLength(1 + 18);
        expect(csv[0]!.split(",").slice(15, 19)).toEqual(["AS", "CPS", "CCS", "category"]);
    });
    it("text and Markdown show the tables", async () => {
        const text = await renderReport(outcomes, meta, "text");
        expect(text).toContain("Inconsistent Generalisation");
        expect(text).toContain("Temperature effect");
        const md = await renderReport(outcomes, meta, "md");
        expect(md).toMatch(/^# eddy report/);
        expect(md).toContain("| config | mode | judged | AS |");
    });
    it("HTML is self-contained, with every chart, escaped code and capped drill-down", async () => {
        const evil = neighbourhood([[0, 1]], { template: "evil" }).map((o) => ({ ...o, code: "print('<script>alert(1)</script>')" }));
        const html = await renderReport([...outcomes, ...evil], meta, "html", { drilldownPerTemplate: 3 });
        for (const kind of ["boxplot", "categories", "verdicts", "heatmap", "strip"]) expect(html).toContain(`data-chart="${kind}"`);
        expect(html).not.toContain("<script");
        expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
        expect(html).toContain("(3 of 63 shown)");
    });
    it("rejects unknown formats with an EddyError", async () => {
        await expect(renderReport(outcomes, meta, "pdf" as never)).rejects.toThrow(/unknown report format 'pdf'/);
    });
});

describe("parameter strip", () => {
    it("draws only cells with failed rounds, over an explicit instance domain", () => {
        const scores = scoreNeighbourhoods(neighbourhood([[1, 1], [0, 1], [1, 1]]));
        const spec = stripSpec(scores) as unknown as { data: { values: { instance: number; failed: number }[] }; encoding: { x: { scale: { domain: number[] } } } };
        expect(spec.data.values).toEqual([{ config: "m t=0 default", instance: 1, failed: 1 }]);
        expect(spec.encoding.x.scale.domain).toEqual([0, 1, 2]);
    });
});

describe("CSV fields (shared by reports and eddy export)", () => {
    it("quotes per RFC 4180, leaves missing values empty and writes structured values as JSON", () => {
        expect(csvField('say "hi", twice')).toBe('"say ""hi"", twice"');
        expect(csvField("line\nbreak")).toBe('"line\nbreak"');
        expect(csvField(0.25)).toBe("0.25");
        expect([csvField(null), csvField(undefined), csvField(NaN)]).toEqual(["", "", ""]);
        expect(csvField([3, "a"])).toBe('"[3,""a""]"');
    });
});
