import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { BackendSettings } from "../../src/inference/backends.js";
import type { GenerationRequest } from "../../src/inference/types.js";
import { loopIdentity, normalizeLoopConfig } from "../../src/loop/config.js";
import { runLoop } from "../../src/loop/runLoop.js";
import { normalizeStudyConfig, studyHash } from "../../src/run/config.js";
import { openStore } from "../../src/store/Store.js";
import { modelsDir } from "../../src/util/paths.js";
import { unwrapMessages } from "../support/messages.js";

/** What reached the backend: the settings it was opened with and every request it was asked. */
const seen = vi.hoisted(() => ({ settings: [] as unknown[], requests: [] as unknown[] }));
vi.mock("../../src/inference/backends.js", async (original) => {
    const real = await original<typeof import("../../src/inference/backends.js")>();
    return {
        ...real,
        createBackend: async (settings: BackendSettings, model: { path?: string }, parts: Parameters<typeof real.createBackend>[2]) => {
            seen.settings.push(settings);
            const backend = await real.createBackend(settings, model, parts);
            const generate = backend.generate.bind(backend);
            backend.generate = (requests) => {
                async function* recorded(): AsyncGenerator<GenerationRequest> {
                    for await (const r of requests) {
                        seen.requests.push(r);
                        yield r;
                    }
                }
                return generate(recorded());
            };
            return backend;
        }
    };
});

const exec = promisify(execFile);
const tmp = mkdtempSync(path.join(tmpdir(), "eddy-loop-settings-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const CLI = path.resolve("dist/cli/bin.js");
const fail = (e: unknown) => e as { code: number; stderr: string };

describe("a loop's settings are the study's", () => {
    it("honours every decoding setting eddy run takes: top-k, top-p, min-p and the mode reach the backend", async () => {
        const db = path.join(tmp, "api.db");
        const config = normalizeLoopConfig({ backend: "reference", templates: "copy_last_n", instances: 2, loops: 2, temperature: "0.7", "top-k": "5", "top-p": "0.9", "min-p": "0.05", fast: true, judgeWorkers: 1, db });
        seen.settings.length = 0;
        seen.requests.length = 0;
        const r = await runLoop(config);
        expect(r.status).toBe("complete");
        expect(seen.settings).toEqual([expect.objectContaining({ backend: "reference", mode: "fast" })]);
        expect(seen.requests.length).toBeGreaterThan(0);
        for (const q of seen.requests as GenerationRequest[]) expect(q.decoding).toEqual({ temperature: 0.7, topK: 5, topP: 0.9, minP: 0.05 });
        const store = openStore(db);
        try {
            const stored = JSON.parse(store.loops.requireRun(r.runId).config_json) as Record<string, unknown>;
            expect(stored).toMatchObject({ topK: 5, topP: 0.9, minP: 0.05, mode: "fast", temperatures: [0.7], maxLoops: 2 });
            expect(stored).not.toHaveProperty("judgeWorkers");
            expect(stored).not.toHaveProperty("db");
        } finally {
            store.close();
        }
    });

    const tiny = path.join(modelsDir(), "eddy-tiny-f32.gguf");
    it.skipIf(!existsSync(tiny))("hands each phase to the run's generation stage: lockstep groups of G per template, as a run's", async () => {
        const db = path.join(tmp, "tiny.db");
        seen.settings.length = 0;
        seen.requests.length = 0;
        const r = await runLoop(normalizeLoopConfig({ backend: "llama", model: tiny, templates: "copy_last_n", instances: 3, loops: 1, maxTokens: 4, threads: 1, "group-size": 2, judgeWorkers: 1, db }));
        expect(r.status).toBe("complete");
        expect(seen.settings).toEqual([expect.objectContaining({ backend: "llama", mode: "reproducible", groupSize: 2, threads: 1 })]);
        // Three first questions of one template, G = 2: a group of two and a group of one, in instance order.
        const groups = (seen.requests as GenerationRequest[]).map((q) => [q.task?.instance, q.group]);
        expect(groups).toEqual([
            [0, { id: "copy_last_n#0", member: 0, size: 2 }],
            [1, { id: "copy_last_n#0", member: 1, size: 2 }],
            [2, { id: "copy_last_n#1", member: 0, size: 1 }]
        ]);
        const store = openStore(db);
        try {
            expect(JSON.parse(store.loops.requireRun(r.runId).config_json)).toMatchObject({ groupSize: 2, mode: "reproducible" });
        } finally {
            store.close();
        }
    });

    it("hashes its study part as eddy run hashes the same settings; the loop's own settings and decoding make it another run", () => {
        const settings = { backend: "reference", templates: "copy_last_n", instances: 2, temperature: "0.7", "top-k": "5" };
        const loop = loopIdentity(normalizeLoopConfig({ ...settings, loops: 3, threads: 2 }), ["copy_last_n"]);
        expect(loop.studyHash).toBe(studyHash(normalizeStudyConfig({ ...settings, rounds: 1 }), ["copy_last_n"]));
        // Operational settings do not change it; a decoding setting or a loop setting does.
        expect(loopIdentity(normalizeLoopConfig({ ...settings, loops: 3 }), ["copy_last_n"]).hash).toBe(loop.hash);
        expect(loopIdentity(normalizeLoopConfig({ ...settings, loops: 3, "top-k": "6" }), ["copy_last_n"]).hash).not.toBe(loop.hash);
        expect(loopIdentity(normalizeLoopConfig({ ...settings, loops: 4 }), ["copy_last_n"]).hash).not.toBe(loop.hash);
        expect(() => normalizeLoopConfig({ ...settings, rounds: 2 })).toThrow(/^a loop asks each question once/);
        expect(() => normalizeLoopConfig({ ...settings, temperature: "0,0.7" })).toThrow(/^a loop decodes at one temperature/);
    });

    it("eddy loop run --top-k records top-k with the loop, with eddy run's settings hash; an unknown setting is one line", async () => {
        const db = path.join(tmp, "cli.db");
        const common = ["--backend", "reference", "-t", "copy_last_n", "-M", "2", "--temperature", "0.7", "--top-k", "5", "--judge-workers", "1", "--db", db];
        const loopId = (await exec(process.execPath, [CLI, "loop", "run", ...common, "-N", "1"])).stdout.trim();
        const runId = (await exec(process.execPath, [CLI, "run", ...common, "-R", "1", "--no-progress"])).stdout.trim().split("\n").at(-1)!;
        const store = openStore(db);
        try {
            const stored = JSON.parse(store.loops.requireRun(loopId).config_json) as Record<string, unknown>;
            expect(stored).toMatchObject({ topK: 5, temperatures: [0.7], maxLoops: 1 });
            expect(stored.studyHash).toBe(store.getRun(runId)!.config_hash);
        } finally {
            store.close();
        }
        // A setting the schema does not know, from a config file: one line, nothing run.
        const file = path.join(tmp, "loop.yaml");
        writeFileSync(file, "backend: reference\ntemplates: copy_last_n\ntop_q: 0.5\n");
        const bad = fail(await exec(process.execPath, [CLI, "loop", "run", "--config", file, "--db", db]).catch((e: unknown) => e));
        expect(bad.code).not.toBe(0);
        expect(unwrapMessages(bad.stderr).trim().split("\n")).toHaveLength(1);
        expect(unwrapMessages(bad.stderr).trim()).toMatch(/^eddy: unknown setting 'top_q' \(known: .*topK.*maxLoops.*\)$/);
        // A bad value of a study setting: the words eddy run uses.
        const badK = fail(await exec(process.execPath, [CLI, "loop", "run", "--backend", "reference", "--top-k", "-1", "--db", db]).catch((e: unknown) => e));
        expect(badK.code).not.toBe(0);
        expect(unwrapMessages(badK.stderr).trim()).toBe('eddy: top-k must be an integer >= 0 (got "-1")');
        // A config file's settings are read like eddy run's, loop keys included.
        writeFileSync(file, "backend: reference\ntemplates: copy_last_n\ninstances: 2\nmaxLoops: 1\ntemperature: 0.7\ntop-k: 5\njudgeWorkers: 1\n");
        expect((await exec(process.execPath, [CLI, "loop", "run", "--config", file, "--db", db])).stdout.trim()).toBe(loopId);
    });
});
