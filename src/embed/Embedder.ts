import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { EddyError, oneLine } from "../util/errors.js";

/** Options of Embedder.load. */
export interface EmbedderOptions {
    /** Sentences per forward pass (default 32). */
    batchSize?: number;
    /** onnxruntime intra-op threads (default 1: the machines eddy targets are small and shared). */
    threads?: number;
}

/** What a model folder holds, found before transformers.js is asked to load it. */
export interface EmbedModelInfo {
    dir: string;
    modelType: string;
    hiddenSize?: number;
    /** onnx/model.onnx → fp32; onnx/model_quantized.onnx → q8. */
    dtype: "fp32" | "q8";
    onnxFile: string;
}

type FeatureExtractor = (texts: string[], opts: { pooling: "mean"; normalize: boolean }) => Promise<{ tolist(): number[][]; dispose?: () => void }>;

/**
 * Check a Hugging Face model folder without loading it: config.json, tokenizer.json and an ONNX
 * file under onnx/. Every problem is a one-line EddyError naming the folder.
 */
export function inspectEmbedModel(dir: string): EmbedModelInfo {
    const abs = path.resolve(dir);
    if (!existsSync(abs) || !statSync(abs).isDirectory())
        throw new EddyError(`embedding model folder ${abs} does not exist (give a folder in the Hugging Face layout: config.json, tokenizer.json, onnx/model.onnx)`);
    const need = (f: string) => {
        if (!existsSync(path.join(abs, f))) throw new EddyError(`embedding model folder ${abs} has no ${f}`);
    };
    need("config.json");
    let config: Record<string, unknown>;
    try {
        config = JSON.parse(readFileSync(path.join(abs, "config.json"), "utf8"));
    } catch (err) {
        throw new EddyError(`embedding model folder ${abs}: config.json is not valid JSON (${oneLine(err)})`);
    }
    if (!config || typeof config !== "object" || typeof config.model_type !== "string")
        throw new EddyError(`embedding model folder ${abs}: config.json has no model_type`);
    need("tokenizer.json");
    try {
        JSON.parse(readFileSync(path.join(abs, "tokenizer.json"), "utf8"));
    } catch (err) {
        throw new EddyError(`embedding model folder ${abs}: tokenizer.json is not valid JSON (${oneLine(err)})`);
    }
    const fp32 = path.join(abs, "onnx", "model.onnx");
    const q8 = path.join(abs, "onnx", "model_quantized.onnx");
    const onnxFile = existsSync(fp32) ? fp32 : existsSync(q8) ? q8 : undefined;
    if (!onnxFile) throw new EddyError(`embedding model folder ${abs} has no onnx/model.onnx or onnx/model_quantized.onnx (eddy never downloads weights)`);
    return {
        dir: abs,
        modelType: config.model_type,
        ...(typeof config.hidden_size === "number" ? { hiddenSize: config.hidden_size } : {}),
        dtype: onnxFile === fp32 ? "fp32" : "q8",
        onnxFile
    };
}

/**
 * Sentence embeddings computed locally with transformers.js on onnxruntime-node: the
 * feature-extraction pipeline with mean pooling over the attention mask and L2 normalisation.
 * Remote loading is off; the model is a folder the user names.
 */
export class Embedder {
    private constructor(
        readonly info: EmbedModelInfo,
        private readonly extract: FeatureExtractor & { dispose?: () => Promise<void> },
        readonly batchSize: number
    ) {}

    static async load(dir: string, opts: EmbedderOptions = {}): Promise<Embedder> {
        const info = inspectEmbedModel(dir);
        const batchSize = opts.batchSize ?? 32;
        if (!Number.isInteger(batchSize) || batchSize < 1) throw new EddyError(`embedding batch size must be a positive integer (got ${batchSize})`);
        // Loaded lazily: onnxruntime's native binding is only needed by the commands that embed.
        const { env, pipeline } = await import("@huggingface/transformers");
        env.allowRemoteModels = false;
        env.allowLocalModels = true;
        env.useFSCache = false;
        env.localModelPath = path.dirname(info.dir) + path.sep;
        let extract: unknown;
        try {
            extract = await pipeline("feature-extraction", path.basename(info.dir), {
                dtype: info.dtype,
                device: "cpu",
                session_options: { intraOpNumThreads: opts.threads ?? 1, interOpNumThreads: 1 }
            } as never);
        } catch (err) {
            throw new EddyError(`cannot load embedding model ${info.dir}: ${oneLine(err).slice(0, 300)}`);
        }
        return new Embedder(info, extract as FeatureExtractor & { dispose?: () => Promise<void> }, batchSize);
    }

    /** Unit-length embeddings of the texts, in order, computed batchSize at a time. */
    async embed(texts: string[], batchSize = this.batchSize): Promise<number[][]> {
        const out: number[][] = [];
        for (let i = 0; i < texts.length; i += batchSize) {
            const batch = texts.slice(i, i + batchSize).map((t) => (t === "" ? " " : t));
            const tensor = await this.extract(batch, { pooling: "mean", normalize: true });
            out.push(...tensor.tolist());
            tensor.dispose?.();
        }
        return out;
    }

    /** Cosine similarity of two texts. */
    async similarity(a: string, b: string): Promise<number> {
        const [x, y] = await this.embed([a, b]);
        return cosine(x!, y!);
    }

    async close(): Promise<void> {
        await this.extract.dispose?.();
    }
}

/** Cosine similarity of two vectors (0 when either is all zeros). */
export function cosine(a: readonly number[], b: readonly number[]): number {
    if (a.length !== b.length) throw new Error(`cosine: lengths differ (${a.length} vs ${b.length})`);
    let dot = 0, na = 0, nb = 0;
    for (let i = 0; i < a.length; i++) {
        dot += a[i]! * b[i]!;
        na += a[i]! * a[i]!;
        nb += b[i]! * b[i]!;
    }
    return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
