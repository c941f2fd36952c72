import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadStudy } from "../../src/report/loadStudy.js";
import { renderReport } from "../../src/report/renderReport.js";
import { TAMPERING_LISTED } from "../../src/report/tampering.js";
import type { ReportFormat } from "../../src/report/types.js";
import type { Outcome } from "../../src/vocabulary.js";
import { neighbourhood } from "../scores/fixtures.js";
import { writeOutcomes } from "./storeFixture.js";

const dirs: string[] = [];
afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const A = "tamper-a t=0 default";
const B = "honest-b t=0 default";
const EVIL = "tampering: rewrote compare.py <script>alert(1)</script>";

/** Two configurations × two templates × 4 instances × 2 rounds; `a` has two tampering verdicts, `b` none (one look-alike). */
function study(): Outcome[] {
    const cells = () => Array.from({ length: 4 }, (_, i) => [1, i === 1 ? "runtime_error" : 1] as (0 | 1 | "runtime_error")[]);
    const out: Outcome[] = [];
    for (const model of ["tamper-a", "honest-b"])
        for (const template of ["t_one", "t_two"]) out.push(...neighbourhood(cells(), { model, template, runId: "run1" }));
    return out.map((o) => {
        if (o.category !== "runtime_error") return o;
        if (o.model === "tamper-a" && o.template === "t_one") return { ...o, detail: EVIL };
        if (o.model === "tamper-a" && o.template === "t_two") return { ...o, detail: "tampering: patched builtins.open\nand more lines" };
        return { ...o, detail: "ValueError: not tampering: just a failure" };
    });
}

async function render(outcomes: readonly Outcome[], format: ReportFormat): Promise<string> {
    const dir = mkdtempSync(path.join(os.tmpdir(), "eddy-tamper-"));
    dirs.push(dir);
    const db = path.join(dir, "eddy.db");
    const runs = writeOutcomes(db, outcomes);
    const s = loadStudy(db, runs);
    return renderReport(s.outcomes, s.runs, format, { planned: s.planned, generated: "2026-01-01T00:00:00Z", wide: true });
}

describe("reports count and list suspected tampering per configuration", () => {
    it("JSON always carries the count, and the listed answers", async () => {
        const json = JSON.parse(await render(study(), "json"));
        const by = new Map((json.configs as { config: string; tampering: unknown }[]).map((c) => [c.config, c.tampering]));
        expect(by.get(A)).toEqual({
            count: 2,
            listed: [
                { template: "t_one", instance: 1, round: 1, detail: EVIL },
                { template: "t_two", instance: 1, round: 1, detail: "tampering: patched builtins.open and more lines" }
            ]
        });
        expect(by.get(B)).toEqual({ count: 0, listed: [] });
    });

    it("text lists them under the configuration that has any, and not the other", async () => {
        const text = await render(study(), "text");
        expect(text).toContain("Suspected tampering with the judge");
        const section = text.slice(text.indexOf("Suspected tampering"), text.indexOf("Decoding ("));
        const row = section.split("\n").find((l) => l.startsWith(A))!;
        expect(row).toMatch(/tamper-a t=0 default\s+2\s+t_one #1 round 1: tampering: rewrote compare\.py/);
        expect(section).toContain("t_two #1 round 1: tampering: patched builtins.open and more lines");
        expect(section).not.toContain(B);
        expect(section).not.toContain("ValueError");
    });

    it("Markdown has the same section as a table", async () => {
        const md = await render(study(), "md");
        expect(md).toContain("## Suspected tampering with the judge (per configuration)");
        expect(md).toContain(`| ${A} | 2 | t_one #1 round 1: tampering: rewrote compare.py &lt;script&gt;alert(1)&lt;/script&gt;<br>t_two #1 round 1: tampering: patched builtins.open and more lines |`);
        expect(md).not.toMatch(new RegExp(`\\| ${B} \\| 0 \\|`));
    });

    it("HTML shows them escaped, with a link from the navigation", async () => {
        const page = await render(study(), "html");
        expect(page).toContain('<a href="#tampering">');
        const section = page.slice(page.indexOf('<h3 id="tampering">'), page.indexOf("</section>", page.indexOf('<h3 id="tampering">')));
        expect(section).toContain(`<td>${A}</td><td class="n">2</td>`);
        // Each answer links to its template's section further down the page.
        expect(section).toContain('<a href="#t-t_one">t_one</a> #1 · round 1: <code>tampering: rewrote compare.py &lt;script&gt;alert(1)&lt;/script&gt;</code>');
        expect(section).not.toContain(B);
        expect(page).not.toContain("<script>alert(1)</script>");
    });

    it("says nothing in text, Markdown and HTML when no answer tampered; JSON says 0", async () => {
        const clean = study().map((o) => (o.detail.startsWith("tampering:") ? { ...o, detail: "RuntimeError: boom" } : o));
        for (const format of ["text", "md", "html"] as const) expect(await render(clean, format)).not.toContain("uspected tampering");
        const json = JSON.parse(await render(clean, "json"));
        expect(json.configs.map((c: { tampering: { count: number } }) => c.tampering.count)).toEqual([0, 0]);
    });

    it(`lists at most ${TAMPERING_LISTED} per configuration and counts the rest`, async () => {
        const many = neighbourhood(
            Array.from({ length: 25 }, () => ["runtime_error" as const]),
            { model: "tamper-a", template: "t_one" }
        ).map((o) => ({ ...o, detail: `tampering: attempt ${o.instance}` }));
        const json = JSON.parse(await render(many, "json"));
        expect(json.configs[0].tampering.count).toBe(25);
        expect(json.configs[0].tampering.listed).toHaveLength(TAMPERING_LISTED);
        for (const format of ["text", "md", "html"] as const) expect(await render(many, format)).toContain("and 5 more");
    });
});
