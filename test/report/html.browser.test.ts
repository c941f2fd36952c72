import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderReport } from "../../src/report/renderReport.js";
import { neighbourhood } from "../scores/fixtures.js";
import { sampleStudy } from "./sample.js";
import { CHROMIUM, HAVE_CHROMIUM as haveChromium, launchChromium, openReport } from "../browser.js";

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
        browser = await launchChromium();
    });
    afterAll(async () => {
        await browser?.close();
    });

    it("loads without console errors or network requests, renders charts, and opens the drill-down", async () => {
        const { page, errors, requests } = await openReport(browser, file);

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

    it("renders hostile model output inertly: no script runs, nothing loads, the text shows as text", async () => {
        // What a model (or a crafted template, model file name or oracle detail) could put in a report.
        const attacks = [
            "</script><script>window.__pwned = 'script'</script>",
            '"><img src=x onerror="window.__pwned=\'img\'">',
            "<svg onload=\"window.__pwned='svg'\"><script>window.__pwned='svg-script'</script></svg>",
            "' onmouseover='window.__pwned=1' x='",
            "<style>body{display:none}</style><iframe src=\"javascript:window.__pwned='iframe'\"></iframe>"
        ];
        const hostile = attacks.join("\n");
        const evil = neighbourhood(
            [
                [0, 1],
                [0, 0]
            ],
            { template: `evil"><b>${attacks[0]}`, model: `m<svg onload=alert(1)>`, params: (i) => [`<img src=x onerror=alert(${i})>`, i] }
        ).map((o) => ({ ...o, code: o.category === "passed" ? o.code : hostile, detail: o.category === "passed" ? "" : hostile, response: hostile }));
        const html = await renderReport([...sampleStudy(), ...evil], [{ id: "run-a" }, { id: "run-b" }, { id: "run1" }], "html", { generated: "2026-01-01T00:00:00Z" });
        const file = path.join(ARTIFACTS, "report-hostile.html");
        writeFileSync(file, html);
        const { page, errors, requests } = await openReport(browser, file);
        const template = page.locator("details.template").filter({ hasText: "evil" }).first();
        await template.locator(":scope > summary").click();
        const response = template.locator("details.response").first();
        await response.locator("summary").click();
        await response.locator("pre.code").hover();
        // The attacks are on the page as text, in full, not as elements.
        expect(await response.locator("pre.code").innerText()).toBe(hostile);
        expect(await response.locator("pre.detail").innerText()).toBe(hostile);
        expect(await template.locator(":scope > summary").innerText()).toContain(`evil"><b>${attacks[0]}`);
        const dom = await page.evaluate(() => ({
            pwned: (window as unknown as { __pwned?: unknown }).__pwned ?? null,
            scripts: document.querySelectorAll("script").length,
            iframes: document.querySelectorAll("iframe").length,
            imgs: document.querySelectorAll("img").length,
            handlers: [...document.querySelectorAll("*")].filter((e) => [...e.attributes].some((a) => a.name.startsWith("on"))).length,
            bodyShown: getComputedStyle(document.body).display !== "none"
        }));
        expect(dom).toEqual({ pwned: null, scripts: 0, iframes: 0, imgs: 0, handlers: 0, bodyShown: true });
        expect(errors).toEqual([]);
        expect(requests).toEqual([]);
        await page.close();
    });
});
