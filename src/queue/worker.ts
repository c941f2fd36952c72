import os from "node:os";
import { UnrecoverableError, Worker } from "bullmq";
import { oneLine } from "../util/errors.js";
import { checkRedis } from "./connect.js";
import type { QueueTarget } from "./queueUrl.js";
import { refusal, runShard, type WorkerSettings } from "./runShard.js";
import { QUEUE_NAME, shardJobSchema, type ShardResult } from "./shardJob.js";

export interface WorkerOptions extends Partial<WorkerSettings> {
    /** How long a shard's lock lasts without renewal: a worker dead this long gives its shard back (ms). */
    lockMs?: number;
    log?: (line: string) => void;
}

/** Pull shards from the queue and run them, one at a time, until closed. */
export async function startWorker(t: QueueTarget, o: WorkerOptions = {}): Promise<{ close(): Promise<void>; worker: Worker }> {
    await checkRedis(t);
    const log = o.log ?? (() => {});
    const node = o.node ?? `${os.hostname()}:${process.pid}`;
    const lockDuration = o.lockMs ?? 30_000;
    const worker = new Worker<unknown, ShardResult>(
        QUEUE_NAME,
        async (job) => {
            // Validated before use: a malformed job fails with its reason and is never run.
            const parsed = shardJobSchema.safeParse(job.data);
            if (!parsed.success) {
                const i = parsed.error.issues[0];
                throw new UnrecoverableError(`malformed shard job: ${i ? `${i.path.join(".") || "(root)"}: ${i.message}` : "invalid"}`);
            }
            const why = await refusal(parsed.data);
            if (why) {
                log(`refused shard ${job.id}: ${why}`);
                throw new UnrecoverableError(`refused by ${node}: ${why}`);
            }
            const s = parsed.data.shard;
            log(`shard ${s.model} ${s.template} T=${s.temperature} ${s.wrapper}: running`);
            try {
                const r = await runShard(parsed.data, { ...o, node });
                log(`shard ${s.model} ${s.template} T=${s.temperature} ${s.wrapper}: ${r.generations.length} answers in ${(r.ms / 1000).toFixed(1)}s`);
                return r;
            } catch (err) {
                throw new UnrecoverableError(`shard failed on ${node}: ${oneLine(err)}`);
            }
        },
        // A killed worker stops renewing its lock; after lockDuration another worker's stalled check puts the shard back.
        { connection: t.options, concurrency: 1, lockDuration, stalledInterval: Math.max(500, Math.floor(lockDuration / 2)), maxStalledCount: 5 }
    );
    worker.on("error", (err) => log(`queue error: ${oneLine(err)}`));
    await worker.waitUntilReady();
    return { worker, close: () => worker.close() };
}
