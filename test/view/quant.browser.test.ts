import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderQuantHtml } from "../../src/quant/report/renderQuantHtml.js";
import { quantReportFromStore, recordStoredStudy, type StoredQuantStudy } from "../../src/quant/study/storedStudy.js";
import { recordGenerationUsage } from "../../src/store/quantStudy.js";
import { openStore } from "../../src/store/Store.js";
import { startViewer, type Viewer } from "../../src/view/server.js";
import { CHROMIUM, HAVE_CHROMIUM, launchChromium, openReport } from "../browser.js";
import { outcomes } from "../quant/fixtures.js";
import { writeOutcomes } from "../report/storeFixture.js";

if (!HAVE_CHROMIUM) console.warn(`SKIPPED: eddy view quantisation page test: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

/**
 * The viewer's quantisation-study page in headless Chromium, on a study with known flips written through the
 * store's API: ten instances of one template, one round; Q8_0 answers like F16, Q4_K_M loses one instance,
 * IQ3_XXS loses all ten. The page draws the recommendation table the HTML report draws (one builder), the
 * Pareto charts as inline SVG, and links every flipped answer to its answer pages on both sides.
 */
const RUN = "20260101-quant";
const FILES = [
    { name: "m-f16", q: "F16", size: 4_000_000, bpw: 16 },
    { name: "m-q8_0", q: "Q8_0", size: 2_100_000, bpw: 8.5 },
    { name: "m-q4_k_m", q: "Q4_K_M", size: 1_200_000, bpw: 4.9 },
    { name: "m-iq3_xxs", q: "IQ3_XXS", size: 800_000, bpw: 3.1 }
];
const all = (s: string, n = 10) => Array<string>(n).fill(s);

function stored(): StoredQuantStudy {
    return {
        version: 1,
        study: { templates: ["t1"], instances: 10, rounds: 1, seed: 1, temperature: 0, wrapper: "default", maxTokens: 64 },
        reference: "/m/m-f16.gguf",
        referenceKvCache: null,
        files: FILES.map((f) => ({ path: `/m/${f.name}.gguf`, quantization: f.q, sizeBytes: f.size, architecture: "llama", vocabulary: 512, tensors: 48, kvCache: null, label: f.name })),
        bitsPerWeight: Object.fromEntries(FILES.map((f) => [`/m/${f.name}.gguf`, f.bpw])),
        drift: {
            source: "reference answers",
            texts: 4,
            reports: [
                {
                    kvCache: null,
                    report: {
                        reference: "/m/m-f16.gguf", vocabulary: 512, texts: 4, referenceMemory: { modelRamBytes: 4000, modelVramBytes: 0, contextBytes: 500 },
                        results: FILES.map((f, i) => ({
                            file: `/m/${f.name}.gguf`, positions: 100, top1_agreement: 1 - i * 0.1, kl_mean: i * 0.05, kl_p50: i * 0.02, kl_p90: i * 0.1, kl_p99: i * 0.2, kl_max: i * 0.4,
                            truncated_texts: 0, eval_tokens_per_s: 1000, memory: { modelRamBytes: f.size, modelVramBytes: 0, contextBytes: 500 }
                        }))
                    }
                }
            ]
        },
        bootstrapSeed: 3
    };
}

describe.skipIf(!HAVE_CHROMIUM)("eddy view: the quantisation study page in headless Chromium", () => {
    let dir: string;
    let db: string;
    let viewer: Viewer;
    let browser: Browser;
    const requests: string[] = [];
    const errors: string[] = [];

    beforeAll(async () => {
        dir = mkdtempSync(path.join(tmpdir(), "eddy-view-quant-"));
        db = path.join(dir, "eddy.db");
        const o = [
            ...outcomes("m-f16", { t1: all("P") }),
            ...outcomes("m-q8_0", { t1: all("P") }),
            ...outcomes("m-q4_k_m", { t1: ["A", ...all("P", 9)] }),
            ...outcomes("m-iq3_xxs", { t1: all("A") })
        ].map((x) => ({ ...x, runId: RUN, quantization: FILES.find((f) => f.name === x.model)!.q, code: x.category === "passed" ? "def f(x):\n    return x  # CODE-passed" : "def f(x):\n    return None  # CODE-failed" }));
        writeOutcomes(db, o);
        const store = openStore(db);
        try {
            recordStoredStudy(store, RUN, stored());
            for (const [i, f] of FILES.entries())
                recordGenerationUsage(store, { runId: RUN, model: f.name, cpuMs: 1000 * (i + 1), wallMs: 1000, generatedTokens: 600, promptTokens: 900, responses: 10, threads: 1 });
        } finally {
            store.close();
        }
        viewer = await startViewer({ db, port: 0 });
        browser = await launchChromium();
    });
    afterAll(async () => {
        await browser?.close();
        await viewer?.close();
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

    it("is reached from the navigation, names the configuration to ship with the study's power, and draws the recommendation table and the Pareto charts", async () => {
        const page = await open();
        const first = await page.goto(`${viewer.url}audits`);
        expect(first!.headers()["content-security-policy"]).toContain("default-src 'none'");
        await page.locator("nav a", { hasText: "Quantisation" }).click();
        await page.waitForURL(/\/quant$/);
        await page.locator("#quant-studies a", { hasText: RUN }).click();
        await page.waitForURL(new RegExp(`/run/${RUN}/quant$`));
        expect(await page.locator("#verdict").innerText()).toMatch(/^Q4_K_M \(1\.14 MiB\)/);
        expect(await page.locator("#power").innerText()).toMatch(/^Power: with 10 instances and a discordance of 36\.7%.* detecting a drop of 2 points needs about 7193 instances/);
        // one row per configuration; the one to ship marked; bits per weight, tokens per CPU-second and not-worse in its cells
        const rows = page.locator("table.recommendation tbody tr");
        expect(await rows.count()).toBe(4);
        expect(await page.locator("table.recommendation tr.recommended").getAttribute("data-config")).toBe("m-q4_k_m");
        const cell = (config: string, col: string) => page.locator(`table.recommendation tr[data-config="${config}"] td[data-col="${col}"]`).innerText();
        expect(await cell("m-q4_k_m", "bpw")).toBe("4.90");
        expect(await cell("m-q4_k_m", "tpcs")).toBe("200");
        expect(await cell("m-f16", "tpcs")).toBe("600");
        expect(await cell("m-iq3_xxs", "notWorse")).toBe("NO");
        expect(await cell("m-iq3_xxs", "flipsInst")).toBe("10/0");
        expect(await cell("m-q4_k_m", "pass1")).toBe("0.900 [0.596, 0.982]"); // a score is a fraction (#47)
        expect([await cell("m-q4_k_m", "top1"), await cell("m-q4_k_m", "kl")]).toEqual(["80.0%", "0.1000"]);
        // the quality-versus-cost charts: inline SVG, nothing loaded
        expect(await page.locator("#pareto svg").count()).toBe(2);
        expect(await page.locator("script").count()).toBe(0);
        await page.close();
    });

    it("draws the same table as the HTML report: one builder, not a copy", async () => {
        const page = await open();
        await page.goto(`${viewer.url}run/${RUN}/quant`);
        const inViewer = await page.locator("table.recommendation").innerText();
        const store = openStore(db, { readonly: true });
        const file = path.join(dir, "quant.html");
        try {
            writeFileSync(file, await renderQuantHtml(quantReportFromStore(store, RUN)));
        } finally {
            store.close();
        }
        const report = await openReport(browser, file);
        expect(await report.page.locator("table.recommendation").innerText()).toBe(inViewer);
        expect(report.requests).toEqual([]);
        await report.page.close();
        await page.close();
    });

    it("links a flip count to the flipped answers, and each flipped answer to its answer page on both sides", async () => {
        const page = await open();
        await page.goto(`${viewer.url}run/${RUN}/quant`);
        await page.locator('table.recommendation tr[data-config="m-iq3_xxs"] td[data-col="flipsResp"] a').click();
        await page.waitForURL(/#flips-m-iq3_xxs$/);
        const flipped = page.locator("#flipped-m-iq3_xxs tbody tr");
        expect(await flipped.count()).toBe(10);
        // Q8_0 flipped nothing: no link on its count, no section
        expect(await page.locator('table.recommendation tr[data-config="m-q8_0"] td[data-col="flipsResp"] a').count()).toBe(0);
        expect(await page.locator("#flips-m-q8_0").count()).toBe(0);
        const q4 = page.locator("#flipped-m-q4_k_m tbody tr");
        expect(await q4.count()).toBe(1);
        expect(await q4.first().innerText()).toMatch(/lost\s+t1#0 \(0\)\s+0\s+passed\s+assertion_error/);
        // the configuration's side: its failing answer
        await q4.first().locator("td").nth(4).locator("a").click();
        await page.waitForURL(new RegExp(`/run/${RUN}/config/\\d+/template/t1/instance/0#round-0$`));
        expect(await page.locator("section#round-0 pre.code").innerText()).toContain("CODE-failed");
        await page.goBack();
        // the reference's side: its passing answer
        await page.locator("#flipped-m-q4_k_m tbody tr").first().locator("td").nth(3).locator("a").click();
        await page.waitForURL(new RegExp(`/run/${RUN}/config/\\d+/template/t1/instance/0#round-0$`));
        expect(await page.locator("section#round-0 pre.code").innerText()).toContain("CODE-passed");
        await page.close();
    });

    it("answers 404 for a run that is not a quantisation study, and every page stayed on the viewer without errors", async () => {
        const r = await fetch(`${viewer.url}run/nope/quant`);
        expect(r.status).toBe(404);
        const origin = new URL(viewer.url).origin;
        expect(requests.length).toBeGreaterThan(3);
        expect(requests.filter((u) => !u.startsWith(`${origin}/`))).toEqual([]);
        expect(errors).toEqual([]);
    });
});
