import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { leaseRun } from "../../src/store/runLease.js";
import { openStore, type Store } from "../../src/store/Store.js";
import { cleanTmp, tmpDir } from "../run/helpers.js";
import { connection } from "../../src/store/connection.js";

afterAll(cleanTmp);

/** A lease row as another process would have left it. */
function leftBy(store: Store, runId: string, host: string, pid: number, heartbeat: number): void {
    connection(store).prepare("INSERT OR REPLACE INTO run_leases (run_id, holder, host, pid, acquired, heartbeat) VALUES (?, ?, ?, ?, ?, ?)").run(runId, `${host}:${pid}:x`, host, pid, new Date().toISOString(), heartbeat);
}

describe("one process per run (run_leases)", () => {
    const store = openStore(path.join(tmpDir(), "lease.db"));
    afterAll(() => store.close());

    it("a second session on the run waits for the first, saying for whom once, then takes it", async () => {
        const first = await leaseRun(store, "r1");
        const lines: string[] = [];
        let second: Awaited<ReturnType<typeof leaseRun>> | undefined;
        const waiting = leaseRun(store, "r1", { log: (l) => lines.push(l) }).then((l) => (second = l));
        await new Promise((r) => setTimeout(r, 1200));
        expect(second).toBeUndefined();
        expect(lines).toEqual([`run r1 is being worked on by another eddy process (pid ${process.pid} on ${os.hostname()}); waiting for it to finish`]);
        first.release();
        await waiting;
        expect(second).toBeDefined();
        // Another run is not held up by it.
        const other = await leaseRun(store, "r2");
        other.release();
        second!.release();
        expect(connection(store).prepare("SELECT COUNT(*) AS n FROM run_leases").get()).toEqual({ n: 0 });
    });

    it("a holder killed without warning (dead pid here, or silent elsewhere) is taken over at once", async () => {
        const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString();
        leftBy(store, "r3", os.hostname(), Number(dead), Date.now());
        const lines: string[] = [];
        (await leaseRun(store, "r3", { log: (l) => lines.push(l) })).release();
        leftBy(store, "r4", "another-host", 1, Date.now() - 120_000);
        (await leaseRun(store, "r4", { log: (l) => lines.push(l) })).release();
        expect(lines).toEqual([]);
    });

    it("a live holder elsewhere is waited for; Ctrl-C stops the wait with nothing changed (exit 130)", async () => {
        leftBy(store, "r5", "another-host", 1, Date.now());
        const stop = new AbortController();
        const lines: string[] = [];
        const wait = leaseRun(store, "r5", { log: (l) => lines.push(l), signal: stop.signal });
        setTimeout(() => stop.abort(), 300);
        await expect(wait).rejects.toMatchObject({ exitCode: 130, message: "stopped while waiting for run r5 (nothing was changed)" });
        expect(lines).toEqual(["run r5 is being worked on by another eddy process (pid 1 on another-host); waiting for it to finish"]);
        expect(connection(store).prepare("SELECT host FROM run_leases WHERE run_id = 'r5'").get()).toEqual({ host: "another-host" });
    });
});
