/**
 * Benchmark of the shard queue (npm run bench:queue): a judge-heavy study (reference backend: the
 * reference solutions, so all time is judging) run three ways on this machine, against one real Redis:
 *   1. in-process — every shard run one after another by runShard, no queue (the baseline);
 *   2. one worker — the coordinator and one `eddy worker` process;
 *   3. two workers — the same with two.
 * Prints one JSON object: `two_workers_vs_one` = wall(one) ÷ wall(two) (goal >= 1.7 on 2 cores) and
 * `queue_overhead` = (wall(one) − in-process time) ÷ in-process time, the time the queue adds per
 * shard relative to running it in-process (goal <= 0.05). Needs Debian's redis-server.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { identityOf, normalizeStudyConfig } from "../src/run/config.js";
import { planStudy } from "../src/run/plan.js";
import { runQueued } from "../src/queue/coordinator.js";
import { parseQueueUrl } from "../src/queue/queueUrl.js";
import { runShard } from "../src/queue/runShard.js";
import { SHARD_JOB_VERSION } from "../src/queue/shardJob.js";
import { questionsHash, shardPrompts } from "../src/queue/identity.js";
import { eddyVersion, packageRoot } from "../src/util/paths.js";
import { builtInLibrary } from "../src/templates/library.js";

const arg = (name: string, dflt: string): string => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : dflt;
};
if (spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status !== 0) {
    console.error("bench:queue needs redis-server (apt-get install redis-server)");
    process.exit(1);
}

const dir = mkdtempSync(path.join(os.tmpdir(), "eddy-bench-queue-"));
const BIN = path.join(packageRoot(), "dist/cli/bin.js");
const raw = {
    backend: "reference",
    templates: arg("templates", "list_every_kth,math_count_coprime,set_add_range,string_insert_separator"),
    instances: arg("instances", "10"),
    rounds: arg("rounds", "2"),
    temperatures: "0,0.7",
    seed: 11,
    judgeWorkers: 1
};

async function freePort(): Promise<number> {
    return new Promise((resolve) => {
        const s = net.createServer().listen(0, "127.0.0.1", () => {
            const p = (s.address() as net.AddressInfo).port;
            s.close(() => resolve(p));
        });
    });
}

async function startRedis(): Promise<{ url: string; proc: ChildProcess }> {
    const port = await freePort();
    const proc = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no", "--requirepass", "bench"], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve) => proc.stdout!.on("data", (d: Buffer) => /Ready to accept/.test(d.toString()) && resolve()));
    return { url: `redis://:bench@127.0.0.1:${port}`, proc };
}

async function workers(n: number, url: string): Promise<ChildProcess[]> {
    const out: ChildProcess[] = [];
    for (let i = 0; i < n; i++) {
        const p = spawn("node", [BIN, "worker", "--queue", url, "--judge-workers", "1", "--node", `w${i}`], { stdio: ["ignore", "ignore", "pipe"] });
        await new Promise<void>((resolve) => p.stderr!.on("data", (d: Buffer) => /waiting for shards/.test(d.toString()) && resolve()));
        out.push(p);
    }
    return out;
}

const redis = await startRedis();
try {
    // 1. In-process: the same shards, no queue.
    const config = normalizeStudyConfig({ ...raw, db: path.join(dir, "plan.db") });
    const plan = planStudy(config, builtInLibrary());
    const study = identityOf(config);
    const shards = plan.templates.flatMap((t) => config.temperatures.map((temperature) => ({ model: "reference", modelPath: null, template: t.id, temperature, wrapper: "default", wrapperSource: "default" })));
    const identity = (template: string) => {
        const t = plan.templates.find((x) => x.id === template)!;
        return { eddyVersion: eddyVersion(), modelSha256: null, oracleHash: t.oracleHash, questionsHash: questionsHash(shardPrompts(plan, template, 0)), judgeModes: ["bwrap" as const], judgeRuntime: null };
    };
    const t0 = performance.now();
    for (const shard of shards) await runShard({ v: SHARD_JOB_VERSION, runId: "bench", identity: identity(shard.template), study, shard }, { node: "in-process", judgeWorkers: 1 });
    const inProcess = performance.now() - t0;

    const queued = async (n: number): Promise<number> => {
        const ws = await workers(n, redis.url);
        try {
            const t = performance.now();
            await runQueued(normalizeStudyConfig({ ...raw, db: path.join(dir, `w${n}.db`) }), parseQueueUrl(redis.url));
            return performance.now() - t;
        } finally {
            for (const w of ws) w.kill("SIGTERM");
        }
    };
    const one = await queued(1);
    const two = await queued(2);
    console.log(
        JSON.stringify(
            {
                shards: shards.length,
                answers: shards.length * config.instances * config.rounds,
                in_process_ms: Math.round(inProcess),
                one_worker_ms: Math.round(one),
                two_workers_ms: Math.round(two),
                two_workers_vs_one: +(one / two).toFixed(3),
                queue_overhead: +((one - inProcess) / inProcess).toFixed(3),
                per_shard_overhead_ms: Math.round((one - inProcess) / shards.length),
                cpus: os.cpus().length
            },
            null,
            2
        )
    );
} finally {
    redis.proc.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
}
