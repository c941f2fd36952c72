import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type Job, Queue, UnrecoverableError, WaitingError, Worker } from "bullmq";
import { execa, type ResultPromise } from "execa";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { normalizeStudyConfig, type StudyConfig } from "../../src/run/config.js";
import { runStudy } from "../../src/run/runStudy.js";
import { runQueued } from "../../src/queue/coordinator.js";
import { parseQueueUrl } from "../../src/queue/queueUrl.js";
import { QUEUE_NAME, type ShardJob, type ShardResult } from "../../src/queue/shardJob.js";
import type { RunningWorker } from "../../src/queue/worker.js";
import { BIN, cleanTmp, countRows, tmpDir } from "../run/helpers.js";
import { ensureTinyModels } from "../../src/inference/gguf/tinyModel.js";
import { TEMPLATES, exportStore, useFixedTemplates } from "../merge/studyFixture.js";
import { HAS_REDIS, startRedis } from "./redisServer.js";
import { sleep, until, within } from "../support/waiting.js";
import { built } from "../support/queueBuilt.js";

const PASSWORD = "eddy-faults-pw";
/** Built: the shards' processes and llama.cpp workers they fork run compiled eddy, as `eddy worker`'s do, not tsx. */
const { startWorker } = await built<typeof import("../../src/queue/worker.js")>("queue/worker.js");
const { runShard } = await built<typeof import("../../src/queue/runShard.js")>("queue/runShard.js");

/** Generations stored so far (0 before the coordinator has created and migrated the database). */
const stored = (db: string): number => {
    try {
        return existsSync(db) ? countRows(db, "generations") : 0;
    } catch {
        return 0;
    }
};

describe.skipIf(!HAS_REDIS)("the queue under faults", () => {
    let dir: string;
    let restore: () => void;
    let redis: Awaited<ReturnType<typeof startRedis>>;
    /** The four-shard study and its one-process store; the one-shard study (one template, T = 0) and its store. */
    let single: string;
    let oneShard: string;
    const base = { backend: "reference", templates: TEMPLATES.join(","), seed: 5, judgeWorkers: 1 };
    const study = (db: string, extra: Record<string, unknown> = {}): StudyConfig => normalizeStudyConfig({ ...base, instances: 3, rounds: 2, temperatures: "0,0.7", db, ...extra });
    /** For what one shard shows as well as four (a shard refused, handed back, resumed): a quarter of the work. */
    const small = (db: string, extra: Record<string, unknown> = {}): StudyConfig => study(db, { templates: TEMPLATES[0], temperatures: "0", ...extra });
    /** `study` as `eddy run` flags; `temperatures` widens it (six give twelve shards). */
    const flags = (temperatures = "0,0.7"): string[] => ["--backend", "reference", "--templates", TEMPLATES.join(","), "--instances", "3", "--rounds", "2", "--temperature", temperatures, "--seed", "5", "--judge-workers", "1"];
    /** A generous bound on a study under faults: it guards against a hang, never measures speed (the box may be busy). */
    const PATIENCE = 240_000;
    const running: ResultPromise[] = [];
    const inProcess: RunningWorker[] = [];

    /** An `eddy worker` process; `env` adds to (or overrides) the test's environment. */
    const worker = (name: string, o: { env?: Record<string, string>; args?: string[]; tmp?: string } = {}): ResultPromise & { log: () => string } => {
        const tmp = o.tmp ?? path.join(dir, `tmp-${name}`);
        mkdirSync(tmp, { recursive: true });
        const p = execa("node", [BIN, "worker", "--queue", redis.url, "--judge-workers", "1", "--node", name, "--lock-ms", "1500", ...(o.args ?? [])], {
            reject: false,
            forceKillAfterDelay: false, // a stopping worker is given the time it takes
            env: { ...process.env, TMPDIR: tmp, ...o.env }
        });
        let err = "";
        p.stderr!.on("data", (b: Buffer) => void (err += b.toString()));
        running.push(p);
        return Object.assign(p, { log: () => err });
    };
    /** A worker in this process (cheaper than a process; it sees the test's fixed templates). */
    const honest = async (name = "honest"): Promise<RunningWorker> => {
        const w = await startWorker(parseQueueUrl(redis.url), { node: name, judgeWorkers: 1, lockMs: 1500 });
        inProcess.push(w);
        return w;
    };
    const coordinatorCli = (db: string, temperatures?: string) => {
        const p = execa("node", [BIN, "run", ...flags(temperatures), "--db", db, "--queue", redis.url, "--no-progress"], { reject: false, env: process.env });
        let err = "";
        p.stderr!.on("data", (b: Buffer) => void (err += b.toString()));
        running.push(p);
        return Object.assign(p, { log: () => err });
    };
    const stopAll = async (): Promise<void> => {
        for (const p of running.splice(0)) p.kill("SIGKILL");
        await Promise.all(inProcess.splice(0).map((w) => w.stop()));
        await sleep(50);
    };

    beforeAll(async () => {
        dir = tmpDir("eddy-queue-faults-");
        restore = useFixedTemplates(dir);
        redis = await startRedis(PASSWORD);
        single = path.join(dir, "single.db");
        oneShard = path.join(dir, "one-shard.db");
        expect((await runStudy(study(single))).status).toBe("complete");
        expect((await runStudy(small(oneShard))).status).toBe("complete");
    });
    afterEach(stopAll);
    afterAll(async () => {
        await stopAll();
        await redis?.stop();
        restore?.();
        cleanTmp();
    });

    it("workers that cannot reproduce the study refuse it once and put its shards back; only exact results are stored, with every judge's isolation", async () => {
        // Three ways to differ: an edited oracle, a reworded question, and no sandbox (the study asks for one).
        const edited = path.join(dir, "edited");
        const reworded = path.join(dir, "reworded");
        for (const d of [edited, reworded]) for (const sub of ["templates", "oracles"]) cpSync(path.join(dir, sub), path.join(d, sub), { recursive: true });
        // list_every_kth's oracle now expects other values (the reference answers would fail it); the other one only gains a comment.
        const edit = (file: string, from: string | RegExp, to: string): void => writeFileSync(file, readFileSync(file, "utf8").replace(from, to));
        edit(path.join(edited, "oracles", "list_every_kth.py"), "expected.append(100 + pos)", "expected.append(101 + pos)");
        edit(path.join(edited, "oracles", "copy_between_exclusive.py"), /$/, "\n# edited\n");
        for (const id of TEMPLATES) edit(path.join(reworded, "templates", `${id}.yaml`), "Write a Python function", "Please write a Python function");
        const bad = [
            worker("edited", { env: { EDDY_ORACLES: path.join(edited, "oracles") } }),
            worker("reworded", { env: { EDDY_TEMPLATES: path.join(reworded, "templates") } }),
            worker("bare", { env: { EDDY_JUDGE_NO_NAMESPACES: "1" }, args: ["--allow-unsandboxed"] })
        ];
        // The refusing workers are up first, so they are offered the shards before the honest one exists.
        await until(() => bad.every((w) => /waiting for shards/.test(w.log())));
        const lines: string[] = [];
        const db = path.join(dir, "identity.db");
        const coordinator = runQueued(study(db), parseQueueUrl(redis.url), { log: (l) => lines.push(l) });
        await until(() => bad.every((w) => /refusing study/.test(w.log())));
        await honest();
        const r = await within(coordinator, PATIENCE, "the coordinator");
        expect(r.shards).toBe(4);
        expect(exportStore(db)).toEqual(exportStore(single));
        for (const w of bad) {
            expect(w.log().match(/refusing study/g), w.log()).toHaveLength(1);
            expect(w.log()).not.toMatch(/\n\s+at /);
        }
        expect(bad[0]!.log()).toMatch(/template \w+: the study's oracle hash is [0-9a-f]{12}…, this node's [0-9a-f]{12}… \(another version of its YAML or oracle\)/);
        expect(bad[1]!.log()).toMatch(/template \w+: the study's oracle hash is/);
        expect(bad[2]!.log()).toMatch(/the study needs a sandboxed judge; this node has none/);
        for (const name of ["edited", "reworded", "bare"]) expect(lines.filter((l) => l.startsWith(`worker ${name} refuses this study:`))).toHaveLength(1);
        const q = new Queue(QUEUE_NAME, { connection: parseQueueUrl(redis.url).options });
        expect(await q.getFailedCount()).toBe(0);
        await q.close();
        // The run records the judge of every worker that judged: here the honest one, sandboxed.
        const run = new (await import("better-sqlite3")).default(db, { readonly: true }).prepare("SELECT isolation_level, isolation_json FROM runs").get() as { isolation_level: string; isolation_json: string };
        expect(run.isolation_level).toMatch(/^bwrap\+/);
        expect(Object.keys(JSON.parse(run.isolation_json).workers)).toEqual(["honest"]);

        // A study that allows an unsandboxed judge takes the bare worker, and says so in its run and its report.
        await Promise.all(inProcess.splice(0).map((w) => w.stop()));
        bad[0]!.kill("SIGKILL");
        bad[1]!.kill("SIGKILL");
        await Promise.all([bad[0], bad[1]]);
        const loose = path.join(dir, "loose.db");
        const r2 = await within(runQueued(small(loose, { allowUnsandboxed: true }), parseQueueUrl(redis.url)), PATIENCE, "the unsandboxed study");
        const show = await execa("node", [BIN, "runs", "show", r2.runId, "--db", loose], { reject: false });
        expect(show.stdout).toMatch(/judge isolation: NO-SANDBOX\+/);
        const report = await execa("node", [BIN, "report", r2.runId, "--db", loose, "--wide"], { reject: false });
        expect(report.exitCode, report.stderr).toBe(0);
        expect(report.stdout).toMatch(/NO-SANDBOX/);
    }, PATIENCE + 60_000);

    /**
     * A worker of another build, in this process: `handle` answers the first `n` shards it is given (later ones
     * go back untouched); resolves once it has, and is closed.
     */
    const foreignWorker = async (n: number, handle: (job: Job<ShardJob>) => Promise<ShardResult>): Promise<void> => {
        let handled = 0;
        const w = new Worker<ShardJob, ShardResult>(
            QUEUE_NAME,
            async (job, token) => {
                if (handled >= n) {
                    await job.moveToWait(token);
                    throw new WaitingError();
                }
                handled++;
                return handle(job);
            },
            { connection: parseQueueUrl(redis.url).options, concurrency: 1 }
        );
        await until(() => handled >= n);
        await w.close();
    };

    it("a result whose rows differ from the study is refused, stored nowhere, named by its worker, and run again elsewhere", async () => {
        const lines: string[] = [];
        const db = path.join(dir, "rogue.db");
        const coordinator = runQueued(small(db), parseQueueUrl(redis.url), { log: (l) => lines.push(l) });
        // One question reworded in the rows it returns.
        await foreignWorker(1, async (job) => {
            const r = await runShard(job.data, { node: "rogue" });
            const g = r.generations[0]!;
            g.prompt_json = g.prompt_json.replace("Write a Python function", "Write a Rust function");
            return r;
        });
        await honest();
        await within(coordinator, PATIENCE, "the coordinator");
        expect(lines.filter((l) => /^refused shard reference\/\S+ from worker rogue: generation .* prompt differs from the study's question/.test(l)), lines.join("\n")).toHaveLength(1);
        expect(exportStore(db)).toEqual(exportStore(oneShard));
    }, PATIENCE + 60_000);

    it("a configuration generated on nodes with different result-changing settings records each node, and the report says so", async () => {
        const db = path.join(dir, "mixed.db");
        // A llama study (eddy's tiny model): two shards, one per template, generated on two "machines" whose thread counts differ.
        const llamaStudy = normalizeStudyConfig({ backend: "llama", models: [ensureTinyModels().f32], templates: TEMPLATES.join(","), instances: 2, rounds: 1, temperatures: "0", seed: 5, maxTokens: 16, threads: 1, judgeWorkers: 1, db });
        const coordinator = runQueued(llamaStudy, parseQueueUrl(redis.url), { log: () => {} });
        let k = 0;
        await foreignWorker(2, (job) => (k++ === 0 ? runShard(job.data, { node: "cpu-a", threads: 1 }) : runShard(job.data, { node: "cpu-b", threads: 2 })));
        await within(coordinator, PATIENCE, "the coordinator");
        const report = await execa("node", [BIN, "report", "latest", "--db", db], { reject: false });
        expect(report.exitCode, report.stderr).toBe(0);
        expect(report.stdout.replace(/\s+/g, " ")).toContain("generated on 2 nodes whose settings differ (threads 1 on cpu-a, 2 on cpu-b): answers are reproducible per node, not across them");
        const show = await execa("node", [BIN, "runs", "show", "latest", "--db", db, "--json"], { reject: false });
        const meta = (JSON.parse(show.stdout) as { configurations: { metadata: { nodes: Record<string, { threads: number }>; differ: string[]; llamaCppRelease: string } }[] }).configurations[0]!.metadata;
        expect(meta.nodes).toMatchObject({ "cpu-a": { threads: 1 }, "cpu-b": { threads: 2 } });
        expect(meta.differ).toEqual(["threads"]);
        // Each node's llama.cpp build is recorded with it (the same here: one machine stands in for two).
        expect(meta.llamaCppRelease).toEqual(expect.any(String));
        expect(Object.values(meta.nodes).map((n) => (n as { llamaCppRelease?: string }).llamaCppRelease)).toEqual([meta.llamaCppRelease, meta.llamaCppRelease]);
        // One node, or nodes that agree: nothing to say.
        const one = path.join(dir, "one-node.db");
        const again = runQueued({ ...llamaStudy, db: one }, parseQueueUrl(redis.url), { log: () => {} });
        await foreignWorker(2, (job) => runShard(job.data, { node: k++ % 2 ? "cpu-c" : "cpu-d", threads: 1 }));
        await within(again, PATIENCE, "the coordinator");
        const plain = await execa("node", [BIN, "report", "latest", "--db", one], { reject: false });
        expect(plain.exitCode, plain.stderr).toBe(0);
        expect(plain.stdout).not.toContain("whose settings differ");
    }, 2 * PATIENCE + 60_000);

    it("a worker of an older eddy that fails shards it cannot read does not stop the study", async () => {
        const lines: string[] = [];
        const db = path.join(dir, "older.db");
        const coordinator = runQueued(study(db), parseQueueUrl(redis.url), { log: (l) => lines.push(l) });
        // What an eddy before job format 2 does with one: fails it as malformed instead of putting it back.
        await foreignWorker(2, async () => {
            throw new UnrecoverableError("malformed shard job: v: Invalid input: expected 1");
        });
        await honest();
        await within(coordinator, PATIENCE, "the coordinator");
        expect(lines.filter((l) => l.startsWith("a worker of another eddy failed shard ")), lines.join("\n")).toHaveLength(1);
        expect(exportStore(db)).toEqual(exportStore(single));
    }, PATIENCE + 60_000);

    it("`eddy run --resume <id> --queue` continues the stored study, not the flags' defaults", async () => {
        await honest();
        const db = path.join(dir, "resume.db");
        const first = await within(runQueued(small(db), parseQueueUrl(redis.url)), PATIENCE, "the coordinator");
        const again = await execa("node", [BIN, "run", "--resume", first.runId, "--db", db, "--queue", redis.url, "--no-progress"], { reject: false, timeout: 60_000 });
        expect(again.exitCode, again.stderr).toBe(0);
        expect(again.stdout.trim()).toBe(first.runId);
        expect(again.stderr).toMatch(/1 shards .*\(1 already stored\)/);
        expect(countRows(db, "instances")).toBe(3);
        expect(exportStore(db)).toEqual(exportStore(oneShard));
    }, PATIENCE + 60_000);

    it("a Redis flushed mid-study: the coordinator notices the lost shards, queues them again in one line, and finishes", async () => {
        const t = parseQueueUrl(redis.url);
        await honest();
        const lines: string[] = [];
        const db = path.join(dir, "flushed.db");
        const coordinator = runQueued(study(db), t, { log: (l) => lines.push(l) });
        await until(() => stored(db) > 0);
        const client = new Redis(t.options);
        await client.flushdb();
        client.disconnect();
        await within(coordinator, PATIENCE, "the coordinator after FLUSHDB");
        expect(lines.filter((l) => /shards? no longer in Redis \(restarted empty, flushed or evicted\?\): queued again/.test(l)).length).toBeGreaterThanOrEqual(1);
        expect(exportStore(db)).toEqual(exportStore(single));
    }, PATIENCE + 60_000);

    it("twelve shards in flight: no listener warnings (the queue is looked at, not listened to per shard)", async () => {
        const t = parseQueueUrl(redis.url);
        const queue = new Queue(QUEUE_NAME, { connection: t.options });
        try {
            const c = coordinatorCli(path.join(dir, "twelve.db"), "0,0.1,0.2,0.3,0.4,0.5");
            // No worker: all twelve wait at once, as they did when each had a listener.
            await until(async () => (await queue.getWaitingCount()) >= 12);
            await sleep(1500);
            c.kill("SIGKILL");
            await c;
            expect(c.log()).toMatch(/12 shards on /);
            expect(c.log()).not.toMatch(/MaxListenersExceededWarning|\n\s+at /);
        } finally {
            await queue.obliterate({ force: true });
            await queue.close();
        }
    }, PATIENCE + 60_000);

    it("Redis restarted empty mid-study: one line per change of state, no stack traces, every shard stored once", async () => {
        const w = worker("survivor");
        const db = path.join(dir, "restart.db");
        const c = coordinatorCli(db);
        await until(() => stored(db) > 0);
        await redis.stop();
        await sleep(3000);
        redis = await startRedis(PASSWORD, redis.port);
        const done = await within(c, PATIENCE, "the coordinator after a Redis restart");
        expect(done.exitCode, c.log()).toBe(0);
        expect(exportStore(db)).toEqual(exportStore(single));
        for (const log of [c.log(), w.log()]) {
            expect(log).not.toMatch(/\n\s+at /);
            expect(log).not.toMatch(/MaxListenersExceededWarning|Unhandled error event/);
            expect(log.match(/lost Redis at /g) ?? [], log).toHaveLength(1);
            expect(log.match(/Redis at \S+ is back/g) ?? [], log).toHaveLength(1);
        }
        expect(c.log()).toMatch(/shards? no longer in Redis/);
    }, PATIENCE + 60_000);

    it("two coordinators of one run: the second waits for the first and stores nothing twice", async () => {
        await honest();
        const t = parseQueueUrl(redis.url);
        const db = path.join(dir, "two-coordinators.db");
        const la: string[] = [];
        const lb: string[] = [];
        const a = runQueued(study(db), t, { log: (l) => la.push(l) });
        await until(() => stored(db) > 0);
        const b = runQueued(study(db), t, { log: (l) => lb.push(l) });
        const [ra, rb] = await within(Promise.all([a, b]), PATIENCE, "two coordinators");
        expect(lb.join("\n")).toMatch(/is being worked on by another eddy process \(pid \d+ on .*\); waiting for it to finish/);
        expect([...la, ...lb].join("\n")).not.toMatch(/malformed/);
        expect(rb.runId).toBe(ra.runId);
        expect(rb.skipped).toBe(4);
        expect(exportStore(db)).toEqual(exportStore(single));
    }, PATIENCE + 60_000);

    it("SIGTERM mid-shard: the worker hands its shard back, removes its scratch folder and exits 0; another worker finishes", async () => {
        const t = parseQueueUrl(redis.url);
        const queue = new Queue(QUEUE_NAME, { connection: t.options });
        try {
            const tmp = path.join(dir, "tmp-term");
            const w = worker("term", { tmp });
            await until(() => /waiting for shards/.test(w.log()));
            const db = path.join(dir, "term.db");
            const coordinator = runQueued(small(db), t);
            await until(async () => (await queue.getActiveCount()) > 0 && readdirSync(tmp).some((f) => f.startsWith("eddy-shard-")));
            w.kill("SIGTERM");
            const r = await within(w, 30_000, "the stopping worker");
            expect(r.exitCode, w.log()).toBe(0);
            // Handed back by the shard's own stop (not only the worker's word that it would be), and not finished here.
            expect(w.log()).toMatch(/eddy: shard \S.*: handed back to the queue/);
            expect(w.log()).not.toMatch(/answers in [\d.]+s/);
            expect(readdirSync(tmp).filter((f) => f.startsWith("eddy-shard-"))).toEqual([]);
            // Handed back at once, not left to a stalled-job check (no other worker runs yet).
            expect(await queue.getActiveCount()).toBe(0);
            await honest("after");
            await within(coordinator, PATIENCE, "the coordinator");
            expect(exportStore(db)).toEqual(exportStore(oneShard));
        } finally {
            await queue.close();
        }
    }, PATIENCE + 60_000);
});
