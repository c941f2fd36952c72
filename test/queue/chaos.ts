import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa, type ResultPromise } from "execa";
import { startRedis } from "./redisServer.js";

/**
 * One study under load and faults, as a lab's busy GPU nodes see it: `busyPerCore` spinning processes per
 * core, workers with a short lock, and at random moments a worker killed outright (and another started)
 * or Redis killed and started again empty. Used by test/queue/load.test.ts (once) and
 * scripts/chaos-queue.ts (as often as asked, with figures).
 */
export interface ChaosOptions {
    bin: string;
    dir: string;
    /** `eddy run` flags of the study (without --db/--queue). */
    study: string[];
    lockMs: number;
    busyPerCore: number;
    workers: number;
    /** A random source in [0, 1) (seeded by the caller, so a failing round can be told again). */
    random: () => number;
    /** How many workers to kill, and how many times to kill Redis, each at a random moment of the study. */
    workerKills: number;
    redisKills: number;
    /** A bound against a hang (never a speed claim). */
    patienceMs: number;
}

export interface ChaosOutcome {
    exitCode: number | undefined;
    timedOut: boolean;
    seconds: number;
    workerKills: number;
    redisKills: number;
    /** The longest event-loop hold each worker that was stopped in the end reports (ms). */
    longestHoldsMs: number[];
    /** Lines no user should see: BullMQ's raw words, stack traces, a worker warning that its loop was held. */
    badLines: string[];
    coordinatorLog: string;
    workerLogs: string[];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const BAD = /Lock mismatch|Missing lock|Missing key|Unhandled error|MaxListenersExceeded|event loop was held|stalled more than allowable/;

export async function chaosRound(db: string, o: ChaosOptions): Promise<ChaosOutcome> {
    const busy: ChildProcess[] = [];
    for (let i = 0; i < os.cpus().length * o.busyPerCore; i++) busy.push(spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }));
    let redis = await startRedis("eddy-chaos");
    const port = redis.port;
    const workers: (ResultPromise & { log: () => string; name: string })[] = [];
    const worker = (name: string): void => {
        const tmp = path.join(o.dir, `tmp-${name}`);
        mkdirSync(tmp, { recursive: true });
        const p = execa("node", [o.bin, "worker", "--queue", redis.url, "--judge-workers", "1", "--node", name, "--lock-ms", String(o.lockMs)], {
            reject: false,
            forceKillAfterDelay: false,
            env: { ...process.env, TMPDIR: tmp, EDDY_WORKER_STATS: "1" }
        });
        let err = "";
        p.stderr!.on("data", (b: Buffer) => void (err += b.toString()));
        workers.push(Object.assign(p, { log: () => err, name }));
    };
    const started = Date.now();
    let workerKills = 0;
    let redisKills = 0;
    try {
        for (let i = 0; i < o.workers; i++) worker(`w${i + 1}`);
        const c = execa("node", [o.bin, "run", ...o.study, "--db", db, "--queue", redis.url, "--no-progress"], { reject: false, env: process.env });
        let clog = "";
        c.stderr!.on("data", (b: Buffer) => void (clog += b.toString()));
        let exited = false;
        void c.then(() => void (exited = true));
        // Faults hit processes that are up: a process started while Redis is down says so and exits 69 at once (a
        // wrong URL is told at once), so each fault waits for the coordinator's plan and every worker's "waiting".
        const up = async (): Promise<void> => {
            while (!exited && !(/ shards on /.test(clog) && workers.every((w) => w.killed || /waiting for shards/.test(w.log())))) await sleep(100);
        };
        // The faults, each at a random moment in the first part of the study (a study under this load takes tens of seconds).
        const faults = [...Array.from({ length: o.workerKills }, () => "worker"), ...Array.from({ length: o.redisKills }, () => "redis")].map((kind) => ({ kind, at: 2000 + o.random() * 25_000 })).sort((a, b) => a.at - b.at);
        for (const f of faults) {
            while (!exited && Date.now() - started < f.at) await sleep(100);
            await up();
            if (exited) break;
            if (f.kind === "worker") {
                const alive = workers.filter((w) => w.exitCode === null && !w.killed);
                const victim = alive[Math.floor(o.random() * alive.length)];
                if (!victim) continue;
                victim.kill("SIGKILL");
                workerKills++;
                worker(`w${workers.length + 1}`);
            } else {
                redis.signal("SIGKILL");
                await redis.stop();
                redisKills++;
                await sleep(500 + o.random() * 3000);
                redis = await startRedis("eddy-chaos", port);
            }
            await up();
        }
        const timedOut = await Promise.race([c.then(() => false), sleep(o.patienceMs).then(() => true)]);
        if (timedOut) c.kill("SIGKILL");
        const r = await c;
        // The workers still running are stopped as a lab stops them, and say how long their loop was ever held.
        // A worker started just before the end may not be listening for signals yet (a SIGTERM then ends it
        // at once, with nothing to hand back and no figures): each is given time to say it is waiting, or to exit.
        const listening = (w: (typeof workers)[number]): boolean => /waiting for shards/.test(w.log());
        for (const w of workers.filter((x) => !x.killed)) {
            const until = Date.now() + 60_000;
            while (w.exitCode === null && !listening(w) && Date.now() < until) await sleep(100);
        }
        const survivors = workers.filter((w) => !w.killed && w.exitCode === null && listening(w));
        for (const w of survivors) w.kill("SIGTERM");
        await Promise.all(survivors.map((w) => Promise.race([w, sleep(30_000)])));
        const longestHoldsMs = survivors.map((w) => Number(/longest event-loop hold: (\d+) ms/.exec(w.log())?.[1] ?? NaN));
        const logs = [clog, ...workers.map((w) => w.log())];
        // A bad line: one of BAD's, or one a stack trace follows.
        const badLines = logs.flatMap((l) => l.split("\n").filter((line, i, all) => BAD.test(line) || /^\s+at /.test(all[i + 1] ?? "")));
        return { exitCode: r.exitCode, timedOut, seconds: (Date.now() - started) / 1000, workerKills, redisKills, longestHoldsMs, badLines, coordinatorLog: clog, workerLogs: workers.map((w) => w.log()) };
    } finally {
        for (const w of workers) w.kill("SIGKILL");
        for (const b of busy) b.kill("SIGKILL");
        await redis.stop();
    }
}

/** A small seeded random source (mulberry32), so a round's faults can be replayed. */
export function seeded(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}
