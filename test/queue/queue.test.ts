import { existsSync, mkdirSync, readdirSync } from "node:fs";
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
import { questionsHash, shardPrompts } from "../../src/queue/identity.js";
import { readRefusals } from "../../src/queue/refusals.js";
import { planStudy } from "../../src/run/plan.js";
import { Redis } from "ioredis";
import { eddyVersion } from "../../src/util/paths.js";
import { BIN, cleanTmp, countRows, tmpDir } from "../run/helpers.js";
import { TEMPLATES, exportStore, useFixedTemplates } from "../merge/studyFixture.js";
import { freePort, HAS_REDIS, startRedis } from "./redisServer.js";
import { builtInLibrary } from "../../src/templates/library.js";
import { unwrapMessages } from "../support/messages.js";
import { judgeRuntime } from "../../src/queue/judgeRuntime.js";
import { parseLanguage } from "../../src/languages/languages.js";
import { packageList, PACKAGES_KEY } from "../../src/judge/environment.js";
import { readEnvironment } from "../../src/judge/readEnvironment.js";
import { pythonCommand } from "../../src/judge/workerScript.js";

if (!HAS_REDIS) console.warn("SKIPPED test/queue: redis-server is not installed (apt-get install redis-server; .ci/run does)");

const PASSWORD = "eddy-test-pw";

/** Generations stored so far (0 before the coordinator has created the database). */
/**
 * Polls until `ready` holds or a bound passes. The bound is generous, not a timing claim: on a loaded
 * 2-core machine the first shard (tsx start, model-free study, oracle validation) took over 30 s.
 */
/** The kill tests wait for a moment mid-study, then for the whole study: room beyond the lane default. */
const KILL_TEST_MS = 400_000;

async function until(ready: () => Promise<boolean>, ms = 240_000): Promise<void> {
    const end = Date.now() + ms;
    while (Date.now() < end && !(await ready())) await new Promise((r) => setTimeout(r, 25));
}

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
    let oneShard: string;
    let scratch: string;
    const shardFolders = (): string[] => readdirSync(scratch).filter((f) => f.startsWith("eddy-shard-"));
    const study = (db: string, one = false): StudyConfig =>
        normalizeStudyConfig({ backend: "reference", templates: one ? TEMPLATES[0] : TEMPLATES.join(","), instances: 3, rounds: 2, temperatures: one ? "0" : "0,0.7", seed: 5, judgeWorkers: 1, db });
    /** One shard (one template, T = 0), where one shows what four do: a quarter of the work. */
    const small = (db: string): StudyConfig => study(db, true);
    const workers: ResultPromise[] = [];
    const worker = (name: string): ResultPromise => {
        // One scratch area for all of them: a worker started later sweeps what a killed one left there.
        const p = execa("node", [BIN, "worker", "--queue", redis.url, "--judge-workers", "1", "--node", name, "--lock-ms", "1500"], { reject: false, env: { ...process.env, TMPDIR: scratch } });
        workers.push(p);
        return p;
    };

    beforeAll(async () => {
        dir = tmpDir("eddy-queue-");
        restore = useFixedTemplates(dir);
        redis = await startRedis(PASSWORD);
        single = path.join(dir, "single.db");
        scratch = path.join(dir, "tmp");
        mkdirSync(scratch);
        oneShard = path.join(dir, "one-shard.db");
        expect((await runStudy(study(single))).status).toBe("complete");
        expect((await runStudy(small(oneShard))).status).toBe("complete");
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
            [BIN, "run", "--backend", "reference", "--templates", TEMPLATES[0]!, "--instances", "3", "--rounds", "2", "--temperature", "0", "--seed", "5", "--judge-workers", "1", "--db", db, "--queue", redis.url, "--no-progress"],
            { reject: false, env: process.env }
        );
        expect(run.exitCode, run.stderr).toBe(0);
        expect(run.stdout.trim()).toMatch(/^\S+$/); // the run id, as a local run prints it
        expect(exportStore(db)).toEqual(exportStore(oneShard));
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
            const coordinator = runQueued(small(db), t);
            const doomed = worker("doomed");
            // Wait until the doomed worker holds a shard in its scratch folder, then kill it without warning.
            await until(async () => (await queue.getActiveCount()) > 0 && shardFolders().length > 0);
            expect(await queue.getActiveCount()).toBeGreaterThan(0);
            expect(shardFolders().length).toBeGreaterThan(0);
            doomed.kill("SIGKILL");
            await doomed;
            const rescuer = worker("rescuer");
            await coordinator;
            expect(stalled).toBeGreaterThan(0); // the killed shard was taken back from the dead worker
            expect(exportStore(db)).toEqual(exportStore(oneShard));
            // The rescuer swept the killed worker's scratch folder when it started, and removed its own.
            expect(shardFolders()).toEqual([]);
            rescuer.kill("SIGTERM");
            await rescuer;
        } finally {
            await events.close();
            await queue.close();
        }
    }, KILL_TEST_MS);

    it("a coordinator SIGKILLed mid-study and started again stores every shard once", async () => {
        const db = path.join(dir, "restarted.db");
        // `study` on the command line: the built CLI, not a coordinator under tsx (which compiles eddy first).
        const flags = ["--backend", "reference", "--templates", TEMPLATES.join(","), "--instances", "3", "--rounds", "2", "--temperature", "0,0.7", "--seed", "5", "--judge-workers", "1"];
        const coordinator = execa("node", [BIN, "run", ...flags, "--db", db, "--queue", redis.url, "--no-progress"], { reject: false, env: process.env });
        const w = worker("steady");
        // Kill the coordinator once the first shard is stored and others are still to come.
        await until(async () => storedGenerations(db) > 0);
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
    }, KILL_TEST_MS);

    it("fails a malformed job; leaves a job it cannot reproduce to other workers, refusing its study once with the reason", async () => {
        const t = parseQueueUrl(redis.url);
        const queue = new Queue(QUEUE_NAME, { connection: t.options });
        const events = new QueueEvents(QUEUE_NAME, { connection: t.options });
        const client = new Redis(t.options);
        const lines: string[] = [];
        const w = await startWorker(t, { node: "strict", lockMs: 1500, log: (l) => lines.push(l) });
        try {
            await events.waitUntilReady();
            // What a coordinator would send for one instance of TEMPLATES[0] on the reference backend.
            const study = { backend: "reference", templates: TEMPLATES[0], instances: 1, rounds: 1, seed: 1, maxTokens: 16, mode: "reproducible" };
            const config = normalizeStudyConfig(study);
            const plan = planStudy(config, builtInLibrary());
            const identity = { eddyVersion: eddyVersion(), modelSha256: null, oracleHash: plan.templates[0]!.oracleHash, questionsHash: questionsHash(shardPrompts(plan, TEMPLATES[0]!, 0)), judgeModes: ["bwrap"], judgeRuntime: null };
            const job = { v: 3, runId: "r-ok", identity, study, shard: { model: "reference", modelPath: null, template: TEMPLATES[0], temperature: 0, wrapper: "default", wrapperSource: "default" }, refusedBy: [] };
            const bad = await queue.add("shard", { ...job, shard: { ...job.shard, template: "../../etc/passwd" } });
            await expect(bad.waitUntilFinished(events)).rejects.toThrow(/^malformed shard job: shard\.template: /);

            const other = await queue.add("shard", { ...job, runId: "r-version", identity: { ...identity, eddyVersion: "0.0.0-elsewhere" } });
            const sha = await queue.add("shard", { ...job, runId: "r-sha", identity: { ...identity, modelSha256: "0".repeat(64) }, shard: { ...job.shard, model: "m", modelPath: BIN } });
            const old = await queue.add("shard", { v: 1, runId: "r-v1", eddyVersion: eddyVersion(), study, shard: job.shard });
            // A study whose judge offered answers another numpy (issue #44): the same Python, other packages.
            const mine = await judgeRuntime(parseLanguage("python"));
            const env = await readEnvironment();
            const theirs = { ...mine, [PACKAGES_KEY]: packageList({ ...env.packages, numpy: "0.0.1" }) };
            expect(theirs).not.toEqual(mine);
            const numpy = await queue.add("shard", { ...job, runId: "r-numpy", identity: { ...identity, judgeRuntime: theirs } });
            const reasons = async (): Promise<string[]> => (await Promise.all(["r-version", "r-sha", "r-v1", "r-numpy"].map((r) => readRefusals(client, r)))).map((x) => x.strict ?? "");
            for (let i = 0; i < 600 && (await reasons()).some((x) => !x); i++) await new Promise((r) => setTimeout(r, 50));
            const [version, model, format, packages] = await reasons();
            expect(packages).toBe(
                `the study's judge runs Python package numpy 0.0.1, this node's ${env.packages.numpy ?? "none"} (${pythonCommand()}): verdicts may differ (install Python package numpy 0.0.1 on this node, or point EDDY_PYTHON at an interpreter that matches)`
            );
            expect(version).toBe(`this worker runs eddy ${eddyVersion()}, the study eddy 0.0.0-elsewhere: results would not be comparable (install eddy 0.0.0-elsewhere on this node)`);
            expect(model).toMatch(/^model file .*bin\.js on this node has sha256 [0-9a-f]{12}…, the study's has 000000000000…: a different file$/);
            expect(format).toBe("the shard was made by another eddy (job format 1; this worker reads 3)");
            // Offered again and again, they are put back each time, never failed, and each study is refused in one line.
            await new Promise((r) => setTimeout(r, 1500));
            for (const j of [other, sha, old, numpy]) expect(await j.getState()).not.toBe("failed");
            expect(await queue.getFailedCount()).toBe(1); // the malformed one
            for (const r of ["r-version", "r-sha", "r-v1", "r-numpy"]) expect(lines.filter((l) => l.startsWith(`refusing study ${r}:`))).toHaveLength(1);
        } finally {
            await w.close();
            await queue.obliterate({ force: true });
            client.disconnect();
            await events.close();
            await queue.close();
        }
    });

    it("a wrong password, an unreachable Redis and an open remote Redis are one-line errors", async () => {
        const wrong = await execa("node", [BIN, "worker", "--queue", `redis://:nope@127.0.0.1:${redis.port}`], { reject: false, timeout: 20_000 });
        expect(wrong.exitCode).not.toBe(0);
        expect(unwrapMessages(wrong.stderr).trim()).toBe(`eddy: Redis at redis://127.0.0.1:${redis.port} refused the credentials (check the password in --queue)`);
        const port = await freePort();
        const down = await execa("node", [BIN, "worker", "--queue", `redis://127.0.0.1:${port}`], { reject: false, timeout: 20_000 });
        expect(down.exitCode).not.toBe(0);
        expect(unwrapMessages(down.stderr).trim()).toMatch(new RegExp(`^eddy: cannot reach Redis at redis://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\); is redis-server running there\\?$`));
        expect(() => parseQueueUrl("redis://10.0.0.7:6379")).toThrow(/refusing Redis at redis:\/\/10\.0\.0\.7:6379 without a password/);
        expect(parseQueueUrl("redis://10.0.0.7:6379", { insecure: true }).options).toMatchObject({ host: "10.0.0.7", port: 6379 });
        expect(parseQueueUrl("rediss://:p%40ss@lab:6380/2").options).toMatchObject({ host: "lab", port: 6380, db: 2, password: "p@ss", tls: { servername: "lab" } });
        expect(() => parseQueueUrl("http://lab")).toThrow(/redis:\/\/ or rediss:\/\//);
        // A backend's own flag on the worker (declared by its descriptor) is checked at start: one line, not a refusal of every shard.
        const badGpu = await execa("node", [BIN, "worker", "--queue", redis.url, "--gpu", "tpu"], { reject: false, timeout: 20_000 });
        expect([badGpu.exitCode, badGpu.stderr.trim()]).toEqual([1, "eddy: --gpu must be one of auto, cuda, metal, vulkan, cpu (got 'tpu')"]);
    });
});
