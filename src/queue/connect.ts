import { Redis } from "ioredis";
import { EddyError, oneLine } from "../util/errors.js";
import type { QueueTarget } from "./queueUrl.js";

/**
 * Reach Redis once, without retries, before BullMQ (which retries forever) is started: an unreachable
 * server or a wrong password becomes one line instead of a stream of reconnect errors.
 */
export async function checkRedis(t: QueueTarget, timeoutMs = 5000): Promise<void> {
    const client = new Redis({ ...(t.options as object), lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: timeoutMs, enableOfflineQueue: false });
    // The cause (a refused AUTH, ECONNREFUSED) arrives as an error event; the promise only says the connection closed.
    let cause = "";
    client.on("error", (err: unknown) => void (cause ||= oneLine(err)));
    try {
        await client.connect();
        await client.ping();
    } catch (err) {
        const msg = `${cause} ${oneLine(err)}`.trim();
        if (/WRONGPASS|NOAUTH|invalid password|invalid username-password/i.test(msg)) throw new EddyError(`Redis at ${t.where} refused the credentials (check the password in --queue)`, 77);
        if (/ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|connect/i.test(msg)) throw new EddyError(`cannot reach Redis at ${t.where} (${/\b(E[A-Z]{4,})\b/.exec(msg)?.[1] ?? oneLine(err)}); is redis-server running there?`, 69);
        throw new EddyError(`Redis at ${t.where}: ${msg}`, 69);
    } finally {
        client.disconnect();
    }
}
