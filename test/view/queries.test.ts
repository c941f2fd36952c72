import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadOutcomes, runAnswers } from "../../src/store/outcomes.js";
import { openStore, type Store } from "../../src/store/Store.js";
import { RunDataCache } from "../../src/view/runData.js";
import { sampleStudy } from "../report/sample.js";
import { writeOutcomes } from "../report/storeFixture.js";
import { buildReport } from "../../src/report/buildReport.js";
import type { Outcome } from "../../src/vocabulary.js";

/** The viewer's queries against the same study read as `eddy report` reads it. */
describe("store.view: the viewer's read-only queries", () => {
    let dir: string;
    let db: string;
    let store: Store;
    // Responses with LIKE's wildcards in them, so a search for them must match them literally.
    const outcomes: Outcome[] = sampleStudy().map((o, i) => ({ ...o, response: i === 5 ? "100% sure a_b" : i === 6 ? "100 percent sure aXb" : o.response }));
    beforeAll(() => {
        dir = mkdtempSync(path.join(tmpdir(), "eddy-view-q-"));
        db = path.join(dir, "eddy.db");
        writeOutcomes(db, outcomes);
        store = openStore(db, { readonly: true });
    });
    afterAll(() => {
        store.close();
        rmSync(dir, { recursive: true, force: true });
    });

    it("scoring outcomes are the report's outcomes without their text, in the same order", () => {
        const full = loadOutcomes(store, ["run-a"]);
        const slim = store.view.scoringOutcomes("run-a");
        expect(slim.map((o) => ({ ...o, code: null, response: "" }))).toEqual(full.map((o) => ({ ...o, detail: o.detail.startsWith("tampering:") ? o.detail : "", code: null, response: "" })));
        // And the same report data: the scores do not read the text.
        const strip = (d: ReturnType<typeof buildReport>["data"]) => JSON.parse(JSON.stringify({ ...d, discontinuities: d.discontinuities.map((x) => ({ ...x, instances: x.instances.map((i) => ({ ...i, failures: [] })) })) }));
        expect(strip(buildReport(slim, [{ id: "run-a" }], { generated: "x" }).data)).toEqual(strip(buildReport(full, [{ id: "run-a" }], { generated: "x" }).data));
    });

    it("filters answers by each field and counts them as the outcomes do", () => {
        const count = (f: Parameters<Store["view"]["answers"]>[0]) => store.view.answers(f, 0, 500).rows.length;
        const expected = (p: (o: Outcome) => boolean) => outcomes.filter(p).length;
        expect(count({ run: "run-a", category: "assertion_error" })).toBe(expected((o) => o.runId === "run-a" && o.category === "assertion_error"));
        expect(count({ template: "count_char", model: "tiny-a", temperature: 0.8 })).toBe(expected((o) => o.template === "count_char" && o.model === "tiny-a" && o.temperature === 0.8));
        expect(count({ group: "math", category: "failing" })).toBe(expected((o) => o.group === "math" && !["passed", "truncated", "judge_error"].includes(o.category)));
        expect(count({ language: "python", run: "run-b", template: "count_char" })).toBe(expected((o) => o.runId === "run-b" && o.template === "count_char"));
        expect(count({ language: "ruby" })).toBe(0);
        expect(count({ q: "FAILED ON INSTANCE 3" })).toBe(expected((o) => o.detail === "failed on instance 3"));
        expect(count({ q: "100% sure a_b" })).toBe(1);
        expect(count({ q: "%" })).toBe(1);
    });

    it("pages without counting everything: `more` until the last page", () => {
        const all = store.view.answers({}, 0, 500).rows.length + store.view.answers({}, 500, 500).rows.length + store.view.answers({}, 1000, 500).rows.length + store.view.answers({}, 1500, 500).rows.length;
        expect(all).toBe(outcomes.length);
        const first = store.view.answers({ run: "run-b" }, 0, 50);
        const second = store.view.answers({ run: "run-b" }, 50, 50);
        expect(first.more).toBe(true);
        expect(first.rows.map((r) => r.id)).not.toEqual(expect.arrayContaining([second.rows[0]!.id]));
        expect(store.view.answers({ run: "run-b" }, expected600(), 50).more).toBe(false);
        function expected600() {
            return outcomes.filter((o) => o.runId === "run-b").length - 10;
        }
    });

    it("a template's grid holds every answer of each configuration, and the run data is rebuilt only when the run changes", () => {
        const grid = store.view.grid("run-a", "sum_index_range");
        expect(grid).toHaveLength(outcomes.filter((o) => o.runId === "run-a" && o.template === "sum_index_range").length);
        const cache = new RunDataCache(store);
        const a = cache.get("run-a");
        expect(cache.get("run-a")).toBe(a);
        // Another process adds a run: run-a is unchanged, so its data is kept.
        writeOutcomes(db, sampleStudy().map((o) => ({ ...o, runId: "run-c" })));
        expect(cache.get("run-a")).toBe(a);
        expect(cache.get("run-c").data.configs.length).toBeGreaterThan(0);
        // An answer added to run-a (a study still running): its data is rebuilt with it.
        const writer = openStore(db);
        try {
            const conf = writer.configurations("run-a")[0]!;
            const key = { configId: conf.id, templateId: "sum_index_range", instance: 0, round: 9 };
            writer.writeBatch({
                generations: [{ ...key, seed: 1, prompt: "[]", response: "late", code: null, stopReason: "eogToken", promptTokens: 1, generatedTokens: 1, ttftMs: 1, genMs: 1 } as never],
                verdicts: [{ ...key, category: "syntax_error", judgeCategory: "syntax_error", detail: "late", ms: 1 }],
                responses: [],
                verdictCache: []
            });
        } finally {
            writer.close();
        }
        const b = cache.get("run-a");
        expect(b).not.toBe(a);
        expect(b.outcomes.length).toBe(a.outcomes.length + 1);
        expect(b.data.configs[0]!.verdictShares.syntax_error ?? 0).toBeGreaterThan(a.data.configs[0]!.verdictShares.syntax_error ?? 0);
        // Only the neighbourhood written to was scored again, and the result is what scoring everything gives.
        expect(cache.lastRescored).toBe(1);
        const fresh = new RunDataCache(store).get("run-a");
        expect(JSON.parse(JSON.stringify({ ...b.data, generated: "" }))).toEqual(JSON.parse(JSON.stringify({ ...fresh.data, generated: "" })));
        expect(b.scores).toEqual(fresh.scores);
        // Its answers counted from the neighbourhoods' counts, as every command counts them from the store.
        expect(b.info.answers).toEqual(runAnswers(store.counts("run-a"), b.info.config, b.info.status));
        expect(b.info.answers!.judged).toBe(a.info.answers!.judged + 1);
    });
});
