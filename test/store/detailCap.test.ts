import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { capDetail, MAX_DETAIL_CHARS, openStore, StoreVerdictCache } from "../../src/store/Store.js";
import { connection } from "../../src/store/connection.js";

const dirs: string[] = [];
afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmpDb(): string {
    const d = mkdtempSync(path.join(os.tmpdir(), "eddy-detail-"));
    dirs.push(d);
    return path.join(d, "eddy.db");
}

describe("verdict details are bounded at the store", () => {
    it("keeps details up to the cap and cuts longer ones with a marker inside the cap", () => {
        expect(MAX_DETAIL_CHARS).toBe(2048);
        expect(capDetail("")).toBe("");
        expect(capDetail("x".repeat(2048))).toBe("x".repeat(2048));
        for (const len of [2049, 2100, 12_000, 10_000_000]) {
            const cut = capDetail("y".repeat(len));
            expect(cut.length).toBeLessThanOrEqual(2048);
            const m = /…\[truncated (\d+) chars\]$/.exec(cut)!;
            expect(m).not.toBeNull();
            // The marker says exactly how many characters are gone.
            expect(cut.length - m[0].length + Number(m[1])).toBe(len);
        }
        // A surrogate pair is never split.
        const cut = capDetail("😀".repeat(3000));
        expect(cut.length).toBeLessThanOrEqual(2048);
        expect(cut.replace(/…\[truncated \d+ chars\]$/, "")).toMatch(/^(?:😀)+$/u);
    });

    it("stores a 10 MB verdict detail and a 10 MB cached verdict detail as at most 2,048 characters", () => {
        const db = tmpDb();
        const store = openStore(db);
        const huge = "AssertionError: expected " + "9".repeat(10 * 1024 * 1024);
        try {
            store.createOrFindRun({ id: "r1", configHash: "h", config: {}, eddyVersion: "0.1.0", backend: "reference", seed: 1 }, false);
            const c = store.upsertConfiguration({ runId: "r1", model: "m", temperature: 0, wrapper: "default", decoding: { temperature: 0 } as never });
            store.recordTemplates("r1", [{ id: "t1", oracleHash: "h", group: "g", subgroups: [], function: "f" }]);
            store.insertInstances("r1", [{ templateId: "t1", index: 0, params: [1], bindings: {}, question: "q" }]);
            const key = { configId: c.id, templateId: "t1", instance: 0, round: 0 };
            const cache = new StoreVerdictCache(store);
            cache.set("k1", { category: "assertion_error", detail: huge, ms: 1 });
            expect(cache.get("k1")!.detail.length).toBeLessThanOrEqual(2048); // before it is written, too
            store.writeBatch({
                generations: [{ ...key, seed: 1, prompt: "[]", response: "r", code: "def f(): pass", stopReason: "eogToken", promptTokens: 1, generatedTokens: 1, ttftMs: 1, genMs: 1 } as never],
                verdicts: [{ ...key, category: "assertion_error", judgeCategory: "assertion_error", detail: huge, ms: 1 }],
                responses: [],
                verdictCache: [["k2", { category: "assertion_error", detail: huge, ms: 1 }], ...cache.drain()]
            });
        } finally {
            store.close();
        }
        const again = openStore(db, { readonly: true });
        try {
            const stored = (connection(again).prepare("SELECT detail FROM verdicts").all() as { detail: string }[]).map((r) => r.detail);
            const cached = (connection(again).prepare("SELECT detail FROM verdict_cache ORDER BY key").all() as { detail: string }[]).map((r) => r.detail);
            expect(stored).toHaveLength(1);
            expect(cached).toHaveLength(2);
            for (const d of [...stored, ...cached, again.cachedVerdict("k2")!.detail]) {
                expect(d.length).toBeLessThanOrEqual(2048);
                expect(d.startsWith("AssertionError: expected 999")).toBe(true);
                expect(d).toMatch(/…\[truncated \d+ chars\]$/);
            }
        } finally {
            again.close();
        }
    });
});
