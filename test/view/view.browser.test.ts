import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ChildProcess } from "node:child_process";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, HAVE_CHROMIUM, launchChromium } from "../browser.js";
import { buildViewStore, eddy, HOSTILE, startView, type ViewStore } from "./viewStore.js";

if (!HAVE_CHROMIUM) console.warn(`SKIPPED: eddy view browser test: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

const sha = (f: string) => createHash("sha256").update(readFileSync(f)).digest("hex");

describe.skipIf(!HAVE_CHROMIUM)("eddy view in headless Chromium", () => {
    let dir: string;
    let store: ViewStore;
    let view: { proc: ChildProcess; url: string };
    let browser: Browser;
    let before: string;
    /** Every request any page made, and the console errors. */
    const requests: string[] = [];
    const errors: string[] = [];

    beforeAll(async () => {
        dir = mkdtempSync(path.join(tmpdir(), "eddy-view-"));
        store = buildViewStore(dir);
        before = sha(store.db);
        view = await startView(store.db);
        browser = await launchChromium();
    });
    afterAll(async () => {
        await browser?.close();
        view?.proc.kill("SIGTERM");
        rmSync(dir, { recursive: true, force: true });
    });

    async function open(): Promise<Page> {
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        page.on("request", (r) => requests.push(r.url()));
        page.on("console", (m) => {
            if (m.type() === "error") errors.push(m.text());
        });
        page.on("pageerror", (e) => errors.push(e.message));
        return page;
    }

    it("leads from the front page to a failing answer's code by following links only; the back button returns", async () => {
        const page = await open();
        const first = await page.goto(view.url);
        const csp = first!.headers()["content-security-policy"]!;
        expect(csp).toContain("default-src 'none'");
        expect(csp).not.toContain("script-src");
        // The front page is the leaderboard; the runs are one link away.
        expect(await page.locator("#board tbody tr").count()).toBe(2);
        await page.locator("nav a", { hasText: "Runs" }).click();
        await page.waitForURL("**/runs");
        await page.locator(`#runs a`, { hasText: store.replay }).click();
        await page.waitForURL(`**/run/${store.replay}`);
        // The configuration's scores, and per template its category: copy_last_n lost one round.
        expect(await page.locator("#configs tbody tr").count()).toBe(1);
        await page.locator("section.config-scores a", { hasText: "copy_last_n" }).click();
        await page.waitForURL(`**/template/copy_last_n`);
        const failing = page.locator('a[data-verdict="assertion_error"]');
        expect(await failing.count()).toBe(1);
        expect(await page.locator('a[data-verdict="passed"]').count()).toBe(3 * 2 - 1);
        await failing.click();
        await page.waitForURL(/\/instance\/1#round-0$/);
        const round = page.locator("section#round-0");
        expect(await round.locator(".category").innerText()).toBe("assertion_error");
        expect(await round.locator("pre.code").innerText()).toContain("return None  # SENTINEL-wrong");
        expect(await round.locator(".failing .got").innerText()).toBe("None");
        expect(await round.locator(".failing .input").innerText()).toMatch(/^copy_last_n\(/);
        expect(await round.locator("dl.kv").first().innerText()).toMatch(/seed\s+\d+/);
        // The prompt as sent holds the instance's question.
        const question = (await page.locator("pre.question").innerText()).trim();
        expect(question.length).toBeGreaterThan(20);
        expect(await round.locator("details.prompt").innerText()).toContain(question.slice(0, 60));
        await page.goBack();
        expect(page.url()).toMatch(/\/template\/copy_last_n$/);
        await page.goBack();
        expect(page.url()).toMatch(new RegExp(`/run/${store.replay}$`));
        await page.goBack();
        expect(page.url()).toMatch(/\/runs$/);
        await page.close();
    });

    it("narrows the answers by a filter and by a search, each with its own URL", async () => {
        const page = await open();
        await page.goto(view.url);
        await page.locator("nav a", { hasText: "Answers" }).click();
        // 2 runs × 2 templates × 3 instances × 2 rounds.
        expect(await page.locator("#answers tbody tr").count()).toBe(24);
        await page.selectOption('select[name="category"]', "assertion_error");
        await page.locator("form.filters button").click();
        await page.waitForURL(/category=assertion_error/);
        const rows = page.locator("#answers tbody tr");
        expect(await rows.count()).toBe(1);
        expect(await rows.first().innerText()).toContain("copy_last_n");
        await page.selectOption('select[name="category"]', "");
        await page.fill('input[name="q"]', "hostile-marker");
        await page.locator("form.filters button").click();
        await page.waitForURL(/q=hostile-marker/);
        expect(await rows.count()).toBe(1);
        expect(await rows.first().innerText()).toContain("copy_block");
        // Search and filter together: the hostile answer is not in copy_last_n.
        await page.selectOption('select[name="template"]', "copy_last_n");
        await page.locator("form.filters button").click();
        await page.waitForURL(/template=copy_last_n/);
        expect(await page.locator("#no-answers").count()).toBe(1);
        await page.goBack();
        expect(await rows.count()).toBe(1);
        await page.close();
    });

    it("shows a hostile answer as text: nothing in it runs, loads or links", async () => {
        const page = await open();
        await page.goto(`${view.url}answers?q=HOSTILE-MARKER`);
        await page.locator("#answers a.answer").click();
        await page.waitForURL(/#round-1$/);
        const round = page.locator("section#round-1");
        expect(await round.locator("pre.response").innerText()).toContain(HOSTILE);
        expect(await round.locator("pre.code").innerText()).toContain("# </pre><script>window.__pwned='code'</script>");
        await round.locator("pre.response").hover();
        const dom = await page.evaluate(() => ({
            pwned: (window as unknown as { __pwned?: unknown }).__pwned ?? null,
            scripts: document.querySelectorAll("script").length,
            iframes: document.querySelectorAll("iframe, img, link, svg, meta[http-equiv=refresh]").length,
            handlers: [...document.querySelectorAll("*")].filter((e) => [...e.attributes].some((a) => a.name.startsWith("on"))).length,
            jsLinks: [...document.querySelectorAll("a")].filter((a) => !a.href.startsWith(location.origin)).length
        }));
        expect(dom).toEqual({ pwned: null, scripts: 0, iframes: 0, handlers: 0, jsLinks: 0 });
        await page.close();
    });

    it("every page of the walk made no request beyond the viewer on the loopback address, and the database is unchanged", () => {
        const origin = new URL(view.url).origin;
        expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(requests.length).toBeGreaterThan(5);
        expect(requests.filter((u) => !u.startsWith(`${origin}/`))).toEqual([]);
        expect(errors).toEqual([]);
        expect(sha(store.db)).toBe(before);
    });

    it("shows answers written while it runs on reload", async () => {
        const page = await open();
        await page.goto(view.url);
        const configs = await page.locator("#board tbody tr").count();
        await page.goto(`${view.url}runs`);
        const n = await page.locator("#runs tbody tr").count();
        const added = eddy(["run", "--backend", "reference", "-t", "copy_last_n", "-M", "2", "-R", "1", "--seed", "7", "--judge-workers", "1", "--db", store.db]).trim().split("\n").pop()!;
        await page.reload();
        expect(await page.locator("#runs tbody tr").count()).toBe(n + 1);
        await page.goto(view.url);
        expect(await page.locator("#board tbody tr").count()).toBe(configs + 1);
        await page.goto(`${view.url}runs`);
        await page.locator("#runs a", { hasText: added }).click();
        expect(await page.locator("section.config-scores tbody tr").count()).toBe(1);
        await page.close();
    });
});
