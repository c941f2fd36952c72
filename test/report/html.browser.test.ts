import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderReport } from "../../src/report/renderReport.js";
import { sampleStudy } from "./sample.js";

const CHROMIUM = process.env.EDDY_CHROMIUM ?? "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`SKIPPED: HTML report browser test: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

const ARTIFACTS = path.resolve("test-artifacts");

describe.skipIf(!haveChromium)("HTML report in headless Chromium", () => {
    let browser: Browser;
    let file: string;
    beforeAll(async () => {
        mkdirSync(ARTIFACTS, { recursive: true });
        file = path.join(ARTIFACTS, "report.html");
        const html = await renderReport(sampleStudy(), [{ id: "run-a", status: "complete", backend: "reference" }, { id: "run-b" }], "html", { generated: "2026-01-01T00:00:00Z" });
        writeFileSync(file, html);
        browser = await chromium.launch({
            executablePath: CHROMIUM,
            args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"]
        });
    });
    afterAll(async () => {
        await browser?.close();
    });

    it("loads without console errors or network requests, renders charts, and opens the drill-down", async () => {
        const page = await browser.newPage({ viewport: { width: 1360, height: 1000 } });
        const errors: string[] = [];
        const requests: string[] = [];
        page.on("console", (m) => {
            if (m.type() === "error") errors.push(m.text());
        });
        page.on("pageerror", (e) => errors.push(e.message));
        page.on("request", (r) => {
            if (!r.url().startsWith("file:")) requests.push(r.url());
        });
        await page.goto(`file://${file}`);
        await page.waitForLoadState("load");

        // Every chart kind is an SVG with marks in it.
        for (const kind of ["boxplot", "categories", "verdicts", "heatmap", "groups", "strip"]) {
            const marks = await page.locator(`[data-chart="${kind}"] svg .mark-rect path, [data-chart="${kind}"] svg .mark-rect rect, [data-chart="${kind}"] svg .mark-rule line, [data-chart="${kind}"] svg .mark-rect`).count();
            expect(marks, `${kind} chart has marks`).toBeGreaterThan(0);
        }
        await page.screenshot({ path: path.join(ARTIFACTS, "report-top.png"), fullPage: false });
        await page.locator('[data-chart="heatmap"]').screenshot({ path: path.join(ARTIFACTS, "report-heatmap.png") });

        // Drill-down: a template opens, its strip and a failing response become visible, and the response opens to its code.
        const template = page.locator("details.template#t-sum_index_range");
        await expect.poll(() => template.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
        await template.locator(":scope > summary").click();
        expect(await template.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
        expect(await template.locator('[data-chart="strip"] svg').isVisible()).toBe(true);
        const response = template.locator("details.response").first();
        await response.locator("summary").click();
        const code = response.locator("pre.code");
        expect(await code.isVisible()).toBe(true);
        expect(await response.locator("pre.detail").innerText()).toContain("failed on instance");
        await template.scrollIntoViewIfNeeded();
        await page.screenshot({ path: path.join(ARTIFACTS, "report-drilldown.png"), fullPage: false });
        await page.screenshot({ path: path.join(ARTIFACTS, "report.png"), fullPage: true });

        expect(errors).toEqual([]);
        expect(requests).toEqual([]);
    });
});
