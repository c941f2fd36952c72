import { Redis } from "ioredis";
import { oneLine } from "../util/errors.js";
import type { QueueTarget } from "./queueUrl.js";

/** Errors that mean "Redis cannot be reached right now" (ioredis retries them on its own). */
const CONNECTION = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|Connection is closed|Stream isn't writeable|LOADING/;
/** BullMQ's words for a job whose keys are gone. */
const JOB_GONE = /(?:could not renew lock for job|Missing (?:lock|key) for job) (\S+?)\.?(?:\s|$)/;
/** How often a lost Redis is asked whether it is back (ms). */
const PROBE_MS = 1000;

/**
 * Redis's reachability as one line per change of state. BullMQ's clients reconnect by themselves and
 * report every failed attempt (several a second); a lab watching a log wants "lost" once and "back"
 * once. Other queue errors are reported once each.
 */
export class RedisState {
    private down = false;
    private probe: NodeJS.Timeout | undefined;
    private readonly said = new Set<string>();

    constructor(
        private readonly t: QueueTarget,
        private readonly log: (line: string) => void
    ) {}

    /** An 'error' event of a queue, worker or client. */
    readonly error = (err: unknown): void => {
        const code = (err as { code?: unknown } | null)?.code;
        const text = `${typeof code === "string" ? code : ""} ${oneLine(err)}`;
        if (CONNECTION.test(text)) return this.lost(/\b(E[A-Z]{4,})\b/.exec(text)?.[1] ?? oneLine(err));
        // A job this worker no longer holds (Redis restarted empty or flushed, or its lock expired): one line, not one per renewal.
        const job = JOB_GONE.exec(text)?.[1];
        const line = job ? `job ${job} is no longer this worker's (Redis restarted or flushed, or its lock expired): its result is dropped and the shard runs again` : `queue: ${oneLine(err)}`;
        if (this.said.has(line)) return;
        this.said.add(line);
        this.log(line);
    };

    private lost(why: string): void {
        if (this.down) return;
        this.down = true;
        this.log(`lost Redis at ${this.t.where} (${why}); waiting for it to come back`);
        this.probe = setInterval(() => void this.ask(), PROBE_MS);
        this.probe.unref();
    }

    /** One ping on a connection of its own, without retries: the queue's clients say nothing when they are back. */
    private async ask(): Promise<void> {
        const c = new Redis({ ...(this.t.options as object), lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: PROBE_MS });
        c.on("error", () => {});
        try {
            await c.connect();
            await c.ping();
            if (!this.down) return;
            this.down = false;
            clearInterval(this.probe);
            this.said.clear();
            this.log(`Redis at ${this.t.where} is back`);
        } catch {
            // Still away: asked again in a second.
        } finally {
            c.disconnect();
        }
    }

    close(): void {
        clearInterval(this.probe);
    }
}
