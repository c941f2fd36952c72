import { EddyError, isEddyError, oneLine } from "../util/errors.js";
import type { JudgePool } from "../judge/JudgePool.js";
import type { Template } from "../templates/types.js";
import type { DecodingMode } from "../vocabulary.js";
import { createLlamaBackend, type GpuChoice } from "./llama/LlamaBackend.js";
import { ReferenceBackend } from "./reference/ReferenceBackend.js";
import type { ReplayBackend } from "./replay/ReplayBackend.js";
import type { Backend } from "./types.js";

/** The settings a backend is made from (a study's, or a command's own). */
export interface BackendSettings {
    backend: "llama" | "reference" | "replay";
    /** The answers' language (the reference backend answers in it). */
    language?: import("../languages/languages.js").Language;
    mode?: DecodingMode;
    gpu?: string;
    threads?: number;
    sequences?: number;
    batchSize?: number;
    groupSize?: number;
    groups?: number;
    contextSize?: number;
    promptFormat?: string;
    allowDownload?: boolean;
}

/** What only some backends need: the judge pool (reference), the replay file already read, the templates. */
export interface BackendParts {
    pool?: JudgePool;
    templates?: Template[];
    replay?: ReplayBackend;
    onWarning?: (line: string) => void;
}

/**
 * One backend for one model: llama (a GGUF file, in a child process), reference (the templates'
 * own solutions, through the judge pool) or replay (answers from a file). Load failures become one
 * clear EddyError line.
 */
export async function createBackend(settings: BackendSettings, model: { path?: string }, parts: BackendParts = {}): Promise<Backend> {
    if (settings.backend === "reference") {
        if (!parts.pool) throw new Error("the reference backend needs the judge pool");
        return new ReferenceBackend(parts.pool, parts.templates ?? [], settings.language ?? "python");
    }
    if (settings.backend === "replay") {
        if (!parts.replay) throw new Error("the replay backend needs its file read first");
        return parts.replay;
    }
    if (!model.path) throw new EddyError("no model file given");
    try {
        return await createLlamaBackend({
            modelPath: model.path,
            mode: settings.mode ?? "reproducible",
            ...(parts.onWarning ? { onWarning: parts.onWarning } : {}),
            ...(settings.gpu !== undefined ? { gpu: settings.gpu as GpuChoice } : {}),
            ...(settings.threads !== undefined ? { threads: settings.threads } : {}),
            ...(settings.sequences !== undefined ? { sequences: settings.sequences } : {}),
            ...(settings.batchSize !== undefined ? { batchSize: settings.batchSize } : {}),
            ...(settings.groupSize !== undefined ? { groupSize: settings.groupSize } : {}),
            ...(settings.groups !== undefined ? { groups: settings.groups } : {}),
            ...(settings.contextSize !== undefined ? { contextSize: settings.contextSize } : {}),
            ...(settings.promptFormat !== undefined ? { promptFormat: settings.promptFormat } : {}),
            ...(settings.allowDownload !== undefined ? { allowDownload: settings.allowDownload } : {})
        });
    } catch (err) {
        if (isEddyError(err)) throw err;
        throw new EddyError(`cannot load model ${model.path}: ${oneLine(err)}`);
    }
}
