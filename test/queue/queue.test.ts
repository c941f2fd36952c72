import { existsSync } from "node:fs";
import path from "node:path";
import { Queue, QueueEvents } from "bullmq";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalizeStudyConfig, type StudyConfig } from "../../src/run/config.js";
import { runStudy } from "../../src/run/runStudy.js";
import { runQueued } from "../../src/queue/coordinator.js";
import { runOnQueue } from "../../src/queue/runOnQueue.js";
import { parseQueueUrl } from "../../src/queue/queueUrl.js";
import { QUEUE_NAME } from "../../src/queue/shardJob.js";
import { startWorker } from "../../src/queue/worker.js";
import { eddyVersion } from "../../src/util/paths.js";
import { BIN, ROOT, cleanTmp, countRows, tmpDir } from "../run/helpers.js";
import { TEMPLATES, exportStore, useFixedTemplates } from "../merge/studyFixture.js";
import { freePort, HAS_REDIS, startRedis } from "./redisServer.js";

if (!HAS_REDIS) console.warn("SKIPPED test/queue: redis-server is not installed (apt-get install redis-server; .ci/run does)");

const PASSWORD = "eddy-test-pw";

/** Generations stored so far (0 before the coordinator has created the database). */
const storedGenerations = (db: string): number => {
    try {
        return existsSync(db) ? countRows(db, "generations") : 0;
    } catch {
        return 0; // created but not yet migrated
    }
};

describe.skipIf(!HAS_REDIS)("eddy worker and the queued study", () => {
    let dir: string;
    let restore: () => void;
    let redis: Awaited<ReturnType<typeof startRedis>>;
    let single: string;
    const study = (db: string): StudyConfig =>
        normalizeStudyConfig({ backend: "reference", templates: TEMPLATES.join(","), instances: 3, rounds: 2, temperatures: "0,0.7", seed: 5, judgeWorkers: 1, db });
    const workers: ResultPromise[] = [];
    const worker = (name: string): ResultPromise => {
        const p = execa("node", [BIN, "worker", "--queue", redis.url, "--judge-workers", "1", "--node", name, "--lock-ms", "1500"], { reject: false, env: process.env });
        workers.push(p);
        return p;
    };

    beforeAll(async () => {
        dir = tmpDir("eddy-queue-");
        restore = useFixedTemplates(dir);
        redis = await startRedis(PASSWORD);
        single = path.join(dir, "single.db");
        expect((await runStudy(study(single))).status).toBe("complete");
    });
    afterAll(async () => {
        for (const w of workers) w.kill("SIGKILL");
        await Promise.allSettled(workers);
        await redis?.stop();
        restore?.();
        cleanTmp();
    });

    it("two workers on one study store what a one-process run stores", async () => {
        const w1 = worker("w1");
        const w2 = worker("w2");
        const db = path.join(dir, "two.db");
        const r = await runOnQueue(study(db), redis.url, { progress: false });
        expect(r.shards).toBe(4); // 1 model × 2 templates × 2 temperatures × 1 wrapper
        expect(Object.values(r.nodes).reduce((n, x) => n + x.answers, 0)).toBe(24);
        expect(exportStore(db)).toEqual(exportStore(single));
        // A restarted coordinator finds everything stored and enqueues nothing.
        const again = await runQueued(study(db), parseQueueUrl(redis.url));
        expect(again.skipped).toBe(4);
        expect(exportStore(db)).toEqual(exportStore(single));
        w1.kill("SIGTERM");
        w2.kill("SIGTERM");
        expect((await w1).exitCode).toBe(0);
        expect((await w2).exitCode).toBe(0);
    });

    it("`eddy run --queue` is the coordinator: the command a lab types stores what a one-process run stores", async () => {
        const w = worker("cli");
        const db = path.join(dir, "cli.db");
        const run = await execa(
            "node",
            [BIN, "run", "--backend", "reference", "--templates", TEMPLATES.join(","), "--instances", "3", "--rounds", "2", "--temperature", "0,0.7", "--seed", "5", "--judge-workers", "1", "--db", db, "--queue", redis.url, "--no-progress"],
            { reject: false, env: process.env }
        );
        expect(run.exitCode, run.stderr).toBe(0);
        expect(run.stdout.trim()).toMatch(/^\S+$/); // the run id, as a local run prints it
        expect(exportStore(db)).toEqual(exportStore(single));
        w.kill("SIGTERM");
        expect((await w).exitCode).toBe(0);
    });

    it("a worker SIGKILLed mid-shard loses nothing and duplicates nothing", async () => {
        const t = parseQueueUrl(redis.url);
        const queue = new Queue(QUEUE_NAME, { connection: t.options });
        const events = new QueueEvents(QUEUE_NAME, { connection: t.options });
        let stalled = 0;
        events.on("stalled", () => stalled++);
        await events.waitUntilReady();
        try {
            const db = path.join(dir, "killed.db");
            const coordinator = runQueued(study(db), t);
            const doomed = worker("doomed");
            // Wait until the doomed worker holds a shard, then kill it without warning.
            for (let i = 0; i < 600 && (await queue.getActiveCount()) === 0; i++) await new Promise((r) => setTimeout(r, 25));
            expect(await queue.getActiveCount()).toBeGreaterThan(0);
            doomed.kill("SIGKILL");
            await doomed;
            const rescuer = worker("rescuer");
            await coordinator;
            expect(stalled).toBeGreaterThan(0); // the killed shard was taken back from the dead worker
            expect(exportStore(db)).toEqual(exportStore(single));
            rescuer.kill("SIGTERM");
            await rescuer;
        } finally {
            await events.close();
            await queue.close();
        }
    });

    it("a coordinator SIGKILLed mid-study and started again stores every shard once", async () => {
        const db = path.join(dir, "restarted.db");
        const raw = { backend: "reference", templates: TEMPLATES.join(","), instances: 3, rounds: 2, temperatures: "0,0.7", seed: 5, judgeWorkers: 1, db };
        const coordinator = execa("node", ["--import", "tsx", path.join(ROOT, "test/queue/coordinatorMain.ts"), JSON.stringify(raw), redis.url], { reject: false, env: process.env });
        const w = worker("steady");
        // Kill the coordinator once the first shard is stored and others are still to come.
        for (let i = 0; i < 1200 && storedGenerations(db) === 0; i++) await new Promise((r) => setTimeout(r, 25));
        const before = storedGenerations(db);
        expect(before).toBeGreaterThan(0);
        expect(before).toBeLessThan(24);
        coordinator.kill("SIGKILL");
        expect((await coordinator).signal).toBe("SIGKILL");
        const r = await runQueued(study(db), parseQueueUrl(redis.url));
        expect(r.skipped).toBeGreaterThan(0);
        expect(exportStore(db)).toEqual(exportStore(single));
        w.kill("SIGTERM");
        await w;
    });

    it("fails malformed jobs and jobs from another eddy version with a reason, never running them", async () => {
        const t = parseQueueUrl(redis.url);
        const queue = new Queue(QUEUE_NAME, { connection: t.options });
        const events = new QueueEvents(QUEUE_NAME, { connection: t.options });
        const w = await startWorker(t, { node: "strict", lockMs: 1500 });
        try {
            await events.waitUntilReady();
            const job = {
                v: 1, runId: "r1", eddyVersion: "0.0.0-elsewhere", modelSha256: null,
                study: { backend: "reference", instances: 1, rounds: 1, seed: 1, maxTokens: 16, mode: "reproducible" },
                shard: { model: "reference", modelPath: null, template: TEMPLATES[0], temperature: 0, wrapper: "default", wrapperSource: "default" }
            };
            const other = await queue.add("shard", job);
            await expect(other.waitUntilFinished(events)).rejects.toThrow(`refused by strict: this worker runs eddy ${eddyVersion()}, the study eddy 0.0.0-elsewhere`);
            const bad = await queue.add("shard", { ...job, eddyVersion: eddyVersion(), shard: { ...job.shard, template: "../../etc/passwd" } });
            await expect(bad.waitUntilFinished(events)).rejects.toThrow(/^malformed shard job: shard\.template: /);
            const sha = await queue.add("shard", { ...job, eddyVersion: eddyVersion(), modelSha256: "0".repeat(64), shard: { ...job.shard, model: "m", modelPath: BIN } });
            await expect(sha.waitUntilFinished(events)).rejects.toThrow(/model file .*bin\.js on this node has sha256 [0-9a-f]{12}…, the study's has 000000000000…: a different file/);
        } finally {
            await w.close();
            await events.close();
            await queue.close();
        }
    });

    it("a wrong password, an unreachable Redis and an open remote Redis are one-line errors", async () => {
        const wrong = await execa("node", [BIN, "worker", "--queue", `redis://:nope@127.0.0.1:${redis.port}`], { reject: false, timeout: 20_000 });
        expect(wrong.exitCode).not.toBe(0);
        expect(wrong.stderr.trim()).toBe(`eddy: Redis at redis://127.0.0.1:${redis.port} refused the credentials (check the password in --queue)`);
        const port = await freePort();
        const down = await execa("node", [BIN, "worker", "--queue", `redis://127.0.0.1:${port}`], { reject: false, timeout: 20_000 });
        expect(down.exitCode).not.toBe(0);
        expect(down.stderr.trim()).toMatch(new RegExp(`^eddy: cannot reach Redis at redis://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\); is redis-server running there\\?$`));
        expect(() => parseQueueUrl("redis://10.0.0.7:6379")).toThrow(/refusing Redis at redis:\/\/10\.0\.0\.7:6379 without a password/);
        expect(parseQueueUrl("redis://10.0.0.7:6379", { insecure: true }).options).toMatchObject({ host: "10.0.0.7", port: 6379 });
        expect(parseQueueUrl("rediss://:p%40ss@lab:6380/2").options).toMatchObject({ host: "lab", port: 6380, db: 2, password: "p@ss", tls: { servername: "lab" } });
        expect(() => parseQueueUrl("http://lab")).toThrow(/redis:\/\/ or rediss:\/\//);
    });
});
