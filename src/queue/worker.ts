import { mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DelayedError, type Job, UnrecoverableError, WaitingError, Worker } from "bullmq";
import { Redis } from "ioredis";
import { probeIsolation } from "../judge/isolation.js";
import { pythonCommand } from "../judge/workerScript.js";
import type { IsolationReport } from "../judge/types.js";
import { oneLine } from "../util/errors.js";
import { checkRedis } from "./connect.js";
import { LoopWatch } from "./loopWatch.js";
import type { QueueTarget } from "./queueUrl.js";
import { RedisState } from "./redisState.js";
import { refusal } from "./refusal.js";
import { heartbeat, leave, readResults, recordRefusal, recordTrouble, saveResult } from "./refusals.js";
import { runShard, type WorkerSettings } from "./runShard.js";
import { runShardChild, type ShardChildReply } from "./shardChild.js";
import { sweepScratch, makeScratch, removeScratch } from "./scratch.js";
import { QUEUE_NAME, SHARD_JOB_VERSION, shardJobSchema, shardResultSchema, type Shard, type ShardResult } from "./shardJob.js";

export interface WorkerOptions extends Partial<WorkerSettings> {
    /** How long a shard's lock lasts without renewal: a worker dead this long gives its shard back (ms). */
    lockMs?: number;
    log?: (line: string) => void;
    /** Run each shard in this process rather than a process of its own (tests that judge in-process only). */
    inProcess?: boolean;
}

export interface RunningWorker {
    worker: Worker;
    /** Stop taking shards; a running shard finishes first. */
    close(): Promise<void>;
    /** Stop now: a running shard is stopped and handed back to the queue for another worker. */
    stop(): Promise<void>;
    /** Whether a shard is running here now. */
    busy(): boolean;
    /** The longest this worker's event loop was held, in ms (what could have kept it from renewing a lock). */
    longestBlockMs(): number;
}

/** After putting a shard back, this worker fetches nothing for a while (doubling per refusal up to the maximum), so a worker that can run it gets it. */
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 4000;
/** After a passing failure (the judge did not start), the shard is asked again after this, doubling up to the maximum. */
const FIRST_RETRY_MS = 2000;
const MAX_RETRY_MS = 60_000;
/** How often a running shard looks whether another worker already stored its result (ms). */
const RESULT_WATCH_MS = 2000;
/**
 * A stalled shard is never failed for stalling: it goes back to the queue however often its worker lost the
 * lock (BullMQ fails it after maxStalledCount, and a failed shard stops the study).
 */
const NEVER_FAIL_STALLED = 1_000_000;

const label = (s: Shard): string => `${s.model} ${s.template} T=${s.temperature} ${s.wrapper}`;

/**
 * Pull shards from the queue and run them, one at a time, until closed. A shard this node cannot
 * reproduce exactly (see refusal) is put back for other workers, never failed, and this worker stops
 * taking that study; the reason is left in Redis for the coordinator to report. A failure that may pass
 * (the judge did not start) puts the shard back and asks again later, with a growing pause.
 *
 * The lock: each shard runs in a process of its own, so this process's event loop only renews locks and
 * talks to Redis; it renews every fifth of the lock's time, so it may be held up for most of it. A finished
 * shard's result is saved in Redis apart from the job before the job is completed, so a worker that lost
 * its lock (a busy machine, an outage) loses no work: the coordinator stores the saved result, and a worker
 * that takes the shard again finds it there and runs nothing.
 */
export async function startWorker(t: QueueTarget, o: WorkerOptions = {}): Promise<RunningWorker> {
    await checkRedis(t);
    const log = o.log ?? (() => {});
    const node = o.node ?? `${os.hostname()}:${process.pid}`;
    const settings: WorkerSettings = { ...o, node };
    delete (settings as { log?: unknown }).log;
    const lockDuration = o.lockMs ?? 30_000;
    // Work that holds the event loop is done before any shard's lock is: the judge's interpreter resolved
    // (a synchronous run of python3, once per process), and the judge asked what it can do.
    pythonCommand();
    const swept = sweepScratch();
    if (swept) log(`removed ${swept} scratch folder(s) left by workers that were killed`);
    const state = new RedisState(t, log);
    const client = new Redis({ ...(t.options as object), maxRetriesPerRequest: null });
    client.on("error", state.error);
    const refused = new Map<string, string>();
    /** Studies whose shards this worker cannot run for now (why), and how long it waits before asking again. */
    const troubled = new Map<string, { why: string; retryMs: number }>();
    const stopping = new AbortController();
    let judge: Promise<IsolationReport> | undefined;
    // A judge that failed to start is asked again next time: a failure is never remembered.
    const judgeHere = (): Promise<IsolationReport> => (judge ??= probeIsolation().catch((err: unknown) => ((judge = undefined), Promise.reject(err))));
    let backoff = 0;
    let resumeTimer: NodeJS.Timeout | undefined;
    let running: Job | undefined;
    /** Scratch databases of shards begun here and not finished, by job id: taken again, a shard resumes there. */
    const scratch = new Map<string, string>();
    await judgeHere().catch(() => {}); // a failure is asked again with the first shard
    const watch = new LoopWatch(lockDuration, (ms) => log(`this worker's event loop was held for ${ms} ms (the lock lasts ${lockDuration} ms); a shard's lock may lapse`));
    const beat = Math.max(250, Math.min(5000, Math.floor(lockDuration / 3)));
    const alive = setInterval(() => void heartbeat(client, node, beat * 3).catch(() => {}), beat);
    alive.unref();
    await heartbeat(client, node, beat * 3).catch(() => {});

    const refuse = async (runId: string, why: string): Promise<void> => {
        refused.set(runId, why);
        log(`refusing study ${runId}: ${why} (its shards are left to other workers)`);
        await recordRefusal(client, runId, node, why).catch(() => {});
    };
    /** A passing failure: said once per study and reason, left for the coordinator, the shard asked again later. */
    const trouble = async (runId: string, why: string): Promise<number> => {
        const had = troubled.get(runId);
        const retryMs = had ? Math.min(MAX_RETRY_MS, had.retryMs * 2) : FIRST_RETRY_MS;
        troubled.set(runId, { why, retryMs });
        if (had?.why !== why) log(`study ${runId}: ${why}; its shard is put back and tried again in ${Math.round(retryMs / 1000)} s (and later, less often, until it works)`);
        await recordTrouble(client, runId, node, why).catch(() => {});
        return retryMs;
    };
    const cleared = async (runId: string): Promise<void> => {
        if (!troubled.delete(runId)) return;
        log(`study ${runId}: the judge starts again; running its shards`);
        await recordTrouble(client, runId, node, null).catch(() => {});
    };
    /**
     * Leave the shard to other workers: back in line at once, behind the others (a delay of zero: BullMQ puts a
     * job moved to wait at the head of the line, where this worker would take it again), and nothing fetched
     * here for a while.
     */
    const putBack = async (job: Job, token: string | undefined, pauseMs?: number): Promise<never> => {
        await job.moveToDelayed(Date.now(), token);
        if (!stopping.signal.aborted) {
            backoff = pauseMs ?? Math.min(MAX_BACKOFF_MS, backoff ? backoff * 2 : FIRST_BACKOFF_MS);
            void worker.pause(true);
            clearTimeout(resumeTimer);
            resumeTimer = setTimeout(() => void (stopping.signal.aborted || worker.resume()), backoff);
        }
        throw new DelayedError();
    };
    /** A result saved for this job (by this worker or another, before its lock lapsed), if it is a whole one. */
    const savedResult = async (jobId: string): Promise<ShardResult | undefined> => {
        const [r] = await readResults(client, [jobId]).catch(() => [undefined]);
        const parsed = shardResultSchema.safeParse(r);
        return parsed.success ? parsed.data : undefined;
    };

    /** Run the shard (in a process of its own unless inProcess) in its scratch database, watching for a result saved by another worker meanwhile. */
    const run = async (jobId: string, j: Parameters<typeof runShard>[0]): Promise<ShardChildReply | { ok: true; result: ShardResult; elsewhere: true }> => {
        let dir = scratch.get(jobId);
        if (!dir) scratch.set(jobId, (dir = makeScratch()));
        mkdirSync(dir, { recursive: true });
        const db = path.join(dir, "shard.db");
        if (o.inProcess) {
            const { runShardIn } = await import("./runShard.js");
            return runShardIn(db, j, settings, stopping.signal).then(
                (result): ShardChildReply => ({ ok: true, result }),
                (err: unknown): ShardChildReply => ({ ok: false, error: oneLine(err), stopped: stopping.signal.aborted })
            );
        }
        // A stop heard since the shard was taken (its listener below would never fire): handed back, not run.
        if (stopping.signal.aborted) return { ok: false, error: "stopped before the shard's process started", stopped: true };
        const child = runShardChild({ db, job: j, settings });
        const onStop = (): void => child.stop();
        stopping.signal.addEventListener("abort", onStop);
        let found: ShardResult | undefined;
        const look = setInterval(() => {
            void savedResult(jobId).then((r) => {
                if (r && !found) {
                    found = r;
                    child.kill();
                }
            });
        }, RESULT_WATCH_MS);
        try {
            const reply = await child.done.catch((err: unknown): ShardChildReply => ({ ok: false, error: oneLine(err), stopped: stopping.signal.aborted }));
            return found ? { ok: true, result: found, elsewhere: true } : reply;
        } finally {
            clearInterval(look);
            stopping.signal.removeEventListener("abort", onStop);
        }
    };
    const forget = (jobId: string): void => {
        const dir = scratch.get(jobId);
        scratch.delete(jobId);
        if (dir) removeScratch(dir);
    };

    const worker: Worker<unknown, ShardResult> = new Worker<unknown, ShardResult>(
        QUEUE_NAME,
        async (job, token) => {
            const raw = (job.data ?? {}) as { v?: unknown; runId?: unknown };
            if (typeof raw.v === "number" && raw.v !== SHARD_JOB_VERSION) {
                const runId = String(raw.runId ?? job.id);
                if (!refused.has(runId)) await refuse(runId, `the shard was made by another eddy (job format ${raw.v}; this worker reads ${SHARD_JOB_VERSION})`);
                return putBack(job, token);
            }
            // Validated before use: a malformed job fails with its reason and is never run.
            const parsed = shardJobSchema.safeParse(job.data);
            if (!parsed.success) {
                const i = parsed.error.issues[0];
                throw new UnrecoverableError(`malformed shard job: ${i ? `${i.path.join(".") || "(root)"}: ${i.message}` : "invalid"}`);
            }
            const j = parsed.data;
            if (stopping.signal.aborted) return putBack(job, token);
            const s = j.shard;
            const jobId = job.id!;
            // Finished already (here or elsewhere, by a worker whose lock lapsed before it could complete the job): nothing to run again.
            const saved = await savedResult(jobId);
            if (saved) {
                log(`shard ${label(s)}: finished before (by ${saved.node}); its saved result is handed in`);
                return saved;
            }
            let why = refused.get(j.runId);
            if (why === undefined && j.refusedBy.includes(node)) why = "the coordinator refused this worker's result for one of its shards";
            try {
                if (why === undefined) why = await refusal(j, settings, judgeHere);
            } catch (err) {
                return putBack(job, token, await trouble(j.runId, oneLine(err)));
            }
            if (why) {
                if (!refused.has(j.runId)) await refuse(j.runId, why);
                return putBack(job, token);
            }
            await cleared(j.runId);
            backoff = 0;
            log(`shard ${label(s)}: running`);
            running = job;
            try {
                const reply = await run(jobId, j);
                if (reply.ok) {
                    forget(jobId);
                    const r = reply.result;
                    if ("elsewhere" in reply) {
                        log(`shard ${label(s)}: finished meanwhile by ${r.node} (this worker's lock had lapsed); stopped here, its result is handed in`);
                        return r;
                    }
                    // Saved before the job is completed: if the lock lapsed meanwhile, the coordinator still stores it.
                    await saveResult(client, jobId, r);
                    log(`shard ${label(s)}: ${r.generations.length} answers in ${(r.ms / 1000).toFixed(1)}s`);
                    return r;
                }
                if (stopping.signal.aborted) {
                    forget(jobId);
                    await job.moveToWait(token).catch(() => {});
                    log(`shard ${label(s)}: handed back to the queue`);
                    throw new WaitingError();
                }
                // The judge that did not start (a busy machine, a killed process) may start next time: asked again later, what was finished kept.
                if (/judge.*(failed to start|cannot start)|sandbox zygote failed to start/i.test(reply.error)) return putBack(job, token, await trouble(j.runId, reply.error));
                forget(jobId);
                throw new UnrecoverableError(`shard failed on ${node}: ${reply.error}`);
            } finally {
                running = undefined;
            }
        },
        // A killed worker stops renewing its lock; after lockDuration another worker's stalled check puts the shard back.
        {
            connection: t.options,
            concurrency: 1,
            lockDuration,
            lockRenewTime: Math.max(100, Math.floor(lockDuration / 5)),
            stalledInterval: Math.max(500, Math.floor(lockDuration / 2)),
            maxStalledCount: NEVER_FAIL_STALLED
        }
    );
    worker.on("error", state.error);
    worker.on("lockRenewalFailed", (ids: string[]) => {
        for (const id of ids) state.lapsed(id);
    });
    await worker.waitUntilReady();
    const shutdown = async (): Promise<void> => {
        clearTimeout(resumeTimer);
        clearInterval(alive);
        await worker.close();
        watch.close();
        await leave(client, node).catch(() => {});
        state.close();
        client.disconnect();
        for (const id of [...scratch.keys()]) forget(id);
    };
    return {
        worker,
        close: shutdown,
        stop: async () => {
            stopping.abort();
            await shutdown();
        },
        busy: () => running !== undefined,
        longestBlockMs: () => watch.longest
    };
}

