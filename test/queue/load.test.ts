import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalizeStudyConfig } from "../../src/run/config.js";
import { runStudy } from "../../src/run/runStudy.js";
import { BIN, cleanTmp, tmpDir } from "../run/helpers.js";
import { TEMPLATES, exportStore, useFixedTemplates } from "../merge/studyFixture.js";
import { chaosRound, seeded } from "./chaos.js";
import { HAS_REDIS } from "./redisServer.js";

/**
 * A study on a busy machine, with faults: 4 spinning processes per core while it runs, workers with
 * `--lock-ms 5000`, a worker killed in the middle of a shard and Redis killed (restarted empty) at random
 * points of its progress. It finishes with every row, both faults happened, and no worker's event loop was
 * ever held for half the lock. Once here (scripts/chaos-queue.ts runs it ten times and prints the figures).
 * The round is pinned to one core (as busy per core as on all of them, at that share of the machine; all
 * cores where taskset cannot pin), and each shard holds 2 answers (1 instance, 2 rounds): the faults are
 * dealt by shard starts, not seconds, so a short study meets them as a long one does.
 */
const PATIENCE = 420_000;

describe.skipIf(!HAS_REDIS)("a study on a busy machine, with workers and Redis killed", () => {
    let dir: string;
    let restore: () => void;
    let single: string;
    const flags = ["--backend", "reference", "--templates", TEMPLATES.join(","), "--instances", "1", "--rounds", "2", "--temperature", "0,0.7", "--seed", "5", "--judge-workers", "1"];

    beforeAll(async () => {
        dir = tmpDir("eddy-queue-load-");
        restore = useFixedTemplates(dir);
        single = path.join(dir, "single.db");
        expect((await runStudy(normalizeStudyConfig({ backend: "reference", templates: TEMPLATES.join(","), instances: 1, rounds: 2, temperatures: "0,0.7", seed: 5, judgeWorkers: 1, db: single }))).status).toBe("complete");
    });
    afterAll(() => {
        restore?.();
        cleanTmp();
    });

    it("finishes the 4-shard study with every row after both faults; no lock lost to a held event loop, no raw library line", async () => {
        const seed = Number(process.env.EDDY_CHAOS_SEED ?? Date.now() % 100_000);
        const db = path.join(dir, "chaos.db");
        const r = await chaosRound(db, { bin: BIN, dir, study: flags, lockMs: 5000, busyPerCore: 4, cores: 1, workers: 2, random: seeded(seed), workerKills: 1, redisKills: 1, patienceMs: PATIENCE });
        const why = `seed ${seed}, faults ${JSON.stringify(r.faults)}\n--- coordinator\n${r.coordinatorLog}\n${r.workerLogs.map((l, i) => `--- worker ${i + 1}\n${l}`).join("\n")}`;
        expect(r.timedOut, why).toBe(false);
        expect(r.exitCode, why).toBe(0);
        // The faults happened, before the study ended: a round that missed one proves nothing about it.
        expect(r.shards, why).toBe(4);
        expect([r.workerKills, r.redisKills], why).toEqual([1, 1]);
        expect(r.faults.map((f) => f.kind).sort(), why).toEqual(["redis", "worker"]);
        expect(exportStore(db), why).toEqual(exportStore(single));
        expect(r.badLines, why).toEqual([]);
        // Measured, not timed: each surviving worker's longest event-loop hold stays under half the lock (the renewal comes every fifth).
        expect(r.longestHoldsMs.length, why).toBeGreaterThan(0);
        for (const ms of r.longestHoldsMs) expect(ms, why).toBeLessThan(5000 / 2);
    }, PATIENCE + 120_000);
});
