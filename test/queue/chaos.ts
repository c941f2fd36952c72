import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa, type ResultPromise } from "execa";
import { startRedis } from "./redisServer.js";

/**
 * One study under load and faults, as a lab's busy GPU nodes see it: `busyPerCore` spinning processes per
 * core while the study runs, workers with a short lock, and at random points of the study's progress a
 * worker killed outright in the middle of a shard (and another started) or Redis killed and started again
 * empty. Used by test/queue/load.test.ts (once, on one core) and scripts/chaos-queue.ts (as often as asked,
 * on every core, with figures).
 */
export interface ChaosOptions {
    bin: string;
    dir: string;
    /** `eddy run` flags of the study (without --db/--queue). */
    study: string[];
    lockMs: number;
    busyPerCore: number;
    /**
     * The round runs on this many of the machine's cores (Redis, the coordinator, the workers, their shards and
     * the spinning processes, pinned with taskset): as busy per core as on all of them, at that share of the
     * machine. All of them when unset, or when taskset cannot pin.
     */
    cores?: number;
    workers: number;
    /** A random source in [0, 1) (seeded by the caller, so a failing round can be told again). */
    random: () => number;
    /** How many workers to kill, and how many times to kill Redis, each at a random point of the study's progress. */
    workerKills: number;
    redisKills: number;
    /** A bound against a hang (never a speed claim). */
    patienceMs: number;
}

/** A fault as it was dealt: at which shard start (every worker's "running" lines, counted), and when (ms into the round). */
export interface ChaosFault {
    kind: "worker" | "redis";
    atStart: number;
    ms: number;
    /** The worker killed (a worker is only ever killed while its last word is that a shard is running). */
    victim?: string;
}

export interface ChaosOutcome {
    exitCode: number | undefined;
    /** The cores the round ran on, and the spinning processes beside it. */
    cores: number;
    busy: number;
    timedOut: boolean;
    seconds: number;
    /** The study's shards, as the coordinator planned them. */
    shards: number;
    workerKills: number;
    redisKills: number;
    faults: ChaosFault[];
    /** The longest event-loop hold each worker that was stopped in the end reports (ms). */
    longestHoldsMs: number[];
    /** Lines no user should see: BullMQ's raw words, stack traces, a worker warning that its loop was held. */
    badLines: string[];
    coordinatorLog: string;
    workerLogs: string[];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const BAD = /Lock mismatch|Missing lock|Missing key|Unhandled error|MaxListenersExceeded|event loop was held|stalled more than allowable/;
/** A worker's word on a shard: the last one says whether a shard is running there now (a judge that did not start puts it back). */
const SHARD_LINE = /^eddy: (?:shard .*: (running|\d+ answers in |finished before|finished meanwhile|handed back)|study .*(its shard is put back))/gm;

/** This process's CPUs, as taskset lists them (e.g. "0-3,6"), or undefined without taskset. */
function affinity(): string | undefined {
    const r = spawnSync("taskset", ["-c", "-p", String(process.pid)], { encoding: "utf8" });
    return r.status === 0 ? /: *([\d,-]+)\s*$/.exec(r.stdout)?.[1] : undefined;
}

/** Pin this process, every thread of it, and so every process it starts from now on, to these CPUs. */
function pin(list: string): boolean {
    return spawnSync("taskset", ["-a", "-c", "-p", list, String(process.pid)], { stdio: "ignore" }).status === 0;
}

export async function chaosRound(db: string, o: ChaosOptions): Promise<ChaosOutcome> {
    const mine = affinity();
    const cpus = (mine ?? "").split(",").flatMap((r) => {
        const [a, b] = r.split("-").map(Number);
        return a === undefined || Number.isNaN(a) ? [] : Array.from({ length: (b ?? a) - a + 1 }, (_, i) => a + i);
    });
    const pinned = mine !== undefined && o.cores !== undefined && o.cores < cpus.length && pin(cpus.slice(0, o.cores).join(","));
    const cores = pinned ? o.cores! : os.cpus().length;
    const busy: ChildProcess[] = [];
    const unbusy = (): void => void busy.splice(0).forEach((b) => b.kill("SIGKILL"));
    const started = Date.now();
    let redis = await startRedis("eddy-chaos").catch((err: unknown) => {
        if (pinned) pin(mine);
        throw err;
    });
    const port = redis.port;
    const workers: (ResultPromise & { log: () => string; name: string })[] = [];
    /** Called on every word a worker says (the faults are dealt on them). */
    let heard = (): void => {};
    const worker = (name: string): void => {
        const tmp = path.join(o.dir, `tmp-${name}`);
        mkdirSync(tmp, { recursive: true });
        const p = execa("node", [o.bin, "worker", "--queue", redis.url, "--judge-workers", "1", "--node", name, "--lock-ms", String(o.lockMs)], {
            reject: false,
            forceKillAfterDelay: false,
            env: { ...process.env, TMPDIR: tmp, EDDY_WORKER_STATS: "1" }
        });
        let err = "";
        p.stderr!.on("data", (b: Buffer) => {
            err += b.toString();
            heard();
        });
        workers.push(Object.assign(p, { log: () => err, name }));
    };
    const live = (): typeof workers => workers.filter((w) => w.exitCode === null && !w.killed);
    const shardWords = (w: (typeof workers)[number]): string[] => [...w.log().matchAll(SHARD_LINE)].map((m) => (m[1] ?? m[2])!);
    /** Shards begun so far, on every worker (a shard taken again counts again). */
    const starts = (): number => workers.reduce((n, w) => n + shardWords(w).filter((x) => x === "running").length, 0);
    let workerKills = 0;
    let redisKills = 0;
    const faults: ChaosFault[] = [];
    let restarting: Promise<void> | undefined;
    try {
        for (let i = 0; i < o.workers; i++) worker(`w${i + 1}`);
        // Progress lines too (no --no-progress): they are words a user sees, so they are searched for bad lines as well.
        const c = execa("node", [o.bin, "run", ...o.study, "--db", db, "--queue", redis.url], { reject: false, env: process.env });
        let clog = "";
        c.stderr!.on("data", (b: Buffer) => void (clog += b.toString()));
        let exited = false;
        // The study is over for the machine's load as soon as the coordinator has stored every row.
        const over = c.then(() => void ((exited = true), unbusy()));
        // Faults hit processes that are up: a process started while Redis is down says so and exits 69 at once (a
        // wrong URL is told at once), so the faults wait for the coordinator's plan and every worker's "waiting",
        // and a killed worker's successor starts once every fault is dealt and Redis is back.
        while (!exited && !(/ shards on /.test(clog) && workers.every((w) => /waiting for shards/.test(w.log())))) await sleep(50);
        // The machine is busy while the study runs: from its plan (shards queued, workers waiting) to its last row.
        if (!exited) for (let i = 0; i < cores * o.busyPerCore; i++) busy.push(spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }));
        const shards = Number(/ (\d+) shards on /.exec(clog)?.[1] ?? 0);
        // Each fault at a random shard start among those of shards not begun yet (a point of the study's progress,
        // whatever its size or speed), dealt the moment a worker says it: ties worker first. Each is always met
        // before the study ends: every shard begins at least once; a worker killed as its shard begins stores
        // nothing, so that shard begins again (a start more) and a later fault still comes; a Redis kill comes at
        // an earlier start than a worker kill after it, so a shard not begun then begins later, mid-shard when said.
        const begun = starts();
        const due = [...Array.from({ length: o.workerKills }, () => "worker" as const), ...Array.from({ length: o.redisKills }, () => "redis" as const)]
            .map((kind) => ({ kind, at: begun + 1 + Math.floor(o.random() * Math.max(1, shards - begun)) }))
            .sort((a, b) => a.at - b.at || (a.kind === b.kind ? 0 : a.kind === "worker" ? -1 : 1));
        let dealtAll!: () => void;
        const allDealt = new Promise<void>((r) => (dealtAll = r));
        let restartFailed: unknown;
        const deal = (): void => {
            for (let f = due[0]; f && !exited && starts() >= f.at; f = due[0]) {
                if (f.kind === "worker") {
                    // Killed in the middle of a shard: its last word is that the shard is running.
                    const mid = live().filter((w) => shardWords(w).at(-1) === "running");
                    const victim = mid[Math.floor(o.random() * mid.length)];
                    if (!victim?.kill("SIGKILL")) return;
                    workerKills++;
                    faults.push({ kind: "worker", atStart: starts(), ms: Date.now() - started, victim: victim.name });
                } else {
                    if (restarting) return; // the next once Redis is back
                    redis.signal("SIGKILL");
                    redisKills++;
                    faults.push({ kind: "redis", atStart: starts(), ms: Date.now() - started });
                    const down = redis;
                    restarting = (async () => {
                        await down.stop();
                        await sleep(500 + o.random() * 3000);
                        redis = await startRedis("eddy-chaos", port);
                    })()
                        .catch((err: unknown) => void (restartFailed = err))
                        .finally(() => {
                            restarting = undefined;
                            deal();
                        });
                }
                due.shift();
            }
            if (!due.length) dealtAll();
        };
        heard = deal;
        deal();
        await Promise.race([allDealt, over]);
        heard = () => {};
        await restarting;
        if (restartFailed) throw restartFailed;
        if (!exited) for (let i = 0; i < workerKills; i++) worker(`w${workers.length + 1}`);
        let patience: NodeJS.Timeout | undefined;
        const timedOut = await Promise.race([c.then(() => false), new Promise<boolean>((r) => (patience = setTimeout(() => r(true), o.patienceMs)))]);
        clearTimeout(patience);
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
        return { exitCode: r.exitCode, cores, busy: cores * o.busyPerCore, timedOut, seconds: (Date.now() - started) / 1000, shards, workerKills, redisKills, faults, longestHoldsMs, badLines, coordinatorLog: clog, workerLogs: workers.map((w) => w.log()) };
    } finally {
        heard = () => {};
        for (const w of workers) w.kill("SIGKILL");
        unbusy();
        await restarting;
        await redis.stop();
        if (pinned) pin(mine);
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
