import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { modelsDir } from "../../util/paths.js";
import { GgmlTensorType, type GgufTensor, type GgufValue, writeGguf } from "./GgufWriter.js";
import { QK, quantizeQ4_0, quantizeQ8_0 } from "./quantize.js";

/** The three variants eddy writes. */
export type TinyQuant = "f32" | "q8_0" | "q4_0";

/** Shape of eddy's tiny llama. */
export const TINY_SHAPE = { dim: 64, layers: 2, heads: 4, kvHeads: 2, ff: 172, context: 2048 } as const;

/** A llama's shape: width, layers, attention heads, feed-forward width, trained context. */
export type LlamaShape = { [K in keyof typeof TINY_SHAPE]: number };

/** Knobs for tests that need a variant (a chat template, a deliberately broken tensor). */
export interface TinyLlamaOptions {
    quant: TinyQuant;
    /** Written as tokenizer.chat_template when given (the shipped tiny models have none, like base models). */
    chatTemplate?: string;
    /** Replace one tensor's declared shape (data resized to match) to craft a file llama.cpp rejects. */
    overrideDims?: { tensor: string; dims: number[] };
    /** Override metadata values (e.g. a head count that does not divide the width). */
    overrideMetadata?: Record<string, GgufValue>;
    /** Another shape (a larger random model for benchmarks, where batching shows); default TINY_SHAPE. */
    shape?: LlamaShape;
    /** Model name (general.name); default eddy-tiny-<quant>. */
    name?: string;
}

const SPECIALS = ["<unk>", "<s>", "</s>"] as const;
const UNK = 0, BOS = 1, EOS = 2;
const TOKEN_TYPE = { normal: 1, unknown: 2, control: 3, byte: 6 } as const;

/**
 * The vocabulary: <unk> <s> </s>, the 256 byte tokens <0x00>…<0xFF> (SentencePiece byte fallback,
 * so any text tokenizes), then "▁" and the printable ASCII characters as normal pieces.
 */
function vocabulary(): { tokens: string[]; types: number[] } {
    const tokens: string[] = [...SPECIALS];
    const types: number[] = [TOKEN_TYPE.unknown, TOKEN_TYPE.control, TOKEN_TYPE.control];
    for (let b = 0; b < 256; b++) {
        tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`);
        types.push(TOKEN_TYPE.byte);
    }
    tokens.push("\u2581");
    types.push(TOKEN_TYPE.normal);
    for (let c = 0x21; c <= 0x7e; c++) {
        tokens.push(String.fromCharCode(c));
        types.push(TOKEN_TYPE.normal);
    }
    return { tokens, types };
}

/**
 * Writes eddy's tiny llama: seeded random weights shaped so that the last token mostly decides the
 * next one (a fixed Markov map over the printable pieces, with real randomness left for sampling),
 * plus one scripted path "E" → "N" → "D" → "." → </s>, so tests can reach end-of-generation on purpose.
 * Only exact float operations are used on the random stream, so the bytes are the same on any machine.
 */
export function buildTinyLlama(opts: TinyLlamaOptions): Buffer {
    const { dim, layers, heads, kvHeads, ff, context } = opts.shape ?? TINY_SHAPE;
    const headDim = dim / heads;
    const kvDim = headDim * kvHeads;
    const { tokens, types } = vocabulary();
    const vocab = tokens.length;
    const rng = xoroshiro128plus(20240607);
    // uniform with the given standard deviation: U(-a, a) has std a/sqrt(3)
    const uniform = (std: number) => Math.fround((uniformFloat64(rng) * 2 - 1) * std * 1.7320508075688772);
    const matrix = (rows: number, cols: number, std: number) => {
        const m = new Float32Array(rows * cols);
        for (let i = 0; i < m.length; i++) m[i] = uniform(std);
        return m;
    };
    const ones = (n: number) => new Float32Array(n).fill(1);

    const embed = matrix(vocab, dim, 1);
    const piece = (s: string) => tokens.indexOf(s);
    const normal = tokens.map((_, i) => i).filter((i) => types[i] === TOKEN_TYPE.normal);
    const scripted = new Map<number, number>([[piece("E"), piece("N")], [piece("N"), piece("D")], [piece("D"), piece(".")], [piece("."), EOS]]);
    // The other printable pieces follow a seeded one-to-one map (each target has one source, so the
    // source's own term dominates its logit); byte and control tokens feed no row and follow noise.
    const sources = normal.filter((t) => !scripted.has(t));
    const targets = normal.filter((t) => ![piece("."), piece("N"), piece("D")].includes(t));
    for (let i = targets.length - 1; i > 0; i--) {
        const j = Math.floor(uniformFloat64(rng) * (i + 1));
        [targets[i], targets[j]] = [targets[j]!, targets[i]!];
    }
    const next = new Map<number, number>(scripted);
    sources.forEach((t, i) => next.set(t, targets[i]!));
    // After RMS norm h = e_t * sqrt(dim) / |e_t|, so alpha_t = 6 / (|e_t| sqrt(dim)) puts logit_next(t) at 6,
    // about 6 nats above the noise, so greedy follows the map and sampling at temperature 1 still varies.
    const output = matrix(vocab, dim, 0.02);
    for (const [t, target] of next) {
        let norm2 = 0;
        for (let k = 0; k < dim; k++) norm2 += embed[t * dim + k]! * embed[t * dim + k]!;
        const alpha = 6 / (Math.sqrt(norm2) * Math.sqrt(dim));
        for (let k = 0; k < dim; k++) output[target * dim + k] = Math.fround(output[target * dim + k]! + alpha * embed[t * dim + k]!);
    }

    const f32: { name: string; dims: number[]; values: Float32Array }[] = [
        { name: "token_embd.weight", dims: [dim, vocab], values: embed },
        { name: "output_norm.weight", dims: [dim], values: ones(dim) },
        { name: "output.weight", dims: [dim, vocab], values: output }
    ];
    for (let l = 0; l < layers; l++) {
        const p = `blk.${l}.`;
        f32.push(
            { name: p + "attn_norm.weight", dims: [dim], values: ones(dim) },
            { name: p + "attn_q.weight", dims: [dim, dim], values: matrix(dim, dim, 0.05) },
            { name: p + "attn_k.weight", dims: [dim, kvDim], values: matrix(kvDim, dim, 0.05) },
            { name: p + "attn_v.weight", dims: [dim, kvDim], values: matrix(kvDim, dim, 0.05) },
            { name: p + "attn_output.weight", dims: [dim, dim], values: matrix(dim, dim, 0.05) },
            { name: p + "ffn_norm.weight", dims: [dim], values: ones(dim) },
            { name: p + "ffn_gate.weight", dims: [dim, ff], values: matrix(ff, dim, 0.05) },
            { name: p + "ffn_up.weight", dims: [dim, ff], values: matrix(ff, dim, 0.05) },
            { name: p + "ffn_down.weight", dims: [ff, dim], values: matrix(dim, ff, 0.05) }
        );
    }

    const tensors: GgufTensor[] = f32.map(({ name, dims, values }) => {
        // Quantise 2-D tensors whose rows split into whole blocks; norms and odd rows (ffn_down, 172) stay F32.
        const quantisable = dims.length === 2 && dims[0]! % QK === 0;
        let tensor: GgufTensor;
        if (opts.quant === "q8_0" && quantisable) tensor = { name, dims, type: GgmlTensorType.Q8_0, data: quantizeQ8_0(values) };
        else if (opts.quant === "q4_0" && quantisable) tensor = { name, dims, type: GgmlTensorType.Q4_0, data: quantizeQ4_0(values) };
        else tensor = { name, dims, type: GgmlTensorType.F32, data: Buffer.from(values.buffer, values.byteOffset, values.byteLength) };
        if (opts.overrideDims?.tensor === name) {
            const count = opts.overrideDims.dims.reduce((a, b) => a * b, 1);
            tensor = { name, dims: opts.overrideDims.dims, type: GgmlTensorType.F32, data: Buffer.alloc(count * 4) };
        }
        return tensor;
    });

    const fileType = { f32: 0, q8_0: 7, q4_0: 2 }[opts.quant];
    const parameters = f32.reduce((n, t) => n + t.values.length, 0);
    const metadata: [string, GgufValue][] = [
        ["general.architecture", { type: "string", value: "llama" }],
        ["general.name", { type: "string", value: opts.name ?? `eddy-tiny-${opts.quant}` }],
        ["general.size_label", { type: "string", value: parameters >= 1e6 ? `${Math.round(parameters / 1e6)}M` : `${Math.round(parameters / 1000)}K` }],
        ["general.file_type", { type: "u32", value: fileType }],
        ["general.quantization_version", { type: "u32", value: 2 }],
        ["llama.vocab_size", { type: "u32", value: vocab }],
        ["llama.context_length", { type: "u32", value: context }],
        ["llama.embedding_length", { type: "u32", value: dim }],
        ["llama.block_count", { type: "u32", value: layers }],
        ["llama.feed_forward_length", { type: "u32", value: ff }],
        ["llama.rope.dimension_count", { type: "u32", value: headDim }],
        ["llama.attention.head_count", { type: "u32", value: heads }],
        ["llama.attention.head_count_kv", { type: "u32", value: kvHeads }],
        ["llama.attention.layer_norm_rms_epsilon", { type: "f32", value: 1e-5 }],
        ["tokenizer.ggml.model", { type: "string", value: "llama" }],
        ["tokenizer.ggml.tokens", { type: "array", itemType: "string", values: tokens }],
        ["tokenizer.ggml.scores", { type: "array", itemType: "f32", values: tokens.map((_, i) => (types[i] === TOKEN_TYPE.normal ? -i : 0)) }],
        ["tokenizer.ggml.token_type", { type: "array", itemType: "i32", values: types }],
        ["tokenizer.ggml.bos_token_id", { type: "u32", value: BOS }],
        ["tokenizer.ggml.eos_token_id", { type: "u32", value: EOS }],
        ["tokenizer.ggml.unknown_token_id", { type: "u32", value: UNK }],
        ["tokenizer.ggml.add_bos_token", { type: "bool", value: true }],
        ["tokenizer.ggml.add_eos_token", { type: "bool", value: false }]
    ];
    if (opts.chatTemplate !== undefined) metadata.push(["tokenizer.chat_template", { type: "string", value: opts.chatTemplate }]);
    for (const [key, value] of Object.entries(opts.overrideMetadata ?? {})) {
        const at = metadata.findIndex(([k]) => k === key);
        if (at >= 0) metadata[at] = [key, value];
        else metadata.push([key, value]);
    }
    return writeGguf({ metadata, tensors });
}

/** Paths of the three shipped tiny models. */
export interface TinyModelPaths {
    f32: string;
    q8_0: string;
    q4_0: string;
}

/**
 * Write `eddy-tiny-{f32,q8_0,q4_0}.gguf` into `dir` (default models/) where missing or stale (written by
 * an older eddy); return their paths. Building one takes milliseconds, so the check is by content.
 */
export function ensureTinyModels(dir: string = modelsDir()): TinyModelPaths {
    mkdirSync(dir, { recursive: true });
    const paths = {} as TinyModelPaths;
    for (const quant of ["f32", "q8_0", "q4_0"] as const) {
        const file = path.join(dir, `eddy-tiny-${quant}.gguf`);
        const bytes = buildTinyLlama({ quant });
        if (!existsSync(file) || !readFileSync(file).equals(bytes)) {
            // write then rename, so a concurrent reader (parallel test files) never sees half a file
            const tmp = `${file}.${process.pid}.tmp`;
            writeFileSync(tmp, bytes);
            renameSync(tmp, file);
        }
        paths[quant] = file;
    }
    return paths;
}
