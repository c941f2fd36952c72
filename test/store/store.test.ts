import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openStore, Store, StoreVerdictCache } from "../../src/store/Store.js";
import { MIGRATIONS } from "../../src/store/schema.js";
import { exportRows, loadOutcomes, runInfo } from "../../src/store/outcomes.js";
import { EddyError } from "../../src/util/errors.js";
import type { NewGeneration } from "../../src/store/types.js";
import { connection } from "../../src/store/connection.js";

const dirs: string[] = [];
function tmpDb(): string {
    const d = mkdtempSync(path.join(os.tmpdir(), "eddy-store-"));
    dirs.push(d);
    return path.join(d, "eddy.db");
}
afterEach(() => {
    delete process.env.EDDY_DB_MAX_PAGES;
    delete process.env.EDDY_BUSY_TIMEOUT_MS;
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A run with one configuration, one template and `n` instances; returns the configuration id. */
function seedRun(store: Store, id: string, hash = id, model = "tiny-f32"): number {
    store.createOrFindRun({ id, configHash: hash, config: { templates: "t1", instances: 2, rounds: 2 }, eddyVersion: "0.1.0", backend: "llama", seed: 7 }, true);
    const conf = store.upsertConfiguration({ runId: id, model, modelSha256: "ab".repeat(32), quantization: "F32", temperature: 0, wrapper: "default", decoding: { temperature: 0 }, metadata: { threads: 1 } });
    store.recordTemplates(id, [{ id: "t1", oracleHash: "h1", group: "list", subgroups: ["indexing"], function: "f" }]);
    store.insertInstances(id, [0, 1].map((i) => ({ templateId: "t1", index: i, params: [i, i + 1], bindings: { lo: i, hi: i + 1 }, question: `q${i}` })));
    return conf.id;
}

const gen = (configId: number, instance: number, round: number, extra: Partial<NewGeneration> = {}): NewGeneration => ({
    configId, templateId: "t1", instance, round, seed: 100 + instance * 10 + round, prompt: "[]", response: `r${instance}.${round}`, code: `def f(): return ${instance}`,
    stopReason: "eos", promptTokens: 5, generatedTokens: 7, ttftMs: 1, genMs: 2, ...extra
});
const empty = { generations: [], verdicts: [], responses: [], verdictCache: [] };

/** The store as the eddy `behind` migrations ago left it: `undo` takes those migrations back. */
function asOlderEddy(file: string, undo: string, behind: number): void {
    const raw = new Database(file);
    raw.exec(undo);
    raw.pragma(`user_version = ${MIGRATIONS.length - behind}`);
    raw.close();
}

/** The schema version the file itself says (read without eddy, so nothing migrates it). */
function fileSchema(file: string): number {
    const raw = new Database(file, { readonly: true });
    try {
        return raw.pragma("user_version", { simple: true }) as number;
    } finally {
        raw.close();
    }
}

describe("store", () => {
    it("creates the schema with WAL, foreign keys and the migration count as user_version", () => {
        const file = tmpDb();
        const store = openStore(file);
        expect(store.schemaVersion()).toBe(MIGRATIONS.length);
        expect(connection(store).pragma("journal_mode", { simple: true })).toBe("wal");
        expect(connection(store).pragma("foreign_keys", { simple: true })).toBe(1);
        store.close();
        // Reopening applies nothing twice.
        const again = openStore(file);
        expect(again.schemaVersion()).toBe(MIGRATIONS.length);
        again.close();
    });

    it("reads a store behind only by an index from its file, read-only: a later write by another process is seen", () => {
        const file = tmpDb();
        const writer = openStore(file);
        const cid = seedRun(writer, "run-a");
        writer.close();
        // As the eddy before the answers' shape index left it.
        asOlderEddy(file, "DROP INDEX generations_shape", 1);
        const reader = openStore(file, { readonly: true });
        expect(reader.counts("run-a").generations).toBe(0);
        expect(fileSchema(file)).toBe(MIGRATIONS.length - 1);
        // A study writes (its writable open adds the index): the reader, on the file and not on a copy, sees the answer.
        const study = openStore(file);
        study.writeBatch({ ...empty, generations: [gen(cid, 0, 0)] });
        study.close();
        expect(reader.counts("run-a").generations).toBe(1);
        reader.close();
        // A store behind by more than an index (here, the shrunk inputs' columns) is still read from an up-to-date copy.
        asOlderEddy(file, "DROP INDEX generations_shape; ALTER TABLE verdicts DROP COLUMN shrunk_json; ALTER TABLE verdict_cache DROP COLUMN shrunk_json;", 2);
        const copy = openStore(file, { readonly: true });
        expect(copy.schemaVersion()).toBe(MIGRATIONS.length);
        expect(loadOutcomes(copy, ["run-a"])).toEqual([]);
        copy.close();
        expect(fileSchema(file)).toBe(MIGRATIONS.length - 2);
    });

    it("refuses a database from a newer schema with a clear error", () => {
        const file = tmpDb();
        const raw = new Database(file);
        raw.pragma(`user_version = ${MIGRATIONS.length + 5}`);
        raw.close();
        expect(() => openStore(file)).toThrow(/newer eddy/);
    });

    it("same config hash finds the same run; inserts are idempotent on their keys", () => {
        const store = openStore(tmpDb());
        const cid = seedRun(store, "run-a", "hash-1");
        const again = store.createOrFindRun({ id: "run-b", configHash: "hash-1", config: {}, eddyVersion: "0", backend: "llama", seed: 7 }, true);
        expect(again).toMatchObject({ created: false, run: { id: "run-a" } });
        const g = gen(cid, 0, 0);
        store.writeBatch({ ...empty, generations: [g, g] });
        store.writeBatch({ ...empty, generations: [{ ...g, response: "other" }] });
        const v = { configId: cid, templateId: "t1", instance: 0, round: 0, category: "passed" as const, judgeCategory: "passed" as const, detail: "", ms: 3 };
        store.writeBatch({ ...empty, verdicts: [v, { ...v, category: "runtime_error" }] });
        const rows = connection(store).prepare("SELECT response FROM generations").all() as { response: string }[];
        expect(rows).toEqual([{ response: "r0.0" }]);
        expect(connection(store).prepare("SELECT category FROM verdicts").all()).toEqual([{ category: "passed" }]);
        expect(store.counts("run-a")).toMatchObject({ generations: 1, verdicts: 1, categories: { passed: 1 } });
        store.close();
    });

    it("lists generations without a verdict for re-judging, never missing replay answers", () => {
        const store = openStore(tmpDb());
        const cid = seedRun(store, "r1");
        store.writeBatch({ ...empty, generations: [gen(cid, 0, 0), gen(cid, 0, 1), gen(cid, 1, 0, { missing: true, response: "" })] });
        store.writeBatch({ ...empty, verdicts: [{ configId: cid, templateId: "t1", instance: 0, round: 0, category: "passed", judgeCategory: "passed", detail: "", ms: 1 }] });
        expect(store.unjudged("r1").map((g) => [g.instance_idx, g.round])).toEqual([[0, 1]]);
        // A judge_error verdict is judged again on resume, and the new verdict replaces it.
        const je = { configId: cid, templateId: "t1", instance: 0, round: 1, category: "judge_error" as const, judgeCategory: "judge_error" as const, detail: "worker died", ms: 1 };
        store.writeBatch({ ...empty, verdicts: [je] });
        expect(store.unjudged("r1").map((g) => [g.instance_idx, g.round])).toEqual([[0, 1]]);
        store.writeBatch({ ...empty, verdicts: [{ ...je, category: "runtime_error", judgeCategory: "runtime_error", detail: "ZeroDivisionError" }] });
        expect(store.unjudged("r1")).toEqual([]);
        expect(store.counts("r1").categories).toEqual({ passed: 1, runtime_error: 1 });
        expect([...store.generatedKeys(cid)].sort()).toEqual(["t1|0|0", "t1|0|1", "t1|1|0"]);
        store.close();
    });

    it("loadOutcomes joins everything scoring needs and keeps labels unique across runs", () => {
        const store = openStore(tmpDb());
        const a = seedRun(store, "run-a");
        const b = seedRun(store, "run-b");
        const c = store.upsertConfiguration({ runId: "run-b", model: "tiny-q8_0", quantization: "Q8_0", temperature: 0.8, wrapper: "default", decoding: { temperature: 0.8 } }).id;
        for (const cid of [a, b, c]) {
            store.writeBatch({ ...empty, generations: [gen(cid, 0, 0), gen(cid, 1, 0), gen(cid, 1, 1, { missing: true })] });
            store.writeBatch({
                ...empty,
                verdicts: [
                    { configId: cid, templateId: "t1", instance: 0, round: 0, category: "passed", judgeCategory: "passed", detail: "", ms: 1 },
                    { configId: cid, templateId: "t1", instance: 1, round: 0, category: "truncated", judgeCategory: "syntax_error", detail: "line 3", ms: 1 }
                ]
            });
        }
        const out = loadOutcomes(store, ["run-a", "run-b"]);
        expect(out).toHaveLength(6); // the missing answers are left out
        expect([...new Set(out.map((o) => o.config))].sort()).toEqual(["tiny-f32 t=0 default @run-a", "tiny-f32 t=0 default @run-b", "tiny-q8_0 t=0.8 default"]);
        const one = out.find((o) => o.runId === "run-a" && o.instance === 1)!;
        expect(one).toMatchObject({ model: "tiny-f32", quantization: "F32", temperature: 0, wrapper: "default", template: "t1", group: "list", subgroups: ["indexing"], params: [1, 2], round: 0, seed: 110, category: "truncated", detail: "line 3", code: "def f(): return 1", response: "r1.0" });
        // A single run keeps the plain label.
        expect(new Set(loadOutcomes(store, ["run-a"]).map((o) => o.config))).toEqual(new Set(["tiny-f32 t=0 default"]));
        const rows = exportRows(store, "run-a");
        expect(rows).toHaveLength(3);
        expect(rows.map((r) => r.category)).toEqual(["passed", "truncated", "missing"]);
        expect(runInfo(store, "run-b").configurations.map((c) => c.label)).toEqual(["tiny-f32 t=0 default", "tiny-q8_0 t=0.8 default"]);
        expect(() => loadOutcomes(store, ["nope"])).toThrow(EddyError);
        store.close();
    });

    it("verdict cache reads its own buffered writes and persists them with the next batch; judge errors are not cached", () => {
        const file = tmpDb();
        const store = openStore(file);
        const cache = new StoreVerdictCache(store);
        cache.set("k1", { category: "passed", detail: "", ms: 4 });
        cache.set("k2", { category: "judge_error", detail: "worker died", ms: 1 });
        expect(cache.get("k1")).toMatchObject({ category: "passed", cached: true });
        expect(cache.get("k2")).toBeUndefined();
        store.writeBatch({ ...empty, verdictCache: cache.drain() });
        store.close();
        const again = new StoreVerdictCache(openStore(file));
        expect(again.get("k1")).toEqual({ category: "passed", detail: "", ms: 4, cached: true });
    });

    it("a full database is a clear error and keeps what was committed", () => {
        const file = tmpDb();
        const store = openStore(file);
        const cid = seedRun(store, "r1");
        store.writeBatch({ ...empty, generations: [gen(cid, 0, 0)] });
        const pages = connection(store).pragma("page_count", { simple: true }) as number;
        connection(store).pragma(`max_page_count = ${pages + 2}`);
        const big = "x".repeat(64 * 1024);
        let err: unknown;
        try {
            store.writeBatch({ ...empty, generations: [gen(cid, 0, 1, { response: big }), gen(cid, 1, 0, { response: big })] });
        } catch (e) {
            err = e;
        }
        expect(err).toBeInstanceOf(EddyError);
        expect((err as EddyError).message).toMatch(/is full/);
        store.close();
        const reopened = openStore(file);
        expect(reopened.counts("r1").generations).toBe(1);
        reopened.close();
    });

    it("a database locked by another connection is a clear error after the busy timeout", () => {
        const file = tmpDb();
        openStore(file).close();
        const holder = new Database(file);
        holder.exec("BEGIN EXCLUSIVE");
        process.env.EDDY_BUSY_TIMEOUT_MS = "100";
        const store = openStore(file);
        expect(() => seedRun(store, "r1")).toThrow(/locked by another process/);
        holder.exec("ROLLBACK");
        holder.close();
        seedRun(store, "r1");
        expect(store.getRun("r1")?.status).toBe("running");
        store.close();
    });
});
