/**
 * Child-process entry for token-drift measurement. It runs llama.cpp out of the orchestrator's
 * process, so a native abort (GGML_ASSERT, a corrupt file) ends this process only.
 * Protocol (execa IPC): one DriftJob in; progress messages, then one result or error message out.
 */
import { getOneMessage, sendMessage } from "execa";
import { teacherForce } from "./teacherForce.js";
import type { DriftJob, DriftWorkerMessage } from "./types.js";

async function main(): Promise<void> {
    const job = (await getOneMessage()) as unknown as DriftJob;
    const send = (m: DriftWorkerMessage): Promise<void> => sendMessage(m as never);
    try {
        const report = await teacherForce(job, (file, done, total) => void send({ type: "progress", file, done, total }));
        await send({ type: "result", report });
    } catch (err) {
        await send({ type: "error", message: err instanceof Error ? err.message : String(err) });
        process.exitCode = 1;
    }
}

await main();
