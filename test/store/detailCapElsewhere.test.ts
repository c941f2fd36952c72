import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/store/Store.js";
import { mergeStores } from "../../src/store/merge.js";
import { publishedVerdicts, writePublishedVerdicts } from "../../src/store/publishedVerdicts.js";

const dirs: string[] = [];
afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
    const d = mkdtempSync(path.join(os.tmpdir(), "eddy-detail-elsewhere-"));
    dirs.push(d);
    return d;
}

/** A detail of about 10 MB, as a runaway test's output can be. */
const HUGE = "AssertionError: expected " + "9".repeat(10 * 1024 * 1024);

function expectCapped(d: string): void {
    expect(d.length).toBeLessThanOrEqual(2048);
    expect(d.startsWith("AssertionError: expected 999")).toBe(true);
    expect(d).toMatch(/…\[truncated \d+ chars\]$/);
}

/** A one-response study run `r1` (run, configuration, template, instance, generation, verdict). */
function study(store: Store, detail = "short"): void {
    store.createOrFindRun({ id: "r1", configHash: "h", config: {}, eddyVersion: "0.1.0", backend: "reference", seed: 1 }, false);
    const c = store.upsertConfiguration({ runId: "r1", model: "m", temperature: 0, wrapper: "default", decoding: { temperature: 0 } as never });
    store.recordTemplates("r1", [{ id: "t1", oracleHash: "h", group: "g", subgroups: [], function: "f" }]);
    store.insertInstances("r1", [{ templateId: "t1", index: 0, params: [1], bindings: {}, question: "q" }]);
    const key = { configId: c.id, templateId: "t1", instance: 0, round: 0 };
    store.writeBatch({
        generations: [{ ...key, seed: 1, prompt: "[]", response: "r", code: "def f(): pass", stopReason: "eogToken", promptTokens: 1, generatedTokens: 1, ttftMs: 1, genMs: 1 } as never],
        verdicts: [{ ...key, category: "assertion_error", judgeCategory: "assertion_error", detail, ms: 1 }],
        responses: [],
        verdictCache: []
    });
}

const details = (file: string, table: string): string[] => {
    const db = new Database(file, { readonly: true });
    try {
        return (db.prepare(`SELECT detail FROM ${table} ORDER BY rowid`).all() as { detail: string }[]).map((r) => r.detail);
    } finally {
        db.close();
    }
};

describe("verdict-like details are capped outside the study store too", () => {
    it("loop steps: a 10 MB detail is stored as at most 2,048 characters", () => {
        const db = path.join(tmp(), "eddy.db");
        const store = openStore(db);
        try {
            const loops = store.loops;
            loops.createRun({
                id: "loop-1", config_hash: "h", config_json: "{}", eddy_version: "0.1.0", backend: "reference", model: "m",
                model_path: null, model_sha256: null, quantization: null, summariser: null, metadata_json: null, isolation_level: null
            });
            loops.addTasks([{ run_id: "loop-1", template_id: "t1", instance_idx: 0, params_json: "[1]", bindings_json: "{}", question: "q", oracle_hash: "h" }]);
            loops.addSteps([
                {
                    run_id: "loop-1", template_id: "t1", instance_idx: 0, loop: 0, question: "q", prompt_json: "[]", response: "r", code: "def f(): pass",
                    category: "assertion_error", detail: HUGE, stop_reason: "eogToken", prompt_tokens: 1, generated_tokens: 1, gen_ms: 1
                }
            ]);
            const steps = loops.steps("loop-1");
            expect(steps).toHaveLength(1);
            expectCapped(steps[0]!.detail);
        } finally {
            store.close();
        }
    });

    it("published verdicts: a 10 MB detail is stored as at most 2,048 characters", () => {
        const db = path.join(tmp(), "eddy.db");
        const store = openStore(db);
        try {
            study(store);
            writePublishedVerdicts(store, "r1", [
                { templateId: "t1", instance: 0, round: 0, source: "turbulence", correct: false, stage: "fixed_tests", fault: null, detail: HUGE, extracted: null, location: "q1/r0" }
            ]);
            const got = publishedVerdicts(store, "r1");
            expect(got).toHaveLength(1);
            expectCapped(got[0]!.detail);
        } finally {
            store.close();
        }
    });

    it("merge: 10 MB verdict and verdict-cache details from another database are capped on the way in; merging again inserts nothing", () => {
        const dir = tmp();
        const src = path.join(dir, "node.db");
        const store = openStore(src);
        try {
            study(store);
        } finally {
            store.close();
        }
        // Written as an eddy from before the cap (or another tool) would: straight into SQLite, uncapped.
        const raw = new Database(src);
        try {
            raw.prepare("UPDATE verdicts SET detail = ?").run(HUGE);
            raw.prepare("INSERT INTO verdict_cache (key, category, detail, ms, created) VALUES (?, ?, ?, ?, ?)").run("k1", "assertion_error", HUGE, 1, "2026-01-01T00:00:00Z");
        } finally {
            raw.close();
        }
        expect(details(src, "verdicts")[0]!.length).toBeGreaterThan(10_000_000);

        const into = path.join(dir, "lab.db");
        const first = mergeStores([src], into);
        expect(first.sources[0]!.inserted.verdicts).toBe(1);
        expect(first.sources[0]!.inserted.verdict_cache).toBe(1);
        const verdicts = details(into, "verdicts");
        const cached = details(into, "verdict_cache");
        expect(verdicts).toHaveLength(1);
        expect(cached).toHaveLength(1);
        for (const d of [...verdicts, ...cached]) expectCapped(d);

        // Idempotent: the capped copy in the target and the capped incoming row are the same row.
        const again = mergeStores([src], into);
        expect(again.sources[0]!.inserted).toEqual({});
        expect(again.sources[0]!.same.verdicts).toBe(1);
        expect(details(into, "verdicts")).toEqual(verdicts);
    });

    it("merge: a target holding the uncapped detail (written before the cap) does not conflict with the same row coming in", () => {
        const dir = tmp();
        const files = ["a.db", "b.db"].map((f) => path.join(dir, f));
        for (const f of files) {
            const s = openStore(f);
            try {
                study(s);
            } finally {
                s.close();
            }
            const raw = new Database(f);
            try {
                raw.prepare("UPDATE verdicts SET detail = ?").run(HUGE);
            } finally {
                raw.close();
            }
        }
        // b.db plays the target an older eddy merged into: its verdict keeps the full 10 MB detail.
        const r = mergeStores([files[0]!], files[1]!);
        expect(r.sources[0]!.same.verdicts).toBe(1);
        expect(r.sources[0]!.inserted.verdicts).toBeUndefined();

        // A detail that really differs (within the cap) is still a conflict.
        const raw = new Database(files[0]!);
        try {
            raw.prepare("UPDATE verdicts SET detail = ?").run("AssertionError: expected 8" + "9".repeat(10 * 1024 * 1024));
        } finally {
            raw.close();
        }
        expect(() => mergeStores([files[0]!], files[1]!)).toThrow(/conflicting/);
    });
});
