import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildReport } from "../../src/report/buildReport.js";
import { fix, pval } from "../../src/report/format.js";
import { pairedComparisons } from "../../src/scores/compare.js";
import { escapeHtml } from "../../src/report/safeHtml.js";
import { openStore } from "../../src/store/Store.js";
import { startViewer, type Viewer } from "../../src/view/server.js";
import { compareUrl, runUrl, templateUrl } from "../../src/view/urls.js";
import { sampleStudy } from "../report/sample.js";
import { writeOutcomes } from "../report/storeFixture.js";
import { eddy } from "./viewStore.js";
import { tinyEmbedDir } from "../../src/embed/tinyEmbedModel.js";

/** The viewer's pages show what the report data says: one data path. */
describe("eddy view pages against the report's numbers", () => {
    let dir: string;
    let viewer: Viewer;
    let db: string;
    const outcomes = sampleStudy();
    const configIds = new Map<string, number>();
    beforeAll(async () => {
        dir = mkdtempSync(path.join(tmpdir(), "eddy-view-pages-"));
        db = path.join(dir, "eddy.db");
        writeOutcomes(db, outcomes);
        const s = openStore(db, { readonly: true });
        for (const c of s.view.configurations()) configIds.set(`${c.runId}|${c.label}`, c.id);
        s.close();
        viewer = await startViewer({ db, port: 0 });
    });
    afterAll(async () => {
        await viewer?.close();
        rmSync(dir, { recursive: true, force: true });
    });
    const get = async (url: string) => {
        const r = await fetch(viewer.url.replace(/\/$/, "") + url);
        expect(r.status, url).toBe(200);
        return r.text();
    };

    it("the run page shows each configuration's scores as eddy report computes them", async () => {
        const page = await get(runUrl("run-a"));
        const { data } = buildReport(
            outcomes.filter((o) => o.runId === "run-a"),
            [{ id: "run-a" }]
        );
        for (const c of data.configs) {
            const row = new RegExp(`<tr><td><a href="[^"]+">${c.config.replace(/\./g, "\\.")}</a></td>(.*?)</tr>`).exec(page)?.[1];
            expect(row, c.config).toBeDefined();
            for (const v of [fix(c.AS), fix(c.CPS), fix(c.CCS)]) expect(row).toContain(`<td class="n">${v}</td>`);
        }
    });

    it("the template grid has one cell per answer, coloured by its verdict", async () => {
        const page = await get(templateUrl("run-b", "count_char"));
        const mine = outcomes.filter((o) => o.runId === "run-b" && o.template === "count_char");
        const cells = [...page.matchAll(/data-verdict="([a-z_]+)"/g)].map((m) => m[1]);
        expect(cells).toHaveLength(mine.length);
        for (const category of new Set(mine.map((o) => o.category))) expect(cells.filter((c) => c === category).length, category).toBe(mine.filter((o) => o.category === category).length);
    });

    it("comparing two configurations of different runs gives the report's McNemar, and every flip links to answers that exist", async () => {
        const a = configIds.get("run-a|tiny-a t=0 default")!;
        const b = configIds.get("run-b|tiny-b t=0 default")!;
        const page = await get(compareUrl(a, b));
        const paired = pairedComparisons(
            outcomes.filter((o) => o.config === "tiny-a t=0 default" || o.config === "tiny-b t=0 default"),
            ["tiny-a t=0 default", "tiny-b t=0 default"]
        )[0]!;
        expect(page).toContain(`<td class="n">${paired.allPassed.b} / ${paired.allPassed.c}</td><td class="n">${escapeHtml(pval(paired.allPassed.p))}</td>`);
        expect(page).toContain(`<td class="n">${paired.perResponse.b} / ${paired.perResponse.c}</td><td class="n">${escapeHtml(pval(paired.perResponse.p))}</td>`);
        const links = [...page.matchAll(/href="(\/run\/[^"]+\/instance\/\d+)"/g)].map((m) => m[1]!);
        expect(links.length).toBe(2 * (paired.lostInB.length + paired.gainedInB.length));
        expect(paired.lostInB.length + paired.gainedInB.length).toBeGreaterThan(0);
        for (const l of links.slice(0, 6)) await get(l.replace(/&amp;/g, "&"));
        expect((page.match(/<tr>/g) ?? []).length).toBeGreaterThan(6);
    });

    it("the other studies are views too, each saying when the store has none", async () => {
        expect(await get("/loops")).toContain("No loop runs");
        expect(await get("/audits")).toContain("No determinism audits");
        expect(await get("/run/run-a/agreement")).toContain("has no published verdicts");
        const report = await get("/run/run-a/report");
        // The static report of the run: its page shell, charts and templates.
        expect(report).toContain('<section id="templates">');
        expect(report).toContain("<svg");
        expect((await fetch(viewer.url + "run/run-a/mutate")).status).toBe(404);
        expect((await fetch(viewer.url + "loop/none")).status).toBe(404);
    });

    it("a loop run made while the viewer runs is listed and shown as eddy loop report draws it", async () => {
        const id = eddy(["loop", "run", "--backend", "reference", "-t", "copy_last_n", "-M", "2", "-N", "2", "--judge-workers", "1", "--db", db]).trim().split("\n").pop()!;
        const list = await get("/loops");
        expect(list).toContain(`href="/loop/${id}"`);
        const page = await get(`/loop/${id}`);
        expect(page).toContain("EvaLOOP self-consistency");
        expect(page).toContain(id);
        // Inside the viewer's page: its navigation and the path back.
        expect(page).toContain('<a href="/answers">Answers</a>');
        expect(page).toContain('<a href="/loops">loops</a>');
    });

    it("a determinism audit recorded while the viewer runs is listed with what it recorded, escaped", async () => {
        const w = openStore(db);
        try {
            w.audits.record({ modelSha256: "ab".repeat(32), model: "tiny<b>", mode: "reproducible", eddyVersion: "x", responses: 4, differingResponses: 1, differingVerdicts: 0, identical: false, result: { comparisons: [{ responseShare: 0.25, firstDivergence: "<script>x</script>" }] } });
        } finally {
            w.close();
        }
        const page = await get("/audits");
        expect(page).toContain("<td>tiny&lt;b&gt;</td>");
        expect(page).toContain('<span class="bad">no</span>');
        expect(page).toContain("&quot;responseShare&quot;: 0.25");
        expect(page).not.toContain("<script>x");
    });

    it("a prompt-mutation study is linked from its run and shown as eddy mutate report draws it, inside the viewer's page", async () => {
        const id = eddy(["mutate", "run", "--backend", "reference", "-t", "copy_last_n", "-M", "2", "-R", "1", "--embed-model", tinyEmbedDir(), "--variants", "2", "--judge-workers", "1", "--db", db]).trim().split("\n").pop()!;
        expect(await get(runUrl(id))).toContain(`href="/run/${id}/mutate"`);
        const page = await get(`/run/${id}/mutate`);
        expect(page).toContain("<h1>Prompt sensitivity</h1>");
        expect(page).toContain('<a href="/answers">Answers</a>');
        expect(page).toContain("<th>kept?</th>");
    });
});
