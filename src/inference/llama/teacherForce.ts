import { getLlama, LlamaLogLevel, type Llama, type LlamaContext, type LlamaContextSequence, type LlamaModel, type Token } from "node-llama-cpp";
import type { ForcedMemory, ForcedReport, ForcedResult, ForcedText, PositionComparer, TeacherForceJob } from "../descriptor.js";
import { forcingGpu } from "./gpuChoice.js";
import { beginningToken, createPromptRenderer, type PromptRenderer } from "./promptFormat.js";
import { kvCacheContextOptions } from "./kvCache.js";

/** A text as token ids; positions `first - 1 … tokens.length - 2` predict the compared tokens. */
interface TokenizedText {
    tokens: Token[];
    /** Index of the first compared token (≥ 1: a token needs something before it to be predicted). */
    first: number;
    /** True when the text was cut to the context size. */
    truncated: boolean;
}

/** One model ready to evaluate: weights, a one-sequence context, and its memory accounting. */
interface Loaded {
    model: LlamaModel;
    context: LlamaContext;
    sequence: LlamaContextSequence;
    memory: ForcedMemory;
}

const DEFAULT_MAX_LOGITS = 2_000_000;
const DEFAULT_CONTEXT_CAP = 4096;

/**
 * Teacher-forces every text through the reference and each candidate and hands the two
 * next-token logit vectors of every compared position to a comparer (greedy sampler, so the
 * logits are the raw, full-vocabulary ones). Runs inside the drift worker; `onProgress` reports
 * texts done per file.
 */
export async function teacherForce<S extends object>(job: TeacherForceJob, comparer: () => PositionComparer<S>, onProgress: (file: string, done: number, total: number) => void): Promise<ForcedReport<S>> {
    const gpu = forcingGpu(job.gpu, undefined);
    const llama = await getLlama({ gpu, maxThreads: job.threads, build: "never", logLevel: LlamaLogLevel.error, progressLogs: false });
    try {
        const refModel = await loadModel(llama, job.reference);
        const cap = Math.min(job.contextSize ?? DEFAULT_CONTEXT_CAP, refModel.trainContextSize || DEFAULT_CONTEXT_CAP);
        const refRender = renderer(refModel, job);
        const texts = job.texts.map((t) => tokenizeText(refModel, refRender, t, cap));
        // A context just big enough for the longest text keeps the KV cache small.
        const contextSize = Math.max(16, ...texts.map((t) => t.tokens.length));
        // The reference keeps llama.cpp's own cache (or `referenceKvCache`); candidates get `kvCache`, so drift measures the cache type too.
        const ref = await openContext(refModel, contextSize, job.threads, typeof job.referenceKvCache === "string" ? job.referenceKvCache : undefined);
        const vocabulary = vocabularySize(refModel);
        const chunk = Math.max(1, Math.floor((job.maxLogitsInFlight ?? DEFAULT_MAX_LOGITS) / Math.max(1, vocabulary)));
        const results: ForcedResult<S>[] = [];
        for (const file of job.candidates) {
            // The reference itself may be a candidate: its weights are shared, but it gets its own context,
            // so it goes through exactly the same evaluation as any other file.
            const same = file === job.reference;
            const candModel = same ? refModel : await loadModel(llama, file);
            try {
                if (vocabularySize(candModel) !== vocabulary)
                    throw new Error(`${file} has a vocabulary of ${vocabularySize(candModel)} tokens, the reference ${vocabulary}: not a quantisation of the same model`);
                checkSameTokenizer(candModel, renderer(candModel, job), job.texts, texts, file, cap);
                const cand = await openContext(candModel, contextSize, job.threads, typeof job.kvCache === "string" ? job.kvCache : undefined);
                try {
                    results.push(await compareFile(ref, cand, texts, file, chunk, comparer(), onProgress));
                } finally {
                    await cand.context.dispose();
                }
            } finally {
                if (!same) await candModel.dispose();
            }
        }
        return { reference: job.reference, vocabulary, texts: texts.length, referenceMemory: ref.memory, results };
    } finally {
        await llama.dispose();
    }
}

/** Vocabulary size from the GGUF header's token list (llama.cpp's n_vocab is that list's length). */
function vocabularySize(model: LlamaModel): number {
    const tokens = model.fileInfo.metadata.tokenizer?.ggml?.tokens;
    if (!Array.isArray(tokens) || tokens.length === 0) throw new Error(`${model.filename ?? "model"} has no token list in its header`);
    return tokens.length;
}

async function loadModel(llama: Llama, file: string): Promise<LlamaModel> {
    try {
        return await llama.loadModel({ modelPath: file });
    } catch (err) {
        throw new Error(`cannot load ${file}: ${err instanceof Error ? err.message : String(err)}`);
    }
}

async function openContext(model: LlamaModel, contextSize: number, threads: number, kvCache?: string): Promise<Loaded> {
    const context = await model.createContext({ contextSize, sequences: 1, threads, ...kvCacheContextOptions(kvCache) });
    const weights = model.memoryUsage;
    const ctx = context.memoryUsage;
    return { model, context, sequence: context.getSequence(), memory: { modelRamBytes: weights.ram, modelVramBytes: weights.vram, contextBytes: ctx.ram + ctx.vram } };
}

/** The prompt renderer generation uses (created lazily: texts given as plain strings never need it). */
function renderer(model: LlamaModel, job: TeacherForceJob): () => PromptRenderer {
    let r: PromptRenderer | undefined;
    return () => (r ??= createPromptRenderer(model, job.promptFormat ?? "auto", () => {}));
}

/**
 * BOS (when the model wants one) + prompt + completion, cut to `cap` tokens. Chat messages are
 * rendered as generation renders them, and the text generation put before the answer (the plain
 * prompt's cue) is taken off the stored answer, so the compared tokens are the ones the model produced.
 */
function tokenizeText(model: LlamaModel, render: () => PromptRenderer, text: ForcedText, cap: number): TokenizedText {
    const start = beginningToken(model);
    const bos = start != null ? [start] : [];
    let prompt: Token[] = [];
    let answer = text.completion;
    if (text.messages) {
        const rendered = render().render(text.messages);
        prompt = rendered.tokens;
        if (rendered.responsePrefix && answer.startsWith(rendered.responsePrefix)) answer = answer.slice(rendered.responsePrefix.length);
    } else if (text.prompt) prompt = model.tokenize(text.prompt, true);
    const completion = model.tokenize(answer, false);
    const all = [...bos, ...prompt, ...completion];
    const first = Math.max(1, bos.length + prompt.length);
    return { tokens: all.slice(0, cap), first, truncated: all.length > cap };
}

/**
 * All quantisations of one model share one vocabulary; refuse otherwise, because comparing
 * distributions over different token sets is meaningless. The header check (checkSameModel)
 * compares the token lists; this re-checks on the very texts compared, with the loaded tokenizers.
 */
function checkSameTokenizer(candModel: LlamaModel, render: () => PromptRenderer, raw: ForcedText[], texts: TokenizedText[], file: string, cap: number): void {
    raw.forEach((text, i) => {
        const mine = tokenizeText(candModel, render, text, cap).tokens;
        const theirs = (texts[i] as TokenizedText).tokens;
        if (mine.length !== theirs.length || mine.some((t, k) => t !== theirs[k]))
            throw new Error(`${file} tokenises text ${text.id ?? i} differently from the reference: not a quantisation of the same model`);
    });
}

/** Compares one candidate with the reference over every text, streaming chunk by chunk. */
async function compareFile<S extends object>(ref: Loaded, cand: Loaded, texts: TokenizedText[], file: string, chunk: number, acc: PositionComparer<S>,
    onProgress: (file: string, done: number, total: number) => void): Promise<ForcedResult<S>> {
    let evalMs = 0;
    let evalTokens = 0;
    for (let t = 0; t < texts.length; t++) {
        const text = texts[t] as TokenizedText;
        await ref.sequence.clearHistory();
        await cand.sequence.clearHistory();
        // Chunks bound the logits held at once to (positions per chunk × vocabulary); the sequence keeps its KV cache between chunks.
        for (let start = 0; start < text.tokens.length; start += chunk) {
            const end = Math.min(text.tokens.length, start + chunk);
            const items = text.tokens.slice(start, end).map((token, k) => {
                const pos = start + k;
                const compared = pos >= text.first - 1 && pos < text.tokens.length - 1;
                return compared ? ([token, { generateNext: { logits: true } }] as [Token, { generateNext: { logits: true } }]) : token;
            });
            const refOut = await ref.sequence.controlledEvaluate(items);
            const began = performance.now();
            const candOut = await cand.sequence.controlledEvaluate(items);
            evalMs += performance.now() - began;
            evalTokens += items.length;
            for (let k = 0; k < items.length; k++) {
                const r = refOut[k]?.next.logits;
                const c = candOut[k]?.next.logits;
                if (r == null && c == null) continue;
                if (r == null || c == null) throw new Error(`missing logits at position ${start + k} of text ${t}`);
                if (r.size !== c.size) throw new Error(`${file} has a vocabulary of ${c.size} tokens, the reference ${r.size}`);
                acc.add(toDense(r), toDense(c));
            }
        }
        onProgress(file, t + 1, texts.length);
    }
    return {
        file,
        ...acc.summary(),
        truncated_texts: texts.filter((t) => t.truncated).length,
        eval_tokens_per_s: evalMs > 0 ? (evalTokens * 1000) / evalMs : 0,
        memory: cand.memory
    };
}

/** Token → logit map (sorted by logit) to a dense array indexed by token id. */
function toDense(map: Map<Token, number>): Float64Array {
    const out = new Float64Array(map.size);
    for (const [token, value] of map) {
        if (token >= out.length) throw new Error(`token id ${token} outside a vocabulary of ${map.size}`);
        out[token] = value;
    }
    return out;
}
