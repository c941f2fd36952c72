import type { RedisOptions } from "bullmq";
import { EddyError } from "../util/errors.js";

/** Where the shards live, read from `redis://[user][:password@]host[:port][/db]` (or `rediss://` for TLS). */
export interface QueueTarget {
    options: RedisOptions;
    /** host:port, for messages (never the password). */
    where: string;
}

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|::1|\[::1\])$/i;

/**
 * Parse a queue URL. A Redis beyond this machine without a password would run any job anyone on the
 * network enqueues: refused unless the user says `--insecure-queue`.
 */
export function parseQueueUrl(url: string, opts: { insecure?: boolean } = {}): QueueTarget {
    let u: URL;
    try {
        u = new URL(url);
    } catch {
        throw new EddyError(`--queue '${url}' is not a URL (use redis://[:password@]host:6379[/db])`);
    }
    if (u.protocol !== "redis:" && u.protocol !== "rediss:") throw new EddyError(`--queue must be a redis:// or rediss:// URL (got ${u.protocol}//)`);
    const host = u.hostname.replace(/^\[|\]$/g, "") || "127.0.0.1";
    const port = u.port ? Number(u.port) : 6379;
    const db = u.pathname && u.pathname !== "/" ? Number(u.pathname.slice(1)) : 0;
    if (!Number.isInteger(db) || db < 0) throw new EddyError(`--queue: '${u.pathname.slice(1)}' is not a Redis database number`);
    const password = u.password ? decodeURIComponent(u.password) : undefined;
    const username = u.username ? decodeURIComponent(u.username) : undefined;
    const where = `${u.protocol}//${host.includes(":") ? `[${host}]` : host}:${port}`;
    if (!password && !LOOPBACK.test(host) && !opts.insecure)
        throw new EddyError(`refusing Redis at ${where} without a password: anyone who can reach it can submit jobs (give redis://:password@…, or --insecure-queue on a trusted network)`);
    return {
        where,
        options: {
            host,
            port,
            db,
            ...(password ? { password } : {}),
            ...(username ? { username } : {}),
            ...(u.protocol === "rediss:" ? { tls: { servername: host } } : {}),
            // BullMQ's blocking calls need this; failures surface through our own ping first.
            maxRetriesPerRequest: null
        }
    };
}
