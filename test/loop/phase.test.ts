import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { BackendSettings } from "../../src/inference/backends.js";
import { normalizeLoopConfig } from "../../src/loop/config.js";
import { runLoop } from "../../src/loop/runLoop.js";
import { openStore } from "../../src/store/Store.js";

/** Ctrl-C as it lands mid-phase: the test's controller is aborted once the backend has answered `after` requests. */
const stop = vi.hoisted(() => ({ controller: undefined as AbortController | undefined, after: Infinity, answered: 0 }));
vi.mock("../../src/inference/backends.js", async (original) => {
    const real = await original<typeof import("../../src/inference/backends.js")>();
    return {
        ...real,
        createBackend: async (settings: BackendSettings, model: { path?: string }, parts: Parameters<typeof real.createBackend>[2]) => {
            const backend = await real.createBackend(settings, model, parts);
            const generate = backend.generate.bind(backend);
            backend.generate = (requests) => {
                async function* counted() {
                    for await (const r of generate(requests)) {
                        if (++stop.answered >= stop.after) stop.controller?.abort();
                        yield r;
                    }
                }
                return counted();
            };
            return backend;
        }
    };
});

const tmp = mkdtempSync(path.join(tmpdir(), "eddy-loop-phase-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function steps(db: string): string[] {
    const store = openStore(db, { readonly: true });
    try {
        const run = store.loops.listRuns()[0]!;
        return store.loops.steps(run.id).map((s) => JSON.stringify([s.template_id, s.instance_idx, s.loop, s.response, s.category, s.summary]));
    } finally {
        store.close();
    }
}

describe("a loop stopped mid-phase", () => {
    const settings = { backend: "reference", templates: "copy_last_n", instances: 4, loops: 2, judgeWorkers: 1 };

    it("stores nothing of that phase, and its resume stores what an uninterrupted loop stores", async () => {
        const whole = path.join(tmp, "whole.db");
        expect((await runLoop(normalizeLoopConfig({ ...settings, db: whole }))).status).toBe("complete");

        const cut = path.join(tmp, "cut.db");
        stop.controller = new AbortController();
        stop.answered = 0;
        stop.after = 2; // two of the first phase's four answers
        const first = await runLoop(normalizeLoopConfig({ ...settings, db: cut }), { signal: stop.controller.signal });
        expect(first.status).toBe("interrupted");
        expect(steps(cut)).toEqual([]);

        stop.controller = undefined;
        stop.after = Infinity;
        const resumed = await runLoop(normalizeLoopConfig({ ...settings, db: cut, resume: first.runId }));
        expect(resumed.status).toBe("complete");
        expect(steps(cut)).toEqual(steps(whole));
        expect(steps(whole).length).toBeGreaterThan(4);
    });
});
