import { copyFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ensureTinyModels } from "../../src/inference/gguf/tinyModel.js";
import { normalizeStudyConfig, type StudyConfig } from "../../src/run/config.js";
import { countFences, finalCategory, runStudy } from "../../src/run/runStudy.js";
import { planStudy } from "../../src/run/plan.js";
import { ReplayBackend } from "../../src/inference/replay/ReplayBackend.js";
import { openStore } from "../../src/store/Store.js";
import { exportRows, loadOutcomes, runInfo } from "../../src/store/outcomes.js";
import { scoreNeighbourhoods } from "../../src/scores/index.js";
import { loadStudy } from "../../src/report/loadStudy.js";
import { renderReport } from "../../src/report/renderReport.js";
import { loadAllTemplates } from "../../src/templates/loadTemplates.js";
import { EddyError } from "../../src/util/errors.js";
import { MODEL_CATEGORIES } from "../../src/vocabulary.js";
import { cleanTmp, countRows, tmpDir, verdictTable } from "./helpers.js";
import { builtInLibrary } from "../../src/templates/library.js";

afterEach(() => {
    delete process.env.EDDY_DB_MAX_PAGES;
    delete process.env.EDDY_BUSY_TIMEOUT_MS;
});
afterAll(cleanTmp);

const tiny = ensureTinyModels();
const study = (raw: Record<string, unknown>): StudyConfig => normalizeStudyConfig({ seed: 3, judgeWorkers: 2, ...raw });

describe("truncation rule", () => {
    it("a cut-off failing response is truncated; passing code passes; judge errors stay apart", () => {
        expect(finalCategory("syntax_error", "max_tokens")).toBe("truncated");
        expect(finalCategory("no_function", "context_full")).toBe("truncated");
        expect(finalCategory("passed", "max_tokens")).toBe("passed");
        expect(finalCategory("judge_error", "max_tokens")).toBe("judge_error");
        expect(finalCategory("syntax_error", "eos")).toBe("syntax_error");
        // A closed code block before the cut: the cut did not touch the code, the verdict stands.
        expect(finalCategory("assertion_error", "max_tokens", countFences("```python\ndef f(): pass\n```\nand then the model rambled on"))).toBe("assertion_error");
        expect(finalCategory("syntax_error", "max_tokens", countFences("```python\ndef f(:"))).toBe("truncated");
    });
});

describe("plan", () => {
    it("gives every model file its own label, so two files never share a configuration", () => {
        const plan = planStudy(study({ models: ["/m/a/x/m.gguf", "/m/b/x/m.gguf", "/m/y/m.gguf", "/m/z/n.gguf"], templates: "list_every_kth", instances: 1, rounds: 1 }), builtInLibrary());
        expect(plan.models.map((m) => m.label)).toEqual(["/m/a/x/m.gguf", "/m/b/x/m.gguf", "y/m", "n"]);
        expect(plan.queries).toBe(4);
    });
});

describe("replay file", () => {
    it("rejects a malformed line with one clear error naming the line", () => {
        const f = path.join(tmpDir(), "bad.jsonl");
        const line = { template: "t", instance: 0, round: 0, response: "x" };
        writeFileSync(f, `${JSON.stringify(line)}\n${JSON.stringify({ ...line, round: 1, generated_tokens: "12" })}\n`);
        expect(() => new ReplayBackend(f)).toThrow(/line 2: 'generated_tokens' must be a non-negative integer/);
        writeFileSync(f, `${JSON.stringify(line)}\n${JSON.stringify(line)}\n`);
        expect(() => new ReplayBackend(f)).toThrow(/line 2: a second answer for t instance 0 round 0/);
        writeFileSync(f, "not json\n");
        expect(() => new ReplayBackend(f)).toThrow(EddyError);
    });
});

describe("runStudy", () => {
    it("reference backend scores AS = 1 on every template", async () => {
        const db = path.join(tmpDir(), "ref.db");
        const ids = loadAllTemplates(builtInLibrary()).map((t) => t.id);
        // 4 instances: the edge tuples come first, so these are the ones most likely to trip a reference.
        const r = await runStudy(study({ backend: "reference", templates: "all", instances: 4, rounds: 1, db }));
        expect(r.status).toBe("complete");
        const store = openStore(db);
        const outcomes = loadOutcomes(store, [r.runId]);
        store.close();
        expect(outcomes).toHaveLength(ids.length * 4);
        const failing = outcomes.filter((o) => o.category !== "passed").map((o) => `${o.template} #${o.instance}: ${o.category} ${o.detail}`);
        expect(failing).toEqual([]);
        const scores = scoreNeighbourhoods(outcomes);
        expect(scores.map((s) => s.template).sort()).toEqual([...ids].sort());
        for (const s of scores) expect(s.AS, s.template).toBe(1);
    }, 600_000); // 300 verdicts and 75 oracle validations: the suite's heaviest single study

    it("replay: answers are judged, a missing answer is reported and recorded, never invented", async () => {
        const dir = tmpDir();
        const db = path.join(dir, "replay.db");
        const t = loadAllTemplates(builtInLibrary())[0]!;
        // Correct answers from the reference backend (instances 0-1, both rounds), minus one line, plus one wrong answer.
        const ref = await runStudy(study({ backend: "reference", templates: t.id, instances: 2, rounds: 2, db }));
        const store = openStore(db);
        const rows = exportRows(store, ref.runId);
        store.close();
        const lines = rows
            .filter((r) => !(r.instance === 1 && r.round === 1))
            .map((r) => ({ template: r.template, instance: r.instance, round: r.round, response: r.instance === 0 && r.round === 1 ? "```python\ndef nope(:\n```" : r.response }));
        const file = path.join(dir, "answers.jsonl");
        writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
        const logs: string[] = [];
        const r = await runStudy(study({ backend: "replay", replay: file, templates: t.id, instances: 2, rounds: 2, db }), { onLog: (l) => logs.push(l) });
        expect(r.missing).toEqual([`${t.id}|1|1`]);
        expect(logs.join("\n")).toMatch(/1 answer\(s\) missing/);
        const s2 = openStore(db);
        const outcomes = loadOutcomes(s2, [r.runId]);
        const exported = exportRows(s2, r.runId);
        const info = runInfo(s2, r.runId);
        s2.close();
        expect(outcomes.map((o) => `${o.instance}.${o.round}`)).toEqual(["0.0", "0.1", "1.0"]);
        expect(outcomes.map((o) => o.category === "passed")).toEqual([true, false, true]);
        expect(MODEL_CATEGORIES).toContain(outcomes[1]!.category);
        expect(exported.find((e) => e.instance === 1 && e.round === 1)).toMatchObject({ category: "missing" });
        expect(info.counts).toMatchObject({ generations: 3, missing: 1, verdicts: 3 });
        // The run is complete: a missing answer is recorded, not retried forever.
        expect(info.status).toBe("complete");
        // ...but the report never shows it as plainly complete: the missing answer is counted in every format.
        const loaded = loadStudy(db, [r.runId]);
        const json = JSON.parse(await renderReport(loaded.outcomes, loaded.runs, "json", { planned: loaded.planned }));
        expect(json.runs[0].missing).toBe(1);
        expect(json.runs[0].templates[0]).toMatchObject({ R: 2, M: 2, Mtotal: 2, harness: { truncated: 0, judge_error: 0, missing: 1 } });
        expect(await renderReport(loaded.outcomes, loaded.runs, "text", { planned: loaded.planned })).toMatch(/incomplete: 1 answer missing/);
        // The file stands in for the model: an edited file cannot silently continue (or stand for) the same run.
        writeFileSync(file, [...lines, { template: t.id, instance: 1, round: 1, response: "late" }].map((l) => JSON.stringify(l)).join("\n") + "\n");
        await expect(runStudy(study({ backend: "replay", replay: file, templates: t.id, instances: 2, rounds: 2, db }))).rejects.toThrow(/changed since run .* began/);
    });

    it("an abort stops a study promptly: queued queries are dropped, what was stored stays, resume completes it", async () => {
        const db = path.join(tmpDir(), "abort.db");
        const base = { models: [tiny.f32], templates: "list_every_kth,math_count_coprime", instances: 10, rounds: 2, maxTokens: 96, contextSize: 1024, threads: 1, sequences: 1, db };
        const stop = new AbortController();
        const first = await runStudy(study(base), { signal: stop.signal, progressMs: 20, onProgress: (p) => p.generated >= 2 && stop.abort() });
        expect(first.status).toBe("interrupted");
        const stored = countRows(db, "generations");
        expect(stored).toBeGreaterThanOrEqual(2);
        expect(stored).toBeLessThan(40); // the 40 queries were all sent to the worker up front: only cancelling drops them
        const resumed = await runStudy(study(base));
        expect(resumed).toMatchObject({ runId: first.runId, status: "complete" });
        expect(countRows(db, "generations")).toBe(40);
        expect(countRows(db, "verdicts")).toBe(40);
    }, 300_000); // several tiny-model studies: room for a busy shared machine

    it("tiny model end to end; an identical query in a later run comes from the response cache unless noCache", async () => {
        const db = path.join(tmpDir(), "tiny.db");
        const base = { models: [tiny.f32], templates: "list_every_kth,math_count_coprime", instances: 3, rounds: 2, maxTokens: 24, contextSize: 1024, threads: 1, db };
        const first = await runStudy(study(base));
        expect(first).toMatchObject({ status: "complete", created: true });
        expect(first.stats.generation).toMatchObject({ responses: 12, cached: 0, errors: 0 });
        expect(first.stats.generation.tokens).toBeGreaterThan(0);
        const again = await runStudy(study(base));
        expect(again).toMatchObject({ runId: first.runId, created: false, status: "complete" });
        expect(again.stats.generation.responses).toBe(0); // same config: same run, nothing generated twice
        const cachedRun = await runStudy(study({ ...base, fresh: true }));
        expect(cachedRun.runId).not.toBe(first.runId);
        expect(cachedRun.stats.generation).toMatchObject({ responses: 12, cached: 12, tokens: 0 });
        const noCache = await runStudy(study({ ...base, fresh: true, noCache: true }));
        expect(noCache.stats.generation).toMatchObject({ responses: 12, cached: 0 });
        // Greedy: the same answers every time, however they were obtained.
        expect(verdictTable(db, cachedRun.runId)).toEqual(verdictTable(db, first.runId));
        expect(verdictTable(db, noCache.runId)).toEqual(verdictTable(db, first.runId));
        const store = openStore(db);
        const info = runInfo(store, first.runId);
        store.close();
        expect(info.configurations[0]).toMatchObject({ model: "eddy-tiny-f32", quantization: expect.any(String), modelSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
        expect(info.configurations[0]!.metadata).toMatchObject({ backend: "llama", threads: 1 });
        expect(info.isolationLevel).toEqual(expect.any(String));
    }, 300_000); // several tiny-model studies: room for a busy shared machine

    it("resume judges generations that were stored without a verdict", async () => {
        const db = path.join(tmpDir(), "unjudged.db");
        const cfg = study({ backend: "reference", templates: "list_every_kth,math_count_coprime", instances: 3, rounds: 2, db });
        const first = await runStudy(cfg, { judge: false });
        expect(first.status).toBe("interrupted"); // generated, not judged: not complete
        expect([countRows(db, "generations"), countRows(db, "verdicts")]).toEqual([12, 0]);
        const second = await runStudy({ ...cfg, resume: first.runId });
        expect(second).toMatchObject({ status: "complete", stats: { generation: { responses: 0 }, judging: { verdicts: 12 } } });
        const store = openStore(db);
        const cats = loadOutcomes(store, [first.runId]).map((o) => o.category);
        store.close();
        expect(cats).toEqual(Array(12).fill("passed"));
    });

    it("unknown template: a clear error before anything is stored", async () => {
        const db = path.join(tmpDir(), "bad.db");
        await expect(runStudy(study({ backend: "reference", templates: "no_such_template", instances: 2, rounds: 1, db }))).rejects.toThrow(EddyError);
        expect(countRows(db, "runs")).toBe(0);
    });

    it("a remote model URI stays a URI and is refused without allowDownload, before anything is stored", async () => {
        const db = path.join(tmpDir(), "remote.db");
        const cfg = study({ models: ["hf:someone/some-model/model.gguf"], templates: "list_every_kth", instances: 2, rounds: 1, db });
        expect(cfg.models).toEqual(["hf:someone/some-model/model.gguf"]); // not resolved into a local path
        await expect(runStudy(cfg)).rejects.toThrow(/remote model.*--allow-download/);
        expect(countRows(db, "runs")).toBe(0);
    });

    it("model missing mid-study: a clear error, the first model's results kept, resume finishes", async () => {
        const dir = tmpDir();
        const db = path.join(dir, "two.db");
        const a = path.join(dir, "a.gguf");
        const b = path.join(dir, "b.gguf");
        copyFileSync(tiny.f32, a);
        copyFileSync(tiny.q8_0, b);
        const cfg = study({ models: [a, b], templates: "list_every_kth", instances: 2, rounds: 1, maxTokens: 16, threads: 1, db });
        let runId = "";
        await expect(
            runStudy(cfg, { onRunId: (id) => (runId = id), onModelDone: (m) => m === "a" && renameSync(b, b + ".away") })
        ).rejects.toThrow(/model file not found: .*b\.gguf/);
        expect(countRows(db, "verdicts")).toBe(2);
        renameSync(b + ".away", b);
        const r = await runStudy({ ...cfg, resume: runId });
        expect(r).toMatchObject({ runId, status: "complete" });
        expect(r.stats.generation.responses).toBe(2); // only b's answers were generated
        expect(countRows(db, "verdicts")).toBe(4);
    });

    it("a model file replaced at the same path cannot continue the run it began", async () => {
        const dir = tmpDir();
        const db = path.join(dir, "swap.db");
        const a = path.join(dir, "a.gguf");
        copyFileSync(tiny.f32, a);
        const cfg = study({ models: [a], templates: "list_every_kth", instances: 2, rounds: 1, maxTokens: 8, threads: 1, db });
        const first = await runStudy(cfg);
        // Leave one query unanswered, then put another model file in place.
        const raw = new Database(db);
        raw.exec("DELETE FROM verdicts WHERE generation_id = (SELECT MAX(id) FROM generations); DELETE FROM generations WHERE id = (SELECT MAX(id) FROM generations)");
        raw.close();
        copyFileSync(tiny.q8_0, a);
        await expect(runStudy({ ...cfg, resume: first.runId })).rejects.toThrow(/a\.gguf changed since run .* began/);
        expect(countRows(db, "generations")).toBe(1);
    });

    it("disk full: a clear error, what was committed stays, resume completes", async () => {
        const db = path.join(tmpDir(), "full.db");
        const cfg = study({ backend: "reference", templates: "list_every_kth,math_count_coprime", instances: 40, rounds: 2, db });
        // Room for the schema and the plan, not for all the answers.
        process.env.EDDY_DB_MAX_PAGES = "40";
        let runId = "";
        await expect(runStudy(cfg, { onRunId: (id) => (runId = id) })).rejects.toThrow(/is full/);
        delete process.env.EDDY_DB_MAX_PAGES;
        const raw = new Database(db, { readonly: true });
        expect(raw.pragma("integrity_check", { simple: true })).toBe("ok");
        raw.close();
        const r = await runStudy({ ...cfg, resume: runId });
        expect(r.status).toBe("complete");
        expect(countRows(db, "generations")).toBe(160);
        expect(countRows(db, "verdicts")).toBe(160);
    });

    it("database locked by another process: a clear error", async () => {
        const db = path.join(tmpDir(), "locked.db");
        openStore(db).close();
        const holder = new Database(db);
        holder.exec("BEGIN EXCLUSIVE");
        process.env.EDDY_BUSY_TIMEOUT_MS = "200";
        try {
            await expect(runStudy(study({ backend: "reference", templates: "list_every_kth", instances: 2, rounds: 1, db }))).rejects.toThrow(/locked by another process/);
        } finally {
            holder.exec("ROLLBACK");
            holder.close();
        }
    });
});
