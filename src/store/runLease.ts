import { randomBytes } from "node:crypto";
import os from "node:os";
import { EddyError } from "../util/errors.js";
import { processAlive } from "../util/processAlive.js";
import { connection } from "./connection.js";
import type { Store } from "./Store.js";

/** How often the holder refreshes its lease, and how old a refresh may get before the lease counts as abandoned (ms). */
const HEARTBEAT_MS = 5_000;
const STALE_MS = 60_000;
/** How often a waiting process looks again (ms). */
const POLL_MS = 500;

interface LeaseRow {
    holder: string;
    host: string;
    pid: number;
    heartbeat: number;
}

export interface RunLease {
    /** Give the run back (idempotent). */
    release(): void;
}

/** Whether the process holding a lease is still there: a pid on this host is asked; elsewhere only the heartbeat tells. */
function holderAlive(l: LeaseRow, now: number): boolean {
    if (now - l.heartbeat > STALE_MS) return false;
    return l.host !== os.hostname() || processAlive(l.pid);
}

/**
 * Hold a run for this session: one process works on a run at a time, so two processes started on one
 * run never both generate every answer. A second one waits (one line says for whom) until the first is
 * done, then continues with what is left — usually nothing. A holder killed without warning is noticed
 * by its dead pid (same host) or its stale heartbeat. `signal` stops the wait (exit 130).
 */
export async function leaseRun(store: Store, runId: string, o: { log?: (line: string) => void; signal?: AbortSignal } = {}): Promise<RunLease> {
    const holder = `${os.hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
    const take = (): LeaseRow | undefined =>
        store.write(() => {
            const now = Date.now();
            const have = connection(store).prepare("SELECT holder, host, pid, heartbeat FROM run_leases WHERE run_id = ?").get(runId) as LeaseRow | undefined;
            if (have && have.holder !== holder && holderAlive(have, now)) return have;
            connection(store)
                .prepare("INSERT OR REPLACE INTO run_leases (run_id, holder, host, pid, acquired, heartbeat) VALUES (?, ?, ?, ?, ?, ?)")
                .run(runId, holder, os.hostname(), process.pid, new Date(now).toISOString(), now);
            return undefined;
        });
    let waitedFor: string | undefined;
    for (let other = take(); other; other = take()) {
        const who = `pid ${other.pid} on ${other.host}`;
        if (waitedFor !== who) o.log?.(`run ${runId} is being worked on by another eddy process (${who}); waiting for it to finish`);
        waitedFor = who;
        if (o.signal?.aborted) throw new EddyError(`stopped while waiting for run ${runId} (nothing was changed)`, 130);
        await new Promise((r) => setTimeout(r, POLL_MS));
    }
    const beat = setInterval(() => {
        try {
            connection(store).prepare("UPDATE run_leases SET heartbeat = ? WHERE run_id = ? AND holder = ?").run(Date.now(), runId, holder);
        } catch {
            // Busy for a moment: the next beat comes well before the lease goes stale.
        }
    }, HEARTBEAT_MS);
    beat.unref();
    let held = true;
    return {
        release: () => {
            if (!held) return;
            held = false;
            clearInterval(beat);
            try {
                if (connection(store).open) connection(store).prepare("DELETE FROM run_leases WHERE run_id = ? AND holder = ?").run(runId, holder);
            } catch {
                // A database that cannot be written now (full, locked): the lease goes stale on its own.
            }
        }
    };
}
