import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildReport } from "../../src/report/buildReport.js";
import { fix, pval } from "../../src/report/format.js";
import { pairedComparisons } from "../../src/scores/compare.js";
import { escapeHtml } from "../../src/report/safeHtml.js";
import { openStore } from "../../src/store/Store.js";
import { startViewer, type Viewer } from "../../src/view/server.js";
import { FLIPS_PAGE } from "../../src/view/pages/compare.js";
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
            const row = new RegExp(`<tr><td><a href="[^"]+">${c.config.replace(/\./g, "\\.")}</a><span class="settings">[^<]*</span></td>(.*?)</tr>`).exec(page)?.[1];
            expect(row, c.config).toBeDefined();
            for (const v of [fix(c.AS), fix(c.CPS), fix(c.CCS)]) expect(row).toContain(`<td class="n">${v}</td>`);
        }
    });

    it("the template grid has one cell per answer, coloured by its verdict", async () => {
        const page = await get(templateUrl("run-b", "count_char"));
        const mine = outcomes.filter((o) => o.runId === "run-b" && o.template === "count_char");
        const cells = [...page.matchAll(/<td class="cell"><a [^>]*data-verdict="([a-z_]+)"/g)].map((m) => m[1]);
        expect(cells).toHaveLength(mine.length);
        for (const category of new Set(mine.map((o) => o.category))) expect(cells.filter((c) => c === category).length, category).toBe(mine.filter((o) => o.category === category).length);
    });

    it("comparing two configurations of different runs gives the report's McNemar; every flip's two answers are side by side, paged, each linked to answers that exist", async () => {
        const a = configIds.get("run-a|tiny-a t=0 default")!;
        const b = configIds.get("run-b|tiny-b t=0 default")!;
        const page = await get(compareUrl(a, b));
        const paired = pairedComparisons(
            outcomes.filter((o) => o.config === "tiny-a t=0 default" || o.config === "tiny-b t=0 default"),
            ["tiny-a t=0 default", "tiny-b t=0 default"],
            Infinity
        )[0]!;
        expect(page).toContain(`<td class="n">${paired.allPassed.b} / ${paired.allPassed.c}</td><td class="n">${escapeHtml(pval(paired.allPassed.p))}</td>`);
        expect(page).toContain(`<td class="n">${paired.perResponse.b} / ${paired.perResponse.c}</td><td class="n">${escapeHtml(pval(paired.perResponse.p))}</td>`);
        expect(paired.lostInB.length + paired.gainedInB.length).toBeGreaterThan(0);
        // Every flip of a page is an article with both sides' code; the flips are paged FLIPS_PAGE at a time, lost and gained apart.
        const articles = (html: string) => [...html.matchAll(/<article class="flip" id="flip-([^"]+)"/g)].map((m) => m[1]!);
        // In the store's order: by template, then instance.
        const inOrder = (list: readonly { template: string; instance: number }[]) => [...list].sort((x, y) => x.template.localeCompare(y.template) || x.instance - y.instance).slice(0, FLIPS_PAGE).map((i) => `${i.template}-${i.instance}`);
        const shownLost = articles(page);
        expect(shownLost).toEqual(inOrder(paired.lostInB));
        const gained = await get(compareUrl(a, b, { flips: "gained" }));
        expect(articles(gained)).toEqual(inOrder(paired.gainedInB));
        for (const html of [page, gained]) {
            const n = articles(html).length;
            expect((html.match(/<div class="side (passing|failing)" data-side="A">/g) ?? []).length).toBe(n);
            expect((html.match(/<div class="side (passing|failing)" data-side="B">/g) ?? []).length).toBe(n);
        }
        const links = [...page.matchAll(/href="(\/run\/[^"]+\/instance\/\d+)(#round-\d+)?"/g)].map((m) => m[1]!);
        expect(links.length).toBeGreaterThan(2 * shownLost.length);
        for (const l of [...new Set(links)].slice(0, 6)) await get(l.replace(/&amp;/g, "&"));
        // A page past the last is a 404 saying how many there are; a bad value is a 400.
        expect((await fetch(viewer.url.replace(/\/$/, "") + compareUrl(a, b, { page: 99 }))).status).toBe(404);
        expect((await fetch(viewer.url.replace(/\/$/, "") + compareUrl(a, b, { flips: "sideways" }))).status).toBe(400);
    });

    it("the per-template deltas sort by any column, by a link", async () => {
        const a = configIds.get("run-a|tiny-a t=0 default")!;
        const b = configIds.get("run-b|tiny-b t=0 default")!;
        const rows = async (sort?: string, dir?: string) =>
            [...(await get(compareUrl(a, b, { sort, dir }))).split('id="per-template"')[1]!.matchAll(/<tr><td><a href="[^"]+">([^<]+)<\/a><\/td>((?:<td class="n">[^<]*<\/td>){3})/g)].map((m) => [m[1]!, [...m[2]!.matchAll(/<td class="n">([^<]*)<\/td>/g)].map((x) => x[1]!)]);
        const byName = await rows();
        expect(byName.map(([t]) => t)).toEqual([...byName.map(([t]) => t as string)].sort());
        const byDelta = await rows("dAS", "asc");
        const deltas = byDelta.map(([, v]) => Number((v as string[])[2]!.replace("+", "")));
        expect(deltas).toEqual([...deltas].sort((x, y) => x - y));
        expect(byDelta.length).toBe(byName.length);
        // The header links to the other direction.
        expect(await get(compareUrl(a, b, { sort: "dAS", dir: "asc" }))).toContain(`href="${compareUrl(a, b, { sort: "dAS" }).replace(/&/g, "&amp;")}#deltas"`);
    });

    it("the leaderboard's scores are the report's, per configuration, with judged counts and intervals", async () => {
        const page = await get("/");
        for (const run of ["run-a", "run-b"]) {
            const { data } = buildReport(
                outcomes.filter((o) => o.runId === run),
                [{ id: run }]
            );
            for (const c of data.configs) {
                const id = configIds.get(`${run}|${c.config}`)!;
                const row = new RegExp(`<td class="config" data-config="${id}">(.*?)</tr>`).exec(page)?.[1];
                expect(row, c.config).toBeDefined();
                for (const k of ["AS", "CPS", "CCS"] as const) expect(row).toMatch(new RegExp(`data-score="${k}"[^>]*>${fix(c[k]).replace(".", "\\.")}<small>\\d\\.\\d\\d–\\d\\.\\d\\d</small>`));
                expect(row).toContain(`${c.coverage.judged} of ${c.coverage.total}`);
            }
        }
        expect(page).toContain('<a href="/runs">the list of runs</a>');
    });

    it("the static report links each answer it shows to the viewer when given its address", async () => {
        const out = path.join(dir, "report.html");
        eddy(["report", "run-a", "--db", db, "--format", "html", "--out", out, "--viewer-url", "http://127.0.0.1:7733/"]);
        const text = readFileSync(out, "utf8");
        const links = [...text.matchAll(/href="http:\/\/127\.0\.0\.1:7733(\/run\/[^"]+)"/g)].map((m) => m[1]!);
        expect(links.length).toBeGreaterThan(5);
        // Each is an answer's page on a viewer of this database.
        for (const l of links.slice(0, 4)) await get(l.replace(/&amp;/g, "&").replace(/#.*$/, ""));
        expect(() => eddy(["report", "run-a", "--db", db, "--format", "json", "--viewer-url", "http://127.0.0.1:7733"])).toThrow(/--viewer-url links the answers of the HTML report/);
        // Inside the viewer, the run's report links to the answers here.
        expect(await get("/run/run-a/report")).toMatch(/<a class="viewer" href="\/run\/run-a\/config\/\d+\/template\//);
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
        // A table, no JSON dump: what the record holds is read into its columns, and what it lacks says so.
        expect(page).toContain('<td class="n">25.0%</td>');
        expect(page).toContain("— recorded in another form: &lt;script&gt;x&lt;/script&gt;");
        expect(page).not.toContain("&quot;responseShare&quot;");
        expect(page).not.toContain("<script>x");
        // An audit as 'eddy audit determinism' records it: what was asked, each session against the baseline, the first divergence.
        const w2 = openStore(db);
        try {
            const comparisons = [
                { variant: "repeat", sequences: 1, responses: 8, differingResponses: 0, differingVerdicts: 0, responseShare: 0, verdictShare: 0, firstDivergence: null },
                { variant: "sequences=4", sequences: 4, responses: 8, differingResponses: 2, differingVerdicts: 1, responseShare: 0.25, verdictShare: 0.125, firstDivergence: { query: "copy_block|1|0", charOffset: 17, a: "return x[:2]", b: "return x[:3]" } }
            ];
            const settings = { templates: "copy_block", instances: 4, rounds: 2, temperature: 0, seed: 1, maxTokens: 256, threads: 2, sequences: [1, 4], groupSize: 1 };
            w2.audits.record({ modelSha256: "cd".repeat(32), model: "tiny-full", mode: "reproducible", eddyVersion: "x", responses: 8, differingResponses: 2, differingVerdicts: 1, identical: false, result: { model: "tiny-full", modelSha256: "cd".repeat(32), mode: "reproducible", eddyVersion: "x", settings, comparisons, rounds: { prompts: 4, differing: 0 }, identical: false } });
        } finally {
            w2.close();
        }
        const full = await get("/audits");
        expect(full).toContain("copy_block: 4 instance(s) × 2 round(s), t=0, seed 1, at most 256 tokens");
        expect(full).toContain("4 parallel sequences instead of one");
        expect(full).toContain('<td class="n">2 of 8 (25.0%)</td><td class="n">1 of 8 (12.5%)</td>');
        expect(full).toContain("copy_block|1|0, at character 17");
        expect(full).toContain("— none: every response identical");
        expect(full).toContain("Greedy rounds: 0 of 4 prompts have rounds that differ");
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
