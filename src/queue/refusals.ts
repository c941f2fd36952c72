import type { Redis } from "ioredis";

/** Where workers leave why they refuse a study (worker name → reason), for its coordinator to report. */
const key = (runId: string): string => `eddy:refusals:${runId}`;
/** Kept a while after the study, then Redis forgets it. */
const KEEP_S = 30 * 24 * 3600;

export async function recordRefusal(client: Redis, runId: string, node: string, why: string): Promise<void> {
    await client.multi().hset(key(runId), node, why).expire(key(runId), KEEP_S).exec();
}

export async function readRefusals(client: Redis, runId: string): Promise<Record<string, string>> {
    return client.hgetall(key(runId));
}
