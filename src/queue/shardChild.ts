import { fork } from "node:child_process";
import { childModule } from "../util/childModule.js";
import type { WorkerSettings } from "./runShard.js";
import type { ShardJob, ShardResult } from "./shardJob.js";

export interface ShardChildRequest {
    db: string;
    job: ShardJob;
    settings: WorkerSettings;
}
export type ShardChildReply = { ok: true; result: ShardResult } | { ok: false; error: string; stopped: boolean };


export interface ShardChild {
    /** The child's reply (a failure is a reply too; a child that died without one rejects). */
    done: Promise<ShardChildReply>;
    /** Ask the child to stop (it stores what it finished in its scratch database and replies). */
    stop(): void;
    /** End it now. */
    kill(): void;
}

/**
 * Run a shard in a process of its own (see shardProcess.ts), so that whatever the shard does (planning,
 * judging, SQLite writes, a llama.cpp step) never holds the worker's event loop, which renews the shard's lock.
 */
export function runShardChild(req: ShardChildRequest): ShardChild {
    // The child's entry: compiled JavaScript beside this file, or the TypeScript source under tsx (tests).
    const { file, execArgv } = childModule(import.meta.url, "shardProcess");
    const child = fork(file, [], {
        execArgv,
        stdio: ["ignore", "ignore", "inherit", "ipc"],
        serialization: "advanced"
    });
    let reply: ShardChildReply | undefined;
    const done = new Promise<ShardChildReply>((resolve, reject) => {
        child.once("message", (m: ShardChildReply) => (reply = m));
        child.once("error", reject);
        child.once("exit", (code, signal) => (reply ? resolve(reply) : reject(new Error(`the shard's process ended without a result (${signal ?? `exit ${code}`})`))));
    });
    child.send(req);
    return {
        done,
        stop: () => void (child.exitCode === null && child.kill("SIGTERM")),
        kill: () => void (child.exitCode === null && child.kill("SIGKILL"))
    };
}
