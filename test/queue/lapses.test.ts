import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { execa, type ResultPromise } from "execa";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { normalizeStudyConfig, type StudyConfig } from "../../src/run/config.js";
import { runStudy } from "../../src/run/runStudy.js";
import { runQueued } from "../../src/queue/coordinator.js";
import { parseQueueUrl } from "../../src/queue/queueUrl.js";
import { BIN, cleanTmp, countRows, tmpDir } from "../run/helpers.js";
import { TEMPLATES, exportStore, useFixedTemplates } from "../merge/studyFixture.js";
import { HAS_REDIS, startRedis } from "./redisServer.js";
import { commandLine } from "../../src/util/commandLine.js";
import { environmentIdentity } from "../../src/judge/environment.js";
import { readEnvironment } from "../../src/judge/readEnvironment.js";
import { pythonCommand } from "../../src/judge/workerScript.js";
import { unwrapMessages } from "../support/messages.js";
import { sleep, until as waitUntil, within } from "../support/waiting.js";

/**
 * The queue when things lapse rather than break: a worker whose lock runs out (stopped, or starved), a
 * judge that does not start once, a Redis that hangs, a worker of another Python, and how each is said.
 */
const PASSWORD = "eddy-lapses-pw";
const PATIENCE = 240_000;
/** The judge's interpreter for the whole suite (test/globalSetup.ts sets EDDY_PYTHON to it). */
const SUITE_PYTHON = pythonCommand();
const until = (what: () => boolean | Promise<boolean>, ms = 120_000): Promise<void> => waitUntil(what, ms);
const stored = (db: string): number => {
    try {
        return existsSync(db) ? countRows(db, "generations") : 0;
    } catch {
        return 0;
    }
};
/** A process's children that are still running (not yet exited, or exited and not reaped: state Z). */
const liveChildren = (pid: number): number[] => {
    const r = spawnSync("ps", ["-o", "pid=,stat=", "--ppid", String(pid)], { encoding: "utf8" });
    return r.stdout
        .trim()
        .split("\n")
        .filter((l) => l.trim() && !/\sZ/.test(l))
        .map((l) => Number(l.trim().split(/\s+/)[0]));
};

describe.skipIf(!HAS_REDIS)("the queue when locks, judges and Redis lapse", () => {
    let dir: string;
    let restore: () => void;
    let redis: Awaited<ReturnType<typeof startRedis>>;
    let single: string;
    let oneShard: string;
    const base = { backend: "reference", seed: 5, judgeWorkers: 1, instances: 3, rounds: 2 };
    /** Four shards, for faults that must land mid-study; one shard where one shows the same (a shard put back, a study refused, a run stopped). */
    const study = (db: string): StudyConfig => normalizeStudyConfig({ ...base, templates: TEMPLATES.join(","), temperatures: "0,0.7", db });
    const small = (db: string): StudyConfig => normalizeStudyConfig({ ...base, templates: TEMPLATES[0], temperatures: "0", db });
    const running: ResultPromise[] = [];

    const worker = (name: string, o: { env?: Record<string, string>; lockMs?: number } = {}): ResultPromise & { log: () => string } => {
        const tmp = path.join(dir, `tmp-${name}`);
        mkdirSync(tmp, { recursive: true });
        const p = execa("node", [BIN, "worker", "--queue", redis.url, "--judge-workers", "1", "--node", name, "--lock-ms", String(o.lockMs ?? 1500)], {
            reject: false,
            forceKillAfterDelay: false,
            env: { ...process.env, TMPDIR: tmp, ...o.env }
        });
        let err = "";
        p.stderr!.on("data", (b: Buffer) => void (err += b.toString()));
        running.push(p);
        return Object.assign(p, { log: () => err });
    };
    /** `study` (or `small`, with `one`) as `eddy run` flags. */
    const coordinatorArgs = (db: string, one = false): string[] =>
        ["run", "--backend", "reference", "--templates", one ? TEMPLATES[0]! : TEMPLATES.join(","), "--instances", "3", "--rounds", "2", "--temperature", one ? "0" : "0,0.7", "--seed", "5", "--judge-workers", "1", "--db", db, "--queue", redis.url, "--no-progress"];
    const coordinatorCli = (db: string, one = false): ResultPromise & { log: () => string } => {
        const p = execa("node", [BIN, ...coordinatorArgs(db, one)], { reject: false, env: process.env });
        let err = "";
        p.stderr!.on("data", (b: Buffer) => void (err += b.toString()));
        running.push(p);
        return Object.assign(p, { log: () => err });
    };
    /** A stand-in for the suite's judge interpreter (globalSetup's EDDY_PYTHON): `script` (sh) runs first, with the arguments ($PY: the interpreter); then the interpreter itself. */
    const python = (name: string, script: string): string => {
        const file = path.join(dir, name);
        writeFileSync(file, `#!/bin/sh\nPY='${SUITE_PYTHON}'\n${script}\nexec "$PY" "$@"\n`);
        chmodSync(file, 0o755);
        return file;
    };

    beforeAll(async () => {
        dir = tmpDir("eddy-queue-lapses-");
        restore = useFixedTemplates(dir);
        redis = await startRedis(PASSWORD);
        single = path.join(dir, "single.db");
        oneShard = path.join(dir, "one-shard.db");
        expect((await runStudy(study(single))).status).toBe("complete");
        expect((await runStudy(small(oneShard))).status).toBe("complete");
    });
    afterEach(async () => {
        redis.signal("SIGCONT");
        for (const p of running.splice(0)) {
            if (p.pid) for (const c of liveChildren(p.pid)) process.kill(c, "SIGKILL");
            p.kill("SIGCONT");
            p.kill("SIGKILL");
        }
        const c = new Redis(parseQueueUrl(redis.url).options);
        await c.flushall();
        c.disconnect();
    });
    afterAll(async () => {
        await redis?.stop();
        restore?.();
        cleanTmp();
    });

    it("a worker whose lock lapses mid-shard loses nothing: its finished result is stored, the shard runs once, and no BullMQ line reaches the user", async () => {
        // The judge starts a second late, so the shard cannot finish between the look below and the stop.
        const a = worker("sleepy", { env: { EDDY_PYTHON: python("slow-python", `case "$*" in *eddy_judge.worker*) sleep 1;; esac`) } });
        await until(() => /waiting for shards/.test(a.log()));
        const db = path.join(dir, "lapsed.db");
        const lines: string[] = [];
        const coordinator = runQueued(small(db), parseQueueUrl(redis.url), { log: (l) => lines.push(l) });
        // The status of the shard's run in its scratch database, once the shard's own process has made it.
        const tmp = path.join(dir, "tmp-sleepy");
        const scratchRun = (): string | undefined => {
            for (const d of readdirSync(tmp)) {
                try {
                    const s = new Database(path.join(tmp, d, "shard.db"), { readonly: true, fileMustExist: true });
                    try {
                        const status = (s.prepare("SELECT status FROM runs").get() as { status: string } | undefined)?.status;
                        if (status) return status;
                    } finally {
                        s.close();
                    }
                } catch {
                    // not made yet, or not a shard's folder
                }
            }
            return undefined;
        };
        // The worker says "running" before it forks the shard's process: stopped then, no process would run the shard.
        await until(() => /shard .*: running/.test(a.log()) && scratchRun() !== undefined);
        expect(scratchRun()).not.toBe("complete");
        // Stopped (as a starved process is) until its lock has long expired and its shard's own process is done.
        a.kill("SIGSTOP");
        await sleep(3 * 1500);
        // Its shard's process (not stopped) finishes the shard in the scratch database meanwhile.
        await until(() => scratchRun() === "complete");
        a.kill("SIGCONT");
        await within(coordinator, PATIENCE, "the coordinator");
        expect(exportStore(db)).toEqual(exportStore(oneShard));
        await sleep(500);
        const log = a.log();
        expect(log.match(/: running/g), log).toHaveLength(1); // the retry cost nothing: the shard never ran again
        expect(log).toMatch(/eddy: shard job \S+ is no longer this worker's \(its lock lapsed/);
        expect(log).not.toMatch(/Lock mismatch|Missing lock|Missing key|\n\s+at /);
        for (const line of log.trim().split("\n")) expect(line).toMatch(/^eddy: /);
    }, PATIENCE + 60_000);

    it("a judge that fails to start is tried again with a growing pause, never a refusal; the coordinator says who cannot, and when it can again", async () => {
        const counter = path.join(dir, "judge-starts");
        // The judge's first three starts fail (as one killed at its 30 s handshake on a loaded machine did): the worker's
        // look at its judge when it starts, then the first shard's twice (put back after 2 s, then 4 s: the pause grows, said once).
        const flaky = python(
            "flaky-python",
            `case "$*" in *eddy_judge.worker*) n=$(cat "${counter}" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "${counter}"; if [ $n -le 3 ]; then echo "judge worker killed by SIGKILL" >&2; exit 137; fi;; esac`
        );
        const w = worker("flaky", { env: { EDDY_PYTHON: flaky } });
        await until(() => /waiting for shards/.test(w.log()));
        const lines: string[] = [];
        const db = path.join(dir, "flaky.db");
        await within(runQueued(small(db), parseQueueUrl(redis.url), { log: (l) => lines.push(l), idleSayMs: 1000 }), PATIENCE, "the coordinator");
        expect(exportStore(db)).toEqual(exportStore(oneShard));
        expect(w.log()).not.toMatch(/refusing study/);
        expect(w.log()).toMatch(/eddy: study \S+: the judge cannot start here: .*; its shard is put back and tried again in 2 s/);
        expect(w.log()).toMatch(/eddy: study \S+: the judge starts again; running its shards/);
        expect(lines.join("\n")).toMatch(/worker flaky cannot run this study's shards for now: the judge cannot start here/);
        expect(lines.join("\n")).toMatch(/worker flaky runs this study's shards again/);
        expect(lines.join("\n")).not.toMatch(/refuses this study/);
    }, PATIENCE + 60_000);

    it("the judge's Python is part of the study: a worker with another one refuses, the coordinator says nobody can take the study and why, and each node's runtime is recorded", async () => {
        const lines: string[] = [];
        const db = path.join(dir, "runtime.db");
        const coordinator = runQueued(small(db), parseQueueUrl(redis.url), { log: (l) => lines.push(l), idleSayMs: 1000 });
        await until(() => lines.some((l) => l.startsWith("no worker can take this study now: no worker is connected to redis://127.0.0.1:")));
        // Its environment, as the judge's environment tool reports it, names another version.
        const other = worker("py312", { env: { EDDY_PYTHON: python("python-3.12", `case "$*" in *tools.environment*) "$PY" "$@" | sed 's/"version": "[^"]*"/"version": "3.12.99"/'; exit 0;; esac`) } });
        await until(() => lines.some((l) => /^no worker can take this study now: py312 refuses it \(the study's judge runs Python 3\.\d+\.\d+, this node's 3\.12\.99 /.test(l)));
        expect(other.log()).toMatch(/eddy: refusing study \S+: the study's judge runs Python 3\.\d+\.\d+, this node's 3\.12\.99 \(.*python-3\.12\): verdicts may differ/);
        const good = worker("py-same");
        await within(coordinator, PATIENCE, "the coordinator");
        expect(exportStore(db)).toEqual(exportStore(oneShard));
        expect(lines.filter((l) => l.startsWith("no worker can take this study now: py312 refuses it"))).toHaveLength(1);
        expect(lines).toContain("a worker takes this study's shards again (py-same)");
        // The judge's Python as the coordinator's machine reads it: version, implementation and packages (numpy among them where installed).
        const env = await readEnvironment(SUITE_PYTHON);
        const here = environmentIdentity(env);
        expect(here.python).toMatch(/^3\.\d+\.\d+$/);
        const iso = JSON.parse((new Database(db, { readonly: true }).prepare("SELECT isolation_json FROM runs").get() as { isolation_json: string }).isolation_json) as {
            runtime: Record<string, string>;
            python: unknown;
            workers: Record<string, { runtime: Record<string, string>; python: unknown }>;
        };
        expect(iso.runtime).toEqual(here);
        expect(iso.python).toEqual(env);
        expect(Object.keys(iso.workers)).toEqual(["py-same"]);
        expect(iso.workers["py-same"]!.runtime).toEqual(here);
        // Each worker's judge as it judged: its isolation and its environment.
        expect(iso.workers["py-same"]!.python).toEqual(env);
        good.kill("SIGTERM");
        await good;
    }, PATIENCE + 60_000);

    it("a Redis that hangs (SIGSTOP) is one 'lost' and one 'back' line from the coordinator and from the worker, and the study finishes", async () => {
        const w = worker("patient");
        const db = path.join(dir, "hung.db");
        const c = coordinatorCli(db);
        await until(() => stored(db) > 0);
        redis.signal("SIGSTOP");
        await sleep(8000);
        redis.signal("SIGCONT");
        const done = await within(c, PATIENCE, "the coordinator after a hung Redis");
        expect(done.exitCode, c.log()).toBe(0);
        expect(exportStore(db)).toEqual(exportStore(single));
        for (const log of [c.log(), w.log()]) {
            expect(log.match(/eddy: lost Redis at \S+ \(no answer in 5 s\); waiting for it to come back/g) ?? [], log).toHaveLength(1);
            expect(log.match(/eddy: Redis at \S+ is back/g) ?? [], log).toHaveLength(1);
            expect(log).not.toMatch(/Lock mismatch|Missing lock|Missing key|\n\s+at /);
        }
    }, PATIENCE + 60_000);

    it("FLUSHALL mid-study: the coordinator says the shards are lost and queued again, and finishes", async () => {
        const w = worker("flushed");
        const db = path.join(dir, "flushall.db");
        const c = coordinatorCli(db);
        await until(() => stored(db) > 0);
        const client = new Redis(parseQueueUrl(redis.url).options);
        await client.flushall();
        client.disconnect();
        const done = await within(c, PATIENCE, "the coordinator after FLUSHALL");
        expect(done.exitCode, c.log()).toBe(0);
        expect(exportStore(db)).toEqual(exportStore(single));
        expect(c.log()).toMatch(/eddy: \d+ shards? no longer in Redis \(restarted empty, flushed or evicted\?\): queued again/);
        expect(w.log()).not.toMatch(/Lock mismatch|Missing lock|Missing key|\n\s+at /);
    }, PATIENCE + 60_000);

    it("a worker stopped while idle says it ran nothing; a coordinator stopped with Ctrl-C says what it kept and exits 130", async () => {
        const w = worker("idle");
        await until(() => /waiting for shards/.test(w.log()));
        w.kill("SIGTERM");
        const r = await within(w, 30_000, "the idle worker");
        expect(r.exitCode, w.log()).toBe(0);
        expect(w.log()).toMatch(/eddy: worker stopping \(it was running no shard\)\neddy: worker stopped\n/);
        expect(w.log()).not.toMatch(/handed back/);

        const db = path.join(dir, "interrupted.db");
        const c = coordinatorCli(db, true);
        await until(() => /1 shards on /.test(c.log()));
        c.kill("SIGINT");
        const done = await within(c, 60_000, "the interrupted coordinator");
        expect(done.exitCode, c.log()).toBe(130);
        expect(c.log()).toMatch(/eddy: stopping the coordinator: stored shards are kept, queued ones stay in Redis for workers/);
        // The command that continues it: the one that was run, on a line of its own, its queue password left out.
        const m = /eddy: stopped: run \S+ kept 0 of 1 shards; the same command continues it \(with your queue's password for PASSWORD\):\n {2}(eddy .*)\n$/.exec(unwrapMessages(c.log()));
        expect(m, c.log()).not.toBe(null);
        const hint = m![1]!;
        expect(hint).toBe(commandLine([...coordinatorArgs(db, true)].map((w) => w.replace(`:${PASSWORD}@`, ":PASSWORD@"))));
        expect(hint).not.toContain(PASSWORD);
        expect(c.log()).not.toMatch(/\n\s+at /);
        // Run as printed, the password typed in where it says: the same run goes on and finishes.
        const w2 = worker("after");
        const shim = path.join(dir, "shim");
        mkdirSync(shim, { recursive: true });
        writeFileSync(path.join(shim, "eddy"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
        chmodSync(path.join(shim, "eddy"), 0o755);
        const again = await within(execa("bash", ["-c", hint.replace(":PASSWORD@", `:${PASSWORD}@`)], { reject: false, env: { ...process.env, PATH: `${shim}:${process.env.PATH ?? ""}` } }), PATIENCE, "the hint");
        expect(again.exitCode, again.stderr).toBe(0);
        expect(exportStore(db)).toEqual(exportStore(oneShard));
        w2.kill("SIGTERM");
        await w2;
    }, PATIENCE + 60_000);
});
