import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { identityOf, normalizeStudyConfig, OPERATIONAL_KEYS, parseStudySettings, STUDY_SETTING_KEYS, studyHash, studySettingsSchema } from "../../src/run/config.js";
import { resumeConfig } from "../../src/run/runStudy.js";
import { openStore } from "../../src/store/Store.js";
import { cleanTmp, tmpDir } from "./helpers.js";

afterAll(cleanTmp);

describe("one schema for study settings", () => {
    it("gives each setting one bound, whichever command or file it comes from", () => {
        // Strings (flags) and numbers (config files) are read alike.
        expect(parseStudySettings({ "top-k": "0", "top-p": 1, instances: "3", temperature: "0,0.8" })).toMatchObject({ topK: 0, topP: 1, instances: 3, temperatures: [0, 0.8] });
        expect(() => parseStudySettings({ topP: "1.5" })).toThrow(/^top-p must be a number in \[0, 1\] \(got "1\.5"\)$/);
        expect(() => parseStudySettings({ maxTokens: 0 })).toThrow(/^max tokens must be an integer >= 1 \(got 0\)$/);
        expect(() => parseStudySettings({ temperature: "hot" })).toThrow(/^temperature must be a number in \[0, 5\]/);
        expect(() => parseStudySettings({ gpu: "tpu" })).toThrow(/--gpu must be one of/);
        expect(() => parseStudySettings({ modles: "x" })).toThrow(/^unknown setting 'modles'/);
        expect(() => parseStudySettings({ mode: "turbo" })).toThrow(/^mode must be one of reproducible, fast/);
    });

    it("declares each setting once: the known keys and the operational ones are the schema's own", () => {
        const shape = Object.keys(studySettingsSchema.shape);
        expect(STUDY_SETTING_KEYS).toEqual(shape);
        expect(OPERATIONAL_KEYS.length).toBeGreaterThan(0);
        expect(OPERATIONAL_KEYS.every((k) => shape.includes(k))).toBe(true);
        // The unknown-setting line lists exactly the schema's keys.
        const known = /\(known: (.*)\)$/.exec((() => { try { parseStudySettings({ nope: 1 }); } catch (e) { return (e as Error).message; } return ""; })())?.[1]?.split(", ");
        expect(known).toEqual(shape);
        // Every operational setting stays out of the identity; everything else is in it.
        const c = normalizeStudyConfig({ backend: "reference", threads: 2, sequences: 3, groups: 2, batchSize: 64, gpu: "cpu", gpuLayers: 4, judgeWorkers: 1, noCache: true, fresh: true, db: "x.db", resume: "r", allowDownload: true, allowUnsandboxed: true, topK: 5, baseUrl: "http://127.0.0.1:8080/v1", concurrency: 2, retryFor: 5 });
        expect(Object.keys(identityOf(c)).filter((k) => (OPERATIONAL_KEYS as readonly string[]).includes(k))).toEqual([]);
        expect(Object.keys(c).filter((k) => (OPERATIONAL_KEYS as readonly string[]).includes(k)).sort()).toEqual([...OPERATIONAL_KEYS].sort());
        expect(identityOf(c)).toMatchObject({ topK: 5, backend: "reference" });
    });

    it("reproducible is the default; --fast is opt-in and part of the run's identity", () => {
        const base = { backend: "reference", templates: "list_every_kth" };
        const repro = normalizeStudyConfig(base);
        const fast = normalizeStudyConfig({ ...base, fast: true });
        expect(repro.mode).toBe("reproducible");
        expect(fast.mode).toBe("fast");
        expect(normalizeStudyConfig({ ...base, mode: "fast" }).mode).toBe("fast");
        expect(identityOf(fast)).toMatchObject({ mode: "fast" });
        expect(identityOf(fast)).not.toHaveProperty("fast");
        expect(studyHash(fast, ["list_every_kth"])).not.toBe(studyHash(repro, ["list_every_kth"]));
        // Sequences and threads change how fast, not what: the same run.
        expect(studyHash(normalizeStudyConfig({ ...base, sequences: 4, threads: 1 }), ["t"])).toBe(studyHash(repro, ["t"]));
        expect(() => normalizeStudyConfig({ ...base, fast: true, mode: "reproducible" })).toThrow(/contradict/);
    });

    it("lockstep groups of G = 8 are the default for a model; G is part of the run's identity, the number of groups at once is not", () => {
        const base = { models: ["/m.gguf"], templates: "list_every_kth" };
        const lockstep = normalizeStudyConfig(base);
        expect(lockstep).toMatchObject({ mode: "reproducible", groupSize: 8 });
        expect(identityOf(lockstep)).toMatchObject({ groupSize: 8 });
        expect(normalizeStudyConfig({ ...base, "group-size": "1" }).groupSize).toBe(1);
        expect(studyHash(normalizeStudyConfig({ ...base, groupSize: 4 }), ["t"])).not.toBe(studyHash(lockstep, ["t"]));
        expect(studyHash(normalizeStudyConfig({ ...base, groupSize: 1 }), ["t"])).not.toBe(studyHash(lockstep, ["t"]));
        expect(studyHash(normalizeStudyConfig({ ...base, groups: 3, threads: 1 }), ["t"])).toBe(studyHash(lockstep, ["t"]));
        // Free scheduling has no groups; the other backends run no model and keep the identity they had.
        expect(normalizeStudyConfig({ ...base, fast: true })).not.toHaveProperty("groupSize");
        expect(normalizeStudyConfig({ backend: "reference", templates: "list_every_kth" })).not.toHaveProperty("groupSize");
        expect(() => normalizeStudyConfig({ ...base, fast: true, groupSize: 4 })).toThrow(/^--group-size applies to the reproducible mode; --fast schedules sequences freely/);
        expect(() => parseStudySettings({ groupSize: 0 })).toThrow(/^group size must be an integer >= 1 \(got 0\)$/);
        expect(() => parseStudySettings({ groupSize: "65" })).toThrow(/^group size must be at most 64 \(got 65\)$/);
        expect(() => parseStudySettings({ groups: "two" })).toThrow(/^groups must be an integer >= 1/);
    });

    it("a run stored before modes existed resumes in the mode it ran in", () => {
        const db = path.join(tmpDir(), "legacy.db");
        const store = openStore(db);
        try {
            const config = { ...identityOf(normalizeStudyConfig({ backend: "reference", templates: "list_every_kth", instances: 2, rounds: 1 })) };
            delete config.mode;
            store.createOrFindRun({ id: "old-batched", configHash: "h1", config, eddyVersion: "0.0.9", backend: "reference", seed: 1 }, false);
            store.createOrFindRun({ id: "old-repro", configHash: "h2", config: { ...config, reproducible: true }, eddyVersion: "0.0.9", backend: "reference", seed: 1 }, false);
            expect(resumeConfig(store, "old-batched").mode).toBe("fast");
            expect(resumeConfig(store, "old-repro").mode).toBe("reproducible");
            expect(resumeConfig(store, "old-repro", { threads: 2, instances: 99 })).toMatchObject({ threads: 2, instances: 2, resume: "old-repro" });
            // A model's reproducible run from before lockstep groups gave every query a context of its own: it goes on that way.
            const llama = { ...identityOf(normalizeStudyConfig({ models: ["/m.gguf"], templates: "list_every_kth", instances: 2, rounds: 1 })) };
            delete llama.groupSize;
            store.createOrFindRun({ id: "old-per-sequence", configHash: "h3", config: llama, eddyVersion: "0.0.9", backend: "llama", seed: 1 }, false);
            expect(resumeConfig(store, "old-per-sequence", { groups: 2 })).toMatchObject({ mode: "reproducible", groupSize: 1, groups: 2 });
        } finally {
            store.close();
        }
    });
});
