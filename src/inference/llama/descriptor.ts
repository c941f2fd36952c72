import { existsSync } from "node:fs";
import path from "node:path";
import { isStopped } from "../../util/abort.js";
import { EddyError, isEddyError, oneLine } from "../../util/errors.js";
import { boolField, field, intField, intSetting } from "../../util/settings.js";
import type { BackendDescriptor } from "../descriptor.js";
import { isRemoteModel } from "../modelUri.js";
import { createLlamaBackend, type GpuChoice } from "./LlamaBackend.js";
import { GPU_CHOICES } from "./types.js";
import { forcingGpu } from "./gpuChoice.js";
import { KV_CACHE_TYPES, kvCacheLabel, kvCacheSetting, kvCacheTypes } from "./kvCache.js";

const stem = (file: string): string => path.basename(file).replace(/\.gguf$/i, "");

/** Labels of model files: the file's stem, with its folder (or the whole path) where stems collide. */
function uniqueLabels(paths: readonly string[]): { label: string; path: string }[] {
    const stems = paths.map(stem);
    const labels = paths.map((p, i) => (stems.filter((x) => x === stems[i]).length > 1 ? `${path.basename(path.dirname(p))}/${stems[i]}` : stems[i]!));
    // Still equal (the same stem in folders of the same name): the whole path.
    return paths.map((p, i) => ({ path: p, label: labels.filter((x) => x === labels[i]).length > 1 ? p : labels[i]! }));
}

/** Settings only the llama backend reads: how fast, never what (operational: taken fresh on resume). */
const llamaSettings = {
    identity: {
        /**
         * KV-cache type of every context (keys and values): changes the arithmetic, so part of the run's identity.
         * Several types are an axis: every model once per type, each a configuration (see `modelSources`).
         */
        kvCache: field((v) => kvCacheSetting(v)).optional()
    },
    operational: {
        /** Let an `hf:` model URI be downloaded (never by default). */
        allowDownload: boolField.optional(),
        sequences: intField("sequences", 1).optional(),
        /** Lockstep groups decoded at once (one context each). */
        groups: intField("groups", 1).optional(),
        batchSize: intField("batch size", 1).optional(),
        gpu: field((v) => {
            if (!(GPU_CHOICES as readonly string[]).includes(String(v))) throw new EddyError(`--gpu must be one of ${GPU_CHOICES.join(", ")} (got '${String(v)}')`);
            return String(v);
        }).optional(),
        /** Layers offloaded to the GPU: a count, or "max" (default: node-llama-cpp's choice). */
        gpuLayers: field((v): number | "max" => (v === "max" ? "max" : intSetting("--gpu-layers", v, 0))).optional()
    }
};

/** The settings this backend owns (declared in `settings` above), as the study schema has parsed them. */
interface LlamaSettings {
    kvCache?: string | string[];
    allowDownload?: boolean;
    sequences?: number;
    groups?: number;
    batchSize?: number;
    gpu?: string;
    gpuLayers?: number | "max";
}
const own = (settings: object): LlamaSettings => settings as LlamaSettings;

/** The one KV-cache type a context is made with: a list reaches a backend only through a study's model sources, one type each. */
function oneKvCache(kv: string | string[]): string {
    const types = kvCacheTypes(kv);
    if (types.length !== 1) throw new EddyError(`--kv-cache takes one type here (got ${types.join(",")}); several are a study's axis, in eddy run and eddy quant`);
    return types[0]!;
}

/** A GGUF model through node-llama-cpp, in a child process. */
export const llamaDescriptor = {
    name: "llama",
    summary: "a GGUF model file run in-process by node-llama-cpp (--model <file.gguf>)",
    models: "file",
    runsModel: true,
    needsSolutions: false,
    engine: "llama.cpp",
    records: ["the model file's sha256, size, architecture, quantisation and chat template", "llama.cpp release and node-llama-cpp version", "GPU, threads, sequences, context and batch size", "the decoding mode and lockstep group size"],
    settings: llamaSettings,
    options: [
        { key: "groups", flags: "--groups <n>", description: "lockstep groups decoded at once (default: chosen from memory and cores); results do not depend on it" },
        { key: "sequences", flags: "--sequences <n>", description: "parallel sequences with --group-size 1 or --fast (default: chosen from memory, model size and cores)" },
        {
            key: "kvCache",
            flags: "--kv-cache <type[,type...]>",
            description: `KV-cache type of keys and values: ${KV_CACHE_TYPES.join(", ")} (default llama.cpp's f16; with a type, flash attention is on); part of the run's identity. Several (f16,q8_0,q4_0): every model once per type, each a configuration labelled <model>@kv=<type>`
        },
        { key: "batchSize", flags: "--batch-size <n>", description: "prompt chunk size in tokens (default 512); keep it when comparing runs" },
        { key: "allowDownload", flags: "--allow-download", description: "let an hf: model URI be downloaded (eddy never touches the network otherwise)" },
        { key: "gpu", flags: "--gpu <kind>", description: `GPU backend: ${GPU_CHOICES.join(" | ")} (default auto)` },
        { key: "gpuLayers", flags: "--gpu-layers <n>", description: "layers to offload to the GPU (a number or max; default: as many as fit)" }
    ],
    // Reproducible: fixed lockstep groups; fast: sequences scheduled freely in one shared context.
    scheduling: (mode) => (mode === "reproducible" ? "lockstep" : "free"),
    // Lockstep groups decoded at once; with one context per query, or in the fast mode, sequences.
    parallelSetting: (mode, groupSize) => (mode === "reproducible" && (groupSize ?? 2) > 1 ? "groups" : "sequences"),
    resolveModel: (m, baseDir) => (isRemoteModel(m) ? m : path.resolve(baseDir, m)),
    missing: (s) => (s.models && s.models.length > 0 ? undefined : "no model given: pass --model <file.gguf> (or use --backend reference|replay|server)"),
    checkSources(s) {
        for (const m of s.models) {
            if (isRemoteModel(m) && !own(s).allowDownload) throw new EddyError(`${m} is a remote model; eddy downloads nothing unless you pass --allow-download (or give a local GGUF file)`);
            if (!isRemoteModel(m) && !existsSync(m)) throw new EddyError(`model file not found: ${m}`);
        }
    },
    sourceGone: (model) => (model.path && !isRemoteModel(model.path) && !existsSync(model.path) ? `model file not found: ${model.path}` : undefined),
    readSources: () => ({ parts: {} }),
    // Several KV-cache types: every file once per type (file by file), the type in the label and in the settings it runs with.
    modelSources: (s) => {
        const files = uniqueLabels(s.models ?? []);
        const kvs = kvCacheTypes(own(s).kvCache);
        return kvs.length < 2 ? files : files.flatMap((f) => kvs.map((kv) => ({ ...f, label: kvCacheLabel(f.label, kv), settings: { kvCache: kv } })));
    },
    identity: (_backend, meta) => meta.model?.sha256 ?? null,
    describe: (meta) => `model: ${meta.model?.architecture} ${meta.model?.quantization}, ${meta.gpu}, ${meta.threads} threads, prompt format ${meta.promptFormat}`,
    // A response depends on the file, how prompts are rendered and fit, and the mode.
    cacheIdentity: (meta) =>
        meta.model?.sha256
            ? { sha256: meta.model.sha256, promptFormat: meta.promptFormat, contextSize: meta.contextSize, mode: meta.mode, batchSize: meta.batchSize, ...(typeof meta.kvCache === "string" ? { kvCache: meta.kvCache } : {}) }
            : undefined,
    teacherForcing: {
        options: (settings, recorded) => {
            const kv = own(settings).kvCache;
            return { gpu: forcingGpu(own(settings).gpu, recorded.gpu), ...(kv ? { kvCache: oneKvCache(kv) } : {}) };
        },
        run: async (job, comparer, onProgress) => (await import("./teacherForce.js")).teacherForce(job, comparer, onProgress)
    },
    demo: async () => {
        const { ensureTinyModels } = await import("../gguf/tinyModel.js");
        return {
            settings: { backend: "llama", models: [ensureTinyModels().f32], temperatures: [0], contextSize: 1024 },
            explains: "The tiny model has random weights: it never writes code and never stops by itself, so its answers are cut off at max tokens and recorded as `truncated` (a harness outcome, left out of the scores: –)."
        };
    },
    checkMachine: async () => (await import("./machineCheck.js")).checkLlamaMachine(),
    async open(settings, model, parts) {
        if (!model.path) throw new EddyError("no model file given");
        const { gpu, gpuLayers, sequences, batchSize, groups, allowDownload, kvCache } = own(settings);
        try {
            return await createLlamaBackend({
                modelPath: model.path,
                mode: settings.mode ?? "reproducible",
                ...(parts.onWarning ? { onWarning: parts.onWarning } : {}),
                ...(parts.signal ? { signal: parts.signal } : {}),
                ...(gpu !== undefined ? { gpu: gpu as GpuChoice } : {}),
                ...(settings.threads !== undefined ? { threads: settings.threads } : {}),
                ...(gpuLayers !== undefined ? { gpuLayers } : {}),
                ...(sequences !== undefined ? { sequences } : {}),
                ...(batchSize !== undefined ? { batchSize } : {}),
                ...(kvCache !== undefined ? { kvCache: oneKvCache(kvCache) } : {}),
                ...(settings.groupSize !== undefined ? { groupSize: settings.groupSize } : {}),
                ...(groups !== undefined ? { groups } : {}),
                ...(settings.contextSize !== undefined ? { contextSize: settings.contextSize } : {}),
                ...(settings.promptFormat !== undefined ? { promptFormat: settings.promptFormat } : {}),
                ...(allowDownload !== undefined ? { allowDownload } : {})
            });
        } catch (err) {
            if (isEddyError(err) || isStopped(err)) throw err;
            throw new EddyError(`cannot load model ${model.path}: ${oneLine(err)}`);
        }
    }
} as const satisfies BackendDescriptor;
