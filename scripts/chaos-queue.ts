/**
 * The queue under load and faults, repeated (npm run chaos:queue [-- --rounds 10 --seed 1]): each round runs
 * the 4-shard reference study through `eddy run --queue` and two `eddy worker` processes with
 * `--lock-ms 5000`, next to 4 spinning processes per core, and kills one worker and Redis (restarted empty)
 * at random moments (see test/queue/chaos.ts). Prints one JSON object: rounds finished with every row,
 * each round's seconds and faults, and the longest event-loop hold any surviving worker reported against
 * the lock's time. Needs Debian's redis-server and a built dist/ (npm run build).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { normalizeStudyConfig } from "../src/run/config.js";
import { runStudy } from "../src/run/runStudy.js";
import { packageRoot } from "../src/util/paths.js";
import { chaosRound, seeded } from "../test/queue/chaos.js";
import { TEMPLATES, exportStore, useFixedTemplates } from "../test/merge/studyFixture.js";

const arg = (name: string, dflt: string): string => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : dflt;
};
if (spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status !== 0) {
    console.error("chaos:queue needs redis-server (apt-get install redis-server)");
    process.exit(1);
}
const rounds = Number(arg("rounds", "10"));
const seed0 = Number(arg("seed", "1"));
const lockMs = Number(arg("lock-ms", "5000"));
const dir = mkdtempSync(path.join(os.tmpdir(), "eddy-chaos-queue-"));
const restore = useFixedTemplates(dir);
const flags = ["--backend", "reference", "--templates", TEMPLATES.join(","), "--instances", "3", "--rounds", "2", "--temperature", "0,0.7", "--seed", "5", "--judge-workers", "1"];
try {
    const single = path.join(dir, "single.db");
    await runStudy(normalizeStudyConfig({ backend: "reference", templates: TEMPLATES.join(","), instances: 3, rounds: 2, temperatures: "0,0.7", seed: 5, judgeWorkers: 1, db: single }));
    const want = JSON.stringify(exportStore(single));
    const out: Record<string, unknown>[] = [];
    for (let i = 0; i < rounds; i++) {
        const seed = seed0 + i;
        const db = path.join(dir, `round-${i}.db`);
        const r = await chaosRound(db, { bin: path.join(packageRoot(), "dist/cli/bin.js"), dir, study: flags, lockMs, busyPerCore: 4, workers: 2, random: seeded(seed), workerKills: 1, redisKills: 1, patienceMs: 600_000 });
        let complete = false;
        try {
            // A round counts only when both faults happened (a study that ended first would prove nothing).
            complete = r.exitCode === 0 && r.workerKills === 1 && r.redisKills === 1 && JSON.stringify(exportStore(db)) === want;
        } catch {
            complete = false;
        }
        out.push({ seed, complete, exitCode: r.exitCode, timedOut: r.timedOut, seconds: Math.round(r.seconds), workerKills: r.workerKills, redisKills: r.redisKills, longestHoldsMs: r.longestHoldsMs, faults: r.faults, badLines: r.badLines.slice(0, 5) });
        process.stderr.write(`round ${i + 1}/${rounds}: ${complete ? "every row" : "INCOMPLETE"} in ${Math.round(r.seconds)} s\n`);
    }
    const holds = out.flatMap((r) => r.longestHoldsMs as number[]).filter(Number.isFinite);
    console.log(
        JSON.stringify(
            {
                cores: os.cpus().length,
                busyProcesses: os.cpus().length * 4,
                lockMs,
                rounds,
                finishedWithEveryRow: out.filter((r) => r.complete).length,
                roundsWithBadLines: out.filter((r) => (r.badLines as string[]).length).length,
                longestHoldMs: holds.length ? Math.max(...holds) : null,
                longestHoldVsLock: holds.length ? Math.max(...holds) / lockMs : null,
                medianSeconds: (out.map((r) => r.seconds as number).sort((a, b) => a - b)[Math.floor(out.length / 2)] ?? null),
                perRound: out
            },
            null,
            2
        )
    );
} finally {
    restore();
    rmSync(dir, { recursive: true, force: true });
}
