import type { Command } from "commander";
import { parseQueueUrl } from "../../queue/queueUrl.js";
import { intSetting } from "../../util/settings.js";
import { safeTerminalLine } from "../../util/safeText.js";
import { templateLibrary } from "../templateLibrary.js";
import { BACKEND_OPERATIONAL_OPTIONS } from "../../inference/backends.js";
import { backendFlagValues } from "./studyOptions.js";
import { parseStudySettings } from "../../run/config.js";

/** `eddy worker`: run shards from a BullMQ queue on this node until stopped. */
export function registerWorkerCommand(program: Command): void {
    const cmd = program
        .command("worker")
        .description("Run study shards from a Redis queue (BullMQ) on this node, until interrupted")
        .requiredOption("--queue <url>", "redis://[:password@]host:6379[/db], or rediss:// for TLS")
        .option("--insecure-queue", "allow a Redis beyond this machine without a password")
        .option("--judge-workers <n>", "judge processes")
        .option("--threads <n>", "inference threads")
        .option("--allow-unsandboxed", "let the judge run candidate code without a sandbox where none can be had")
        .option("--node <name>", "this node's name in the coordinator's progress (default host:pid)")
        .option("--lock-ms <ms>", "how long a dead worker holds a shard before another takes it", "30000")
        .addHelpText("after", "\nExamples:\n  $ eddy worker --queue redis://:s3cret@lab-redis:6379 --judge-workers 8\n  $ eddy worker --queue rediss://:s3cret@lab-redis:6380 --gpu cuda");
    // This node's own operational settings of each backend (--gpu, --base-url of a server beside it, …), as their descriptors declare them.
    for (const o of BACKEND_OPERATIONAL_OPTIONS) cmd.option(o.flags, `${o.description} (this node's)`);
    cmd.action(async (o: { queue: string; insecureQueue?: boolean; judgeWorkers?: string; threads?: string; allowUnsandboxed?: boolean; node?: string; lockMs: string; [backendFlag: string]: unknown }) => {
        const target = parseQueueUrl(o.queue, { insecure: o.insecureQueue });
        // Checked now: a bad value is one line at start, not a refusal of every shard.
        const backendSettings = backendFlagValues(o);
        parseStudySettings(backendSettings);
        const log = (line: string): void => void process.stderr.write(`eddy: ${safeTerminalLine(line)}\n`);
        // bullmq and ioredis load only for the command that needs them (as `run --queue` does).
        const { startWorker } = await import("../../queue/worker.js");
        const w = await startWorker(target, {
            node: o.node,
            judgeWorkers: o.judgeWorkers === undefined ? undefined : intSetting("judge workers", o.judgeWorkers, 1),
            threads: o.threads === undefined ? undefined : intSetting("threads", o.threads, 1),
            backendSettings,
            allowUnsandboxed: o.allowUnsandboxed,
            library: templateLibrary(),
            lockMs: intSetting("lock ms", o.lockMs, 100),
            log
        });
        await new Promise<void>((resolve, reject) => {
            let stopping = false;
            // The first signal hands a running shard back to the queue and exits 0; a second one quits at once.
            const stop = (): void => {
                if (stopping) process.exit(130);
                stopping = true;
                log(w.busy() ? "worker stopping: its running shard is handed back to the queue" : "worker stopping (it was running no shard)");
                w.stop().then(() => {
                    log("worker stopped");
                    if (process.env.EDDY_WORKER_STATS === "1") log(`longest event-loop hold: ${w.longestBlockMs()} ms`);
                    resolve();
                }, reject);
            };
            process.on("SIGINT", stop);
            process.on("SIGTERM", stop);
            // Said once the signals are heard: a signal sent on seeing this line is always handled.
            log(`worker waiting for shards on ${target.where}`);
        });
    });
}
