import path from "node:path";
import { EddyError, isEddyError, oneLine } from "../../util/errors.js";
import type { BackendDescriptor } from "../descriptor.js";
import { createLlamaBackend, type GpuChoice } from "./LlamaBackend.js";

const stem = (file: string): string => path.basename(file).replace(/\.gguf$/i, "");

/** Labels of model files: the file's stem, with its folder (or the whole path) where stems collide. */
function uniqueLabels(paths: readonly string[]): { label: string; path: string }[] {
    const stems = paths.map(stem);
    const labels = paths.map((p, i) => (stems.filter((x) => x === stems[i]).length > 1 ? `${path.basename(path.dirname(p))}/${stems[i]}` : stems[i]!));
    // Still equal (the same stem in folders of the same name): the whole path.
    return paths.map((p, i) => ({ path: p, label: labels.filter((x) => x === labels[i]).length > 1 ? p : labels[i]! }));
}

/** A GGUF model through node-llama-cpp, in a child process. */
export const llamaDescriptor: BackendDescriptor = {
    name: "llama",
    decodes: true,
    needsSolutions: false,
    needsReplayFile: false,
    engine: "llama.cpp",
    missing: (s) => (s.models && s.models.length > 0 ? undefined : "no model given: pass --model <file.gguf> (or use --backend reference|replay)"),
    models: (s) => uniqueLabels(s.models ?? []),
    identity: (_backend, meta) => meta.model?.sha256 ?? null,
    async open(settings, model, parts) {
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
};
