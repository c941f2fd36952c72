import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildLoopReport, renderLoopHtml } from "../../src/loop/report.js";
import { normalizeLoopConfig, runLoop } from "../../src/loop/runLoop.js";
import { buildMutateReport, renderMutateHtml } from "../../src/mutate/report.js";
import { recordMutateStudy } from "../../src/store/mutateStudies.js";
import { openStore } from "../../src/store/Store.js";
import type { Outcome } from "../../src/vocabulary.js";
import { writeOutcomes } from "../report/storeFixture.js";
import { CHROMIUM, HAVE_CHROMIUM as haveChromium, launchChromium, openReport } from "../browser.js";

if (!haveChromium) console.warn(`SKIPPED: EvaLOOP / prompt-sensitivity HTML browser test: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

const ARTIFACTS = path.resolve("test-artifacts");
const tmp = mkdtempSync(path.join(tmpdir(), "eddy-loop-html-"));
// Hostile model text and template id (issue #9): must render as text, never run.
const HOSTILE = "</script><script>window.__pwned=1</script>";

describe.skipIf(!haveChromium)("EvaLOOP and prompt-sensitivity HTML reports in headless Chromium", () => {
    let browser: Browser;
    const files: Record<string, string> = {};
    beforeAll(async () => {
        mkdirSync(ARTIFACTS, { recursive: true });
        // A loop run on replayed answers: instance 0 fails loop 1, instance 1 passes loop 1 and fails loop 2.
        const code = (body: string) => "```python\ndef copy_last_n(values):\n    " + body + "\n```";
        const replay = path.join(tmp, "loop.jsonl");
        writeFileSync(
            replay,
            [
                { template: "copy_last_n", instance: 0, round: 0, response: code("return values") },
                { template: "copy_last_n", instance: 1, round: 0, response: code("return list(values[-1:])") },
                { template: "copy_last_n", instance: 1, round: 1, response: "Write a python function named copy_last_n that returns the last element <b>in a list</b>. " + HOSTILE },
                { template: "copy_last_n", instance: 1, round: 2, response: code("return values[:1]") }
            ].map((l) => JSON.stringify(l)).join("\n") + "\n"
        );
        const db = path.join(tmp, "html.db");
        const r = await runLoop(normalizeLoopConfig({ backend: "replay", replay, templates: "copy_last_n", instances: 2, maxLoops: 3, judgeWorkers: 1, db }));
        // A mutation study from scripted outcomes: two models, three wrappers.
        const outcomes: Outcome[] = [];
        for (const [model, passes] of [["A", [1, 2, 0]], ["B", [0, 1, 2]]] as const)
            ["default", "default-m01", "default-m02"].forEach((wrapper, w) => {
                for (let i = 0; i < 2; i++)
                    outcomes.push({ runId: "mut", config: `${model} ${wrapper}`, model, quantization: null, temperature: 0, wrapper, template: HOSTILE, group: "list", subgroups: [], instance: i, params: [i], round: 0, seed: 1, category: i < passes[w]! ? "passed" : "assertion_error", detail: "", code: null, response: "" });
            });
        writeOutcomes(db, outcomes);
        const store = openStore(db);
        try {
            recordMutateStudy(store, { runId: "mut", original: "default", embedModel: "tiny", minSimilarity: 0.85, variants: [{ id: "default-m01", operations: ["upper-case"], similarity: 1, kept: true }, { id: "default-m02", operations: ["tags-lower"], similarity: 0.9, kept: true }] });
            files.loop = path.join(ARTIFACTS, "loop-report.html");
            writeFileSync(files.loop, renderLoopHtml(buildLoopReport(store, [r.runId])));
            files.mutate = path.join(ARTIFACTS, "mutate-report.html");
            writeFileSync(files.mutate, renderMutateHtml(buildMutateReport(store, ["mut"])));
        } finally {
            store.close();
        }
        browser = await launchChromium();
    });
    afterAll(async () => {
        await browser?.close();
        rmSync(tmp, { recursive: true, force: true });
    });

    const open = (file: string) => openReport(browser, file, { width: 1280, height: 900 });

    it("the loop report shows ASL, the per-template bars, and a task's loops with its diff", async () => {
        const { page, errors, requests } = await open(files.loop!);
        expect(await page.locator("#loop-runs tbody tr").count()).toBe(1);
        // ASL = 1·1²·1 / (3·2) with s = 1.
        expect(await page.locator("#loop-runs td.asl").innerText()).toBe((1 / 6).toFixed(3));
        expect(await page.locator("table.per-template .bar").first().isVisible()).toBe(true);
        const task = page.locator("details.task").nth(1);
        expect(await task.locator("ol").isVisible()).toBe(false);
        await task.locator("summary").click();
        expect(await task.locator("ol").isVisible()).toBe(true);
        expect(await task.locator("summary").innerText()).toContain("failed at loop 2");
        // Model text is shown as text, never as markup.
        expect(await task.locator(".q").nth(1).innerText()).toContain("<b>in a list</b>");
        expect(await task.locator("pre.diff .add").innerText()).toContain("return values[:1]");
        expect(await task.locator(".q").nth(1).innerText()).toContain(HOSTILE);
        expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
        await page.screenshot({ path: path.join(ARTIFACTS, "loop-report.png"), fullPage: true });
        expect(errors).toEqual([]);
        expect(requests).toEqual([]);
    });

    it("the sensitivity report shows AS per variant with Z and MPI, Kendall's W and IoU", async () => {
        const { page, errors, requests } = await open(files.mutate!);
        expect(await page.locator("#sensitivity thead th").allInnerTexts()).toEqual(["configuration", "default", "default-m01", "default-m02", "Z", "MPI"]);
        const rowA = await page.locator("#sensitivity tbody tr").first().locator("td").allInnerTexts();
        // A: AS [0.5, 1, 0]: Z = 0, MPI = 100 %.
        expect(rowA).toEqual(["A t=0", "0.500", "1.000", "0.000", "0.000", "100.0%"]);
        // Judges rank A>B, A>B, B>A: W = 1/9.
        expect(await page.locator("#kendall-w").innerText()).toBe("0.111 (weak to moderate)");
        expect(await page.locator("#iou tbody tr").count()).toBe(2);
        expect(await page.locator("#per-template tbody tr").count()).toBe(1);
        expect(await page.locator("#per-template tbody td").first().innerText()).toBe(HOSTILE);
        expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
        await page.screenshot({ path: path.join(ARTIFACTS, "mutate-report.png"), fullPage: true });
        expect(errors).toEqual([]);
        expect(requests).toEqual([]);
    });
});
