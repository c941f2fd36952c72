import type { Redis } from "ioredis";

/**
 * What workers leave in Redis for a study's coordinator: why they refuse it (an identity it cannot
 * reproduce: permanent), what keeps them from it for now (a judge that failed to start: retried), each
 * finished shard's result (kept apart from the job, so a worker that lost its lock loses no work), and
 * that they are alive.
 */
const refusalsKey = (runId: string): string => `eddy:refusals:${runId}`;
const troubleKey = (runId: string): string => `eddy:trouble:${runId}`;
export const resultKey = (jobId: string): string => `eddy:result:${jobId}`;
const WORKER_PREFIX = "eddy:worker:";
/** Kept a while after the study, then Redis forgets it. */
const KEEP_S = 30 * 24 * 3600;
/** A result waits this long for its coordinator. */
const RESULT_KEEP_S = 7 * 24 * 3600;

export async function recordRefusal(client: Redis, runId: string, node: string, why: string): Promise<void> {
    await client.multi().hset(refusalsKey(runId), node, why).expire(refusalsKey(runId), KEEP_S).exec();
}

export async function readRefusals(client: Redis, runId: string): Promise<Record<string, string>> {
    return client.hgetall(refusalsKey(runId));
}

/** A passing problem (the judge did not start): `why` null clears it once the worker runs the study's shards again. */
export async function recordTrouble(client: Redis, runId: string, node: string, why: string | null): Promise<void> {
    if (why === null) await client.hdel(troubleKey(runId), node);
    else await client.multi().hset(troubleKey(runId), node, why).expire(troubleKey(runId), KEEP_S).exec();
}

export async function readTroubles(client: Redis, runId: string): Promise<Record<string, string>> {
    return client.hgetall(troubleKey(runId));
}

export async function saveResult(client: Redis, jobId: string, result: unknown): Promise<void> {
    await client.set(resultKey(jobId), JSON.stringify(result), "EX", RESULT_KEEP_S);
}

/** The results stored for these jobs (undefined where none), in one round trip. */
export async function readResults(client: Redis, jobIds: string[]): Promise<(unknown | undefined)[]> {
    if (!jobIds.length) return [];
    const raw = await client.mget(...jobIds.map(resultKey));
    return raw.map((r) => {
        if (r === null) return undefined;
        try {
            return JSON.parse(r) as unknown;
        } catch {
            return { malformed: true };
        }
    });
}

export async function dropResult(client: Redis, jobId: string): Promise<void> {
    await client.del(resultKey(jobId));
}

/** A worker says it is alive for `ttlMs` more. */
export async function heartbeat(client: Redis, node: string, ttlMs: number): Promise<void> {
    await client.set(`${WORKER_PREFIX}${node}`, String(Date.now()), "PX", ttlMs);
}

export async function leave(client: Redis, node: string): Promise<void> {
    await client.del(`${WORKER_PREFIX}${node}`);
}

/** The workers alive now (their heartbeats have not expired). */
export async function liveWorkers(client: Redis): Promise<string[]> {
    const out: string[] = [];
    let cursor = "0";
    do {
        const [next, keys] = await client.scan(cursor, "MATCH", `${WORKER_PREFIX}*`, "COUNT", 200);
        cursor = next;
        for (const k of keys) out.push(k.slice(WORKER_PREFIX.length));
    } while (cursor !== "0");
    return out.sort();
}
