import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startViewer, type Viewer } from "../../src/view/server.js";
import { CHROMIUM, HAVE_CHROMIUM, launchChromium } from "../browser.js";
import { buildWorkbenchStore, WORKBENCH } from "./workbenchStore.js";

if (!HAVE_CHROMIUM) console.warn(`SKIPPED: eddy view workbench browser test: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

/**
 * The viewer as a workbench (issue #48), in headless Chromium at 1,280 px: the leaderboard ranks every
 * configuration with its intervals and ties, sorts and filters by links and a form (no script); a flip's two
 * answers stand side by side with their verdicts and the failing input; a grid cell's verdict reads without colour.
 */
describe.skipIf(!HAVE_CHROMIUM)("eddy view as a workbench, in headless Chromium", () => {
    let dir: string;
    let viewer: Viewer;
    let browser: Browser;
    const errors: string[] = [];
    const requests: string[] = [];

    beforeAll(async () => {
        dir = mkdtempSync(path.join(tmpdir(), "eddy-workbench-"));
        const db = path.join(dir, "eddy.db");
        buildWorkbenchStore(db);
        viewer = await startViewer({ db, port: 0 });
        browser = await launchChromium();
    });
    afterAll(async () => {
        await browser?.close();
        await viewer?.close();
        rmSync(dir, { recursive: true, force: true });
    });

    async function open(url = viewer.url): Promise<Page> {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        page.on("request", (r) => requests.push(r.url()));
        page.on("console", (m) => {
            if (m.type() === "error") errors.push(m.text());
        });
        page.on("pageerror", (e) => errors.push(e.message));
        await page.goto(url);
        return page;
    }
    const models = (page: Page) => page.locator("#board tbody td.config b").allInnerTexts();

    it("the front page ranks every configuration with intervals, ties as ties, and the benchmark beside; it sorts and filters by links and a form", async () => {
        const page = await open();
        // No horizontal scroll at 1,280 px, the table included.
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
        const box = await page.locator("#board").boundingBox();
        expect(box!.x + box!.width).toBeLessThanOrEqual(1280);
        // Ranked by AS: Q8_0 and Q4_0 differ by two flips of 36 answers (McNemar: a tie); the third is behind both.
        expect(await models(page)).toEqual([WORKBENCH.strong, WORKBENCH.weak, WORKBENCH.other]);
        expect(await page.locator("#board tbody td.rank").allInnerTexts()).toEqual(["1–2\ntied with 1", "1–2\ntied with 1", "3"]);
        expect(await page.locator("#board tbody tr").first().locator("td.rank").getAttribute("title")).toMatch(/tied with: coder-Q4_0 t=0 default \(exact McNemar on 36 paired responses: 4 discordant \(4 to 0\), p = 0\.125\)/);
        // Every score with its interval under it; the settings of each configuration (KV cache and backend included).
        expect(await page.locator("#board tbody tr").first().locator('td[data-score="CCS"]').innerText()).toMatch(/^1\.000\n0\.\d\d–1\.00$/);
        expect(await page.locator("#board tbody tr").first().locator("td.config .settings").innerText()).toBe(`Q8_0 · t=0 · default · KV q8_0 · reference · run ${WORKBENCH.run}`);
        // The same model on imported HumanEval+: pass@1 0.8 there, 1.0 on the neighbourhoods.
        expect(await page.locator("#board tbody tr").first().locator('td.bench [data-benchmark="HumanEval+"]').innerText()).toBe("HumanEval+ 0.800 Δ +0.200");
        expect(await page.locator("#board tbody tr").nth(1).locator("td.bench").innerText()).toMatch(/^HumanEval\+ 0\.800 Δ \+0\.089\nat Q8_0$/);
        expect(await page.locator("#benchmark-runs tbody tr").count()).toBe(1);

        // Sort by CCS (descending), then again (ascending): each a link, the page drawn by the server.
        await page.locator('#board th a[data-sort="CCS"]').click();
        await page.waitForURL(/sort=CCS/);
        expect(await models(page)).toEqual([WORKBENCH.strong, WORKBENCH.weak, WORKBENCH.other]);
        expect(await page.locator("#board th.sorted").innerText()).toBe("CCS ▼");
        await page.locator('#board th a[data-sort="CCS"]').click();
        await page.waitForURL(/sort=CCS&dir=asc/);
        expect(await models(page)).toEqual([WORKBENCH.other, WORKBENCH.weak, WORKBENCH.strong]);
        // By model name.
        await page.locator('#board th a[data-sort="model"]').click();
        await page.waitForURL(/sort=model/);
        expect(await models(page)).toEqual([WORKBENCH.weak, WORKBENCH.strong, WORKBENCH.other]);

        // Filter by quantisation with the form (a GET): the sort is kept, one row is left, ranked alone.
        await page.selectOption('form.filters select[name="quant"]', "Q4_0");
        await page.locator("form.filters button").click();
        await page.waitForURL(/quant=Q4_0/);
        expect(page.url()).toContain("sort=model");
        expect(await models(page)).toEqual([WORKBENCH.weak]);
        expect(await page.locator("#board tbody td.rank").allInnerTexts()).toEqual(["1"]);
        // A search, and filters that match nothing.
        await page.goto(`${viewer.url}?q=OTHER`);
        expect(await models(page)).toEqual([WORKBENCH.other]);
        await page.goto(`${viewer.url}?q=nothing-like-it`);
        expect(await page.locator("#no-configurations").innerText()).toContain("No configuration matches these filters");
        // The back button walks the sorts and filters back.
        await page.goBack();
        expect(await models(page)).toEqual([WORKBENCH.other]);
        // Definitions of the scores on the page itself.
        expect(await page.locator("#definitions dt").allInnerTexts()).toEqual(expect.arrayContaining(["AS", "CPS", "CCS", "pass@1", "Perfect Success"]));
        await page.close();
    });

    it("shows a flip's two answers side by side, with their verdicts, the failing input and both codes", async () => {
        const page = await open();
        await page.locator("nav a", { hasText: "Compare" }).click();
        await page.waitForURL(/\/compare$/);
        await page.selectOption('select[name="a"]', { label: `${WORKBENCH.run} · ${WORKBENCH.strong} t=0 default · Q8_0` });
        await page.selectOption('select[name="b"]', { label: `${WORKBENCH.run} · ${WORKBENCH.weak} t=0 default · Q4_0` });
        await page.locator("form.filters button").click();
        await page.waitForURL(/a=\d+&b=\d+/);
        expect(await page.locator("#flips .tabs").innerText()).toBe("Lost in B (2)\nGained in B (0)");
        const flip = page.locator(`article.flip[data-template="${WORKBENCH.flip.template}"][data-instance="${WORKBENCH.flip.instance}"]`);
        expect(await flip.locator("h3").innerText()).toBe(`${WORKBENCH.flip.template} #${WORKBENCH.flip.instance} lo=2, hi=5`);
        const a = flip.locator('[data-side="A"]');
        const b = flip.locator('[data-side="B"]');
        // Side by side: level with each other, A on the left, neither overlapping the other.
        const ba = (await a.boundingBox())!;
        const bb = (await b.boundingBox())!;
        expect(Math.abs(ba.y - bb.y)).toBeLessThan(2);
        expect(ba.x + ba.width).toBeLessThanOrEqual(bb.x);
        expect(ba.width).toBeGreaterThan(400);
        expect(await a.locator(".category").innerText()).toBe("passed");
        expect(await b.locator(".category").innerText()).toBe("assertion_error");
        expect(await a.locator("pre.code").innerText()).toContain("return sum(range(lo, hi + 1))");
        expect(await b.locator("pre.code").innerText()).toContain(WORKBENCH.flip.code);
        expect(await b.locator(".failing .input").innerText()).toBe(WORKBENCH.flip.input);
        expect(await b.locator(".failing .expected").innerText()).toBe("14");
        expect(await b.locator(".failing .got").innerText()).toBe("9");
        expect(await a.locator("h4 small").innerText()).toBe("3 of 3 rounds passed");
        expect(await b.locator("h4 small").innerText()).toBe("0 of 3 rounds passed");
        // Each round's square opens that answer.
        await b.locator(".strip a").nth(2).click();
        await page.waitForURL(/\/instance\/2#round-2$/);
        expect(await page.locator("section#round-2 pre.code").innerText()).toContain(WORKBENCH.flip.code);
        await page.goBack();
        // The per-template deltas sort by a link: by ΔCCS, the largest loss first.
        await page.locator('#per-template th a[data-sort="dCCS"]').click();
        await page.waitForURL(/sort=dCCS/);
        expect(await page.locator("#per-template tbody tr td:first-child").allInnerTexts()).toEqual(["count_char", "sum_range"]);
        await page.locator('#per-template th a[data-sort="dCCS"]').click();
        await page.waitForURL(/sort=dCCS&dir=asc/);
        expect(await page.locator("#per-template tbody tr td:first-child").allInnerTexts()).toEqual(["count_char", "sum_range"]);
        await page.locator('#per-template th a[data-sort="dAS"]').click();
        await page.waitForURL(/sort=dAS/);
        // ΔAS: count_char −0.056, sum_range −0.167: descending puts the smaller loss first.
        expect(await page.locator("#per-template tbody tr td:first-child").allInnerTexts()).toEqual(["count_char", "sum_range"]);
        await page.locator('#per-template th a[data-sort="dAS"]').click();
        expect(await page.locator("#per-template tbody tr td:first-child").allInnerTexts()).toEqual(["sum_range", "count_char"]);
        await page.close();
    });

    it("a grid cell's verdict reads without colour: a letter or sign per verdict, named on hover and by the legend", async () => {
        const page = await open(`${viewer.url}run/${WORKBENCH.run}/template/${WORKBENCH.flip.template}`);
        // Colour taken away (as a reader who cannot tell the hues apart sees it).
        await page.evaluate(() => (document.documentElement.style.filter = "grayscale(1)"));
        const grid = page.locator("section.neighbourhood", { hasText: WORKBENCH.weak });
        // Named parameters as columns.
        expect(await grid.locator("table.grid thead th").allInnerTexts()).toEqual(["#", "lo", "hi", "r0", "r1", "r2", "passed"]);
        const row = grid.locator("table.grid tbody tr").nth(WORKBENCH.flip.instance);
        expect(await row.locator("td.param").allInnerTexts()).toEqual(["2", "5"]);
        const failing = row.locator("td.cell a").first();
        const passing = grid.locator("table.grid tbody tr").first().locator("td.cell a").first();
        expect(await failing.innerText()).toBe("A");
        expect(await passing.innerText()).toBe("✓");
        expect(await failing.getAttribute("aria-label")).toBe(`instance ${WORKBENCH.flip.instance}, round 0: assertion_error`);
        expect(await failing.getAttribute("title")).toBe("round 0: assertion_error (a fixed test failed)");
        // The legend maps each symbol on the page to its verdict, and lists only the verdicts present.
        const legend = page.locator("#legend li");
        expect(await legend.evaluateAll((lis) => lis.map((li) => li.getAttribute("data-verdict")))).toEqual(["passed", "assertion_error", "runtime_error"]);
        expect(await page.locator('#legend li[data-verdict="assertion_error"]').innerText()).toMatch(/^A\s+assertion_error\s+a fixed test failed$/);
        // Every verdict on the page has its own symbol.
        const byVerdict = await page.locator("table.grid td.cell a").evaluateAll((as) => as.map((a) => [a.getAttribute("data-verdict"), a.textContent]));
        const symbols = new Map<string, Set<string>>();
        for (const [v, t] of byVerdict) symbols.set(v!, (symbols.get(v!) ?? new Set()).add(t!));
        expect([...symbols].map(([v, t]) => [v, [...t]])).toEqual([
            ["passed", ["✓"]],
            ["assertion_error", ["A"]],
            ["runtime_error", ["R"]]
        ]);
        await page.close();
    });

    it("a fuzzing failure's answer page shows the smallest failing input beside the one that failed first, smaller than it", async () => {
        const page = await open(`${viewer.url}answers?category=fuzzing_failure`);
        await page.locator("#answers a.answer").first().click();
        const round = page.locator("section.round", { has: page.locator("dl.shrunk") }).first();
        await expect.poll(() => round.count()).toBe(1);
        const shrunk = round.locator("dl.shrunk");
        expect(await shrunk.locator("dd.input").innerText()).toBe(WORKBENCH.shrunk.call);
        expect(await shrunk.locator("dd.expected").innerText()).toBe(WORKBENCH.shrunk.expected);
        expect(await shrunk.locator("dd.got").innerText()).toBe(WORKBENCH.shrunk.actual);
        expect(await shrunk.locator("dd.from").innerText()).toBe(WORKBENCH.shrunk.from);
        // Smaller than the input the verdict names, which the page still shows as the failing input.
        const first = await round.locator("dl.failing:not(.shrunk) dd.input").innerText();
        expect(first).toBe(WORKBENCH.shrunk.from);
        expect((await shrunk.locator("dd.input").innerText()).length).toBeLessThan(first.length);
        expect(await round.locator("h3", { hasText: "Smallest failing input" }).count()).toBe(1);
        await page.close();
    });

    it("made no request beyond the viewer, and no script ran", () => {
        const origin = new URL(viewer.url).origin;
        expect(requests.length).toBeGreaterThan(8);
        expect(requests.filter((u) => !u.startsWith(`${origin}/`))).toEqual([]);
        expect(errors).toEqual([]);
    });
});
