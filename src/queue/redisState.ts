import { Redis } from "ioredis";
import { oneLine } from "../util/errors.js";
import type { QueueTarget } from "./queueUrl.js";

/** BullMQ's words for a job this worker no longer holds: its lock lapsed and another took it, or its keys are gone. */
const JOB_GONE = /(?:could not renew lock for job|Missing (?:lock|key) for job|Lock mismatch for job) (\S+?)\.?(?:\s|$)/;
/** Errors that mean "Redis cannot be reached right now" (the clients retry them on their own): the probe decides. */
const CONNECTION = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|Connection is closed|Stream isn't writeable|LOADING|Command timed out|MaxRetriesPerRequest/;
/** How often Redis is asked whether it answers (ms), and how long an answer may take before it counts as lost. */
const PROBE_MS = 1000;
const ANSWER_MS = 5000;

/**
 * Redis's reachability as one line per change of state. BullMQ's clients reconnect by themselves and
 * report every failed attempt (several a second), and a Redis that hangs (stopped, swapping) reports
 * nothing at all: so a connection of its own asks Redis every second, and only its answers change the
 * state, "lost" once and "back" once, at any load. Other queue errors are reported once each.
 */
export class RedisState {
    private down = false;
    private asking = false;
    private why = "";
    /** Until the probe's connection is first ready (or ANSWER_MS passed), a failed question means nothing yet. */
    private readonly since = Date.now();
    private ready = false;
    private readonly probe: NodeJS.Timeout;
    private readonly client: Redis;
    private readonly said = new Set<string>();

    constructor(
        private readonly t: QueueTarget,
        private readonly log: (line: string) => void
    ) {
        this.client = new Redis({
            ...(t.options as object),
            maxRetriesPerRequest: 0,
            enableOfflineQueue: false,
            commandTimeout: ANSWER_MS,
            connectTimeout: ANSWER_MS,
            retryStrategy: () => 250
        });
        this.client.on("error", (err: unknown) => void (this.why = describe(err)));
        this.client.once("ready", () => void (this.ready = true));
        this.probe = setInterval(() => void this.ask(), PROBE_MS);
        this.probe.unref();
    }

    /** An 'error' event of a queue, worker or client. */
    readonly error = (err: unknown): void => {
        const text = describe(err);
        if (CONNECTION.test(text)) {
            this.why ||= text;
            return void this.ask();
        }
        // A job this worker no longer holds (Redis restarted empty or flushed, or its lock lapsed): one line per job, never BullMQ's own words.
        const job = JOB_GONE.exec(text)?.[1];
        if (job) return this.lapsed(job);
        const line = `queue: ${oneLine(err)}`;
        if (this.said.has(line)) return;
        this.said.add(line);
        this.log(line);
    };

    /** This worker lost its hold on a job: said once per job. */
    lapsed(job: string): void {
        const key = `lapsed ${job}`;
        if (this.said.has(key)) return;
        this.said.add(key);
        this.log(
            `shard job ${job} is no longer this worker's (its lock lapsed, or Redis restarted or was flushed); nothing finished is lost: a finished result is saved apart for the coordinator, and the shard goes to the next worker`
        );
    }

    /** Whether Redis answered the last question. */
    get reachable(): boolean {
        return !this.down;
    }

    private async ask(): Promise<void> {
        if (this.asking || (!this.ready && Date.now() - this.since < ANSWER_MS)) return;
        this.asking = true;
        try {
            await this.client.ping();
            if (this.down) {
                this.down = false;
                for (const k of [...this.said]) if (!k.startsWith("lapsed ")) this.said.delete(k);
                this.log(`Redis at ${this.t.where} is back`);
            }
            this.why = "";
        } catch (err) {
            if (!this.down) {
                this.down = true;
                const why = this.why || describe(err);
                this.log(`lost Redis at ${this.t.where} (${/\b(E[A-Z]{4,})\b/.exec(why)?.[1] ?? (/timed out/i.test(why) ? `no answer in ${ANSWER_MS / 1000} s` : why)}); waiting for it to come back`);
            }
        } finally {
            this.asking = false;
        }
    }

    close(): void {
        clearInterval(this.probe);
        this.client.disconnect();
    }
}

function describe(err: unknown): string {
    const code = (err as { code?: unknown } | null)?.code;
    return `${typeof code === "string" ? code : ""} ${oneLine(err)}`.trim();
}
