import { execaNode } from "execa";
import { childModule } from "../../util/childModule.js";
import { EddyError, oneLine } from "../../util/errors.js";
import type { DriftJob, DriftReport, DriftWorkerMessage } from "./types.js";

/** Hooks for a drift measurement. */
export interface DriftHooks {
    /** Called after each text of each candidate file. */
    onProgress?: (file: string, done: number, total: number) => void;
}

/**
 * Measures token drift of every candidate against the reference by teacher forcing, in a
 * child process (a native llama.cpp abort there becomes an EddyError here, never a crash).
 */
export async function measureDrift(job: DriftJob, hooks: DriftHooks = {}): Promise<DriftReport> {
    if (!Number.isInteger(job.threads) || job.threads < 1) throw new EddyError(`threads must be a positive integer, got ${job.threads}`);
    const { file, execArgv } = childModule(import.meta.url, "driftWorker");
    const child = execaNode(file, [], {
        nodeOptions: execArgv,
        ipc: true,
        serialization: "advanced",
        ipcInput: job as never,
        stdout: "ignore",
        stderr: "pipe",
        reject: false
    });
    let report: DriftReport | undefined;
    let failure: string | undefined;
    let current = job.reference;
    for await (const raw of child.getEachMessage()) {
        const msg = raw as unknown as DriftWorkerMessage;
        if (msg.type === "progress") {
            current = msg.file;
            hooks.onProgress?.(msg.file, msg.done, msg.total);
        } else if (msg.type === "result") report = msg.report;
        else failure = msg.message;
    }
    const done = await child;
    if (report) return report;
    if (failure) throw new EddyError(`token drift: ${oneLine(failure)}`);
    const how = done.signal ? `signal ${done.signal}` : `exit code ${done.exitCode}`;
    const last = String(done.stderr ?? "").trim().split("\n").filter(Boolean).slice(-1)[0] ?? "";
    throw new EddyError(`token drift worker died (${how}) while evaluating ${current}${last ? `: ${oneLine(last)}` : ""}`);
}
