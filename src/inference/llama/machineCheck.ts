import { oneLine } from "../../util/errors.js";
import type { MachineCheck } from "../descriptor.js";

/**
 * What node-llama-cpp finds here, for `eddy doctor`: the GPU backends it has binaries for, what `--gpu auto`
 * picks and the thread choice, measured by loading eddy's tiny model through the real backend (in its
 * child process, so a crash cannot take the doctor with it).
 */
export async function checkLlamaMachine(): Promise<MachineCheck> {
    const problems: string[] = [];
    const report: {
        gpuBackendsFound: string[];
        gpuWouldUse: string;
        devices: string[];
        llamaCppRelease?: string;
        nodeLlamaCppVersion?: string;
        threads?: { chosen: number; trials: { threads: number; tokensPerSecond: number }[] };
    } = { gpuBackendsFound: [], gpuWouldUse: "cpu", devices: [] };
    try {
        const { getLlamaGpuTypes } = await import("node-llama-cpp");
        report.gpuBackendsFound = (await getLlamaGpuTypes("supported")).filter((g): g is Exclude<typeof g, false> => g !== false);
    } catch (err) {
        problems.push(`cannot list GPU backends: ${oneLine(err)}`);
    }
    try {
        const { ensureTinyModels } = await import("../gguf/tinyModel.js");
        const { createLlamaBackend } = await import("./LlamaBackend.js");
        const backend = await createLlamaBackend({ modelPath: ensureTinyModels().f32, gpu: "auto", sequences: 1, onWarning: () => {} });
        const meta = await backend.metadata();
        await backend.close();
        report.gpuWouldUse = String(meta.gpu ?? "cpu");
        report.devices = meta.devices ?? [];
        if (meta.llamaCppRelease) report.llamaCppRelease = meta.llamaCppRelease;
        if (meta.nodeLlamaCppVersion) report.nodeLlamaCppVersion = meta.nodeLlamaCppVersion;
        const trials = meta.threadTrials as { threads: number; tokensPerSecond: number }[] | undefined;
        if (meta.threads !== undefined) report.threads = { chosen: meta.threads, trials: trials ?? [] };
    } catch (err) {
        problems.push(`llama.cpp check failed: ${oneLine(err)}`);
    }
    const lines: [string, string][] = [
        ["GPU backends", report.gpuBackendsFound.length ? report.gpuBackendsFound.join(", ") : "none (CPU only)"],
        ["would use", report.gpuWouldUse + (report.devices.length ? ` (${report.devices.join(", ")})` : "")],
        ["llama.cpp", `${report.llamaCppRelease ?? "?"} via node-llama-cpp ${report.nodeLlamaCppVersion ?? "?"}`],
        ["threads", report.threads ? `${report.threads.chosen} (measured: ${report.threads.trials.map((t) => `${t.threads}→${Math.round(t.tokensPerSecond)} tok/s`).join(", ")})` : "?"]
    ];
    return { report, lines, problems };
}
