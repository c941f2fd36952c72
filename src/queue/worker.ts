import os from "node:os";
import { DelayedError, type Job, UnrecoverableError, WaitingError, Worker } from "bullmq";
import { Redis } from "ioredis";
import { probeIsolation } from "../judge/isolation.js";
import type { IsolationReport } from "../judge/types.js";
import { oneLine } from "../util/errors.js";
import { checkRedis } from "./connect.js";
import type { QueueTarget } from "./queueUrl.js";
import { RedisState } from "./redisState.js";
import { refusal } from "./refusal.js";
import { recordRefusal } from "./refusals.js";
import { runShard, type WorkerSettings } from "./runShard.js";
import { sweepScratch } from "./scratch.js";
import { QUEUE_NAME, SHARD_JOB_VERSION, shardJobSchema, type Shard, type ShardResult } from "./shardJob.js";

export interface WorkerOptions extends Partial<WorkerSettings> {
    /** How long a shard's lock lasts without renewal: a worker dead this long gives its shard back (ms). */
    lockMs?: number;
    log?: (line: string) => void;
}

export interface RunningWorker {
    worker: Worker;
    /** Stop taking shards; a running shard finishes first. */
    close(): Promise<void>;
    /** Stop now: a running shard is stopped and handed back to the queue for another worker. */
    stop(): Promise<void>;
}

/** After putting a shard back, this worker fetches nothing for a while (doubling per refusal up to the maximum), so a worker that can run it gets it. */
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 4000;

const label = (s: Shard): string => `${s.model} ${s.template} T=${s.temperature} ${s.wrapper}`;

/**
 * Pull shards from the queue and run them, one at a time, until closed. A shard this node cannot
 * reproduce exactly (see refusal) is put back for other workers, never failed, and this worker stops
 * taking that study; the reason is left in Redis for the coordinator to report.
 */
export async function startWorker(t: QueueTarget, o: WorkerOptions = {}): Promise<RunningWorker> {
    await checkRedis(t);
    const log = o.log ?? (() => {});
    const node = o.node ?? `${os.hostname()}:${process.pid}`;
    const settings: WorkerSettings = { ...o, node };
    const lockDuration = o.lockMs ?? 30_000;
    const swept = sweepScratch();
    if (swept) log(`removed ${swept} scratch folder(s) left by workers that were killed`);
    const state = new RedisState(t, log);
    const client = new Redis({ ...(t.options as object), maxRetriesPerRequest: null });
    client.on("error", state.error);
    const refused = new Map<string, string>();
    const stopping = new AbortController();
    let judge: Promise<IsolationReport> | undefined;
    const judgeHere = (): Promise<IsolationReport> => (judge ??= probeIsolation());
    let backoff = 0;
    let resumeTimer: NodeJS.Timeout | undefined;

    const refuse = async (runId: string, why: string): Promise<void> => {
        refused.set(runId, why);
        log(`refusing study ${runId}: ${why} (its shards are left to other workers)`);
        await recordRefusal(client, runId, node, why).catch(() => {});
    };
    /**
     * Leave the shard to other workers: back in line at once, behind the others (a delay of zero: BullMQ puts a
     * job moved to wait at the head of the line, where this worker would take it again), and nothing fetched
     * here for a while.
     */
    const putBack = async (job: Job, token: string | undefined): Promise<never> => {
        await job.moveToDelayed(Date.now(), token);
        if (!stopping.signal.aborted) {
            backoff = Math.min(MAX_BACKOFF_MS, backoff ? backoff * 2 : FIRST_BACKOFF_MS);
            void worker.pause(true);
            clearTimeout(resumeTimer);
            resumeTimer = setTimeout(() => void (stopping.signal.aborted || worker.resume()), backoff);
        }
        throw new DelayedError();
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
            let why = refused.get(j.runId);
            if (why === undefined && j.refusedBy.includes(node)) why = "the coordinator refused this worker's result for one of its shards";
            if (why === undefined) why = await refusal(j, settings, judgeHere).catch((err: unknown) => `the judge cannot start here: ${oneLine(err)}`);
            if (why) {
                if (!refused.has(j.runId)) await refuse(j.runId, why);
                return putBack(job, token);
            }
            backoff = 0;
            const s = j.shard;
            log(`shard ${label(s)}: running`);
            try {
                const r = await runShard(j, settings, stopping.signal);
                log(`shard ${label(s)}: ${r.generations.length} answers in ${(r.ms / 1000).toFixed(1)}s`);
                return r;
            } catch (err) {
                if (stopping.signal.aborted) {
                    await job.moveToWait(token);
                    log(`shard ${label(s)}: handed back to the queue`);
                    throw new WaitingError();
                }
                throw new UnrecoverableError(`shard failed on ${node}: ${oneLine(err)}`);
            }
        },
        // A killed worker stops renewing its lock; after lockDuration another worker's stalled check puts the shard back.
        { connection: t.options, concurrency: 1, lockDuration, stalledInterval: Math.max(500, Math.floor(lockDuration / 2)), maxStalledCount: 5 }
    );
    worker.on("error", state.error);
    await worker.waitUntilReady();
    const shutdown = async (): Promise<void> => {
        clearTimeout(resumeTimer);
        await worker.close();
        state.close();
        client.disconnect();
    };
    return {
        worker,
        close: shutdown,
        stop: async () => {
            stopping.abort();
            await shutdown();
        }
    };
}
