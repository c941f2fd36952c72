/**
 * Child-process entry for token-drift measurement. It runs llama.cpp out of the orchestrator's
 * process, so a native abort (GGML_ASSERT, a corrupt file) ends this process only.
 * Protocol (execa IPC): one DriftJob in; progress messages, then one result or error message out.
 */
import { getOneMessage, sendMessage } from "execa";
import { backendDescriptor, teacherForcingBackend } from "../../inference/backends.js";
import { argmax, klDivergence, logSoftmax } from "./divergence.js";
import { DriftAccumulator } from "./DriftAccumulator.js";
import type { DriftJob, DriftSummary, DriftWorkerMessage } from "./types.js";

/** KL(reference ‖ candidate) and top-1 agreement at each position the backend's teacher forcing hands over. */
function driftComparer(): { add(r: Float64Array, c: Float64Array): void; summary(): DriftSummary } {
    const acc = new DriftAccumulator();
    return { add: (r, c) => acc.add(klDivergence(logSoftmax(r), logSoftmax(c)), argmax(r) === argmax(c)), summary: () => acc.summary() };
}

async function main(): Promise<void> {
    const job = (await getOneMessage()) as unknown as DriftJob;
    const send = (m: DriftWorkerMessage): Promise<void> => sendMessage(m as never);
    try {
        const forcing = job.backend ? backendDescriptor(job.backend).teacherForcing : teacherForcingBackend().forcing;
        if (!forcing) throw new Error(`--backend ${job.backend} cannot teacher-force model files`);
        const report = await forcing.run(job, driftComparer, (file, done, total) => void send({ type: "progress", file, done, total }));
        await send({ type: "result", report });
    } catch (err) {
        await send({ type: "error", message: err instanceof Error ? err.message : String(err) });
        process.exitCode = 1;
    }
}

await main();
