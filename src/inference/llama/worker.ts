/**
 * The inference worker: a child Node process that owns one model. A native abort in llama.cpp
 * (GGML_ASSERT, a corrupt file) kills only this process; the parent turns that into a clear error.
 * Protocol: see types.ts (init → ready, request → result, close).
 */
import os from "node:os";
import { performance } from "node:perf_hooks";
import { getLlama, getModuleVersion, LlamaCompletion, LlamaLogLevel, type Llama, type LlamaContext, type LlamaContextSequence, type LlamaModel } from "node-llama-cpp";
import type { BackendMetadata, GenerationRequest, GenerationResult, StopReason } from "../types.js";
import { beginningToken, createPromptRenderer, type PromptRenderer } from "./promptFormat.js";
import { PrefixQueue } from "./scheduler.js";
import type { FromWorker, ToWorker, WorkerInit } from "./types.js";

const send = (msg: FromWorker) => process.send!(msg);
const queue = new PrefixQueue<GenerationRequest & { call: number }>();
/** llama.cpp's recent error lines: its own reason for a failed load is only logged. */
const recentErrors: string[] = [];
/** Calls still sending requests. */
const openCalls = new Set<number>();

process.on("message", (msg: ToWorker) => {
    if (msg.type === "init")
        void start(msg.init).catch(async (err) => {
            // llama.cpp's log lines arrive asynchronously; give them a moment, they carry the real reason.
            await new Promise((resolve) => setTimeout(resolve, 200));
            const said = recentErrors.filter((l) => !/failed to load model$/i.test(l)).slice(-2).join(" / ");
            const message = String((err as Error)?.message ?? err).replace(/\s*\n\s*/g, " ");
            send({ type: "fatal", message: said ? `${message} (llama.cpp: ${said})` : message });
            setTimeout(() => process.exit(1), 50);
        });
    else if (msg.type === "request") {
        if (!openCalls.has(msg.call)) {
            openCalls.add(msg.call);
            queue.beginInput();
        }
        queue.push({ ...msg.req, call: msg.call });
    } else if (msg.type === "end") {
        if (openCalls.delete(msg.call)) queue.endInput();
    } else if (msg.type === "cancel") {
        queue.remove((item) => item.call === msg.call);
        if (openCalls.delete(msg.call)) queue.endInput();
    }
    else if (msg.type === "close") queue.close();
});
process.on("disconnect", () => process.exit(0));

async function start(init: WorkerInit): Promise<void> {
    const cores = Math.max(1, os.availableParallelism());
    const llama = await loadLlama(init, cores);
    const model = await llama.loadModel({ modelPath: init.modelPath, ...(init.gpuLayers !== undefined ? { gpuLayers: init.gpuLayers } : {}) });
    const renderer = createPromptRenderer(model, init.promptFormat, (message) => send({ type: "warning", message }));
    const trained = model.trainContextSize;
    const contextSize = init.contextSize ?? (trained > 0 ? Math.min(trained, 4096) : 4096);
    let threadTrials: { threads: number; tokensPerSecond: number }[] | undefined;
    let threads = init.threads;
    if (threads === undefined) {
        threadTrials = await measureThreads(model, cores);
        threads = threadTrials.reduce((a, b) => (b.tokensPerSecond > a.tokensPerSecond ? b : a)).threads;
    }
    const reproducible = init.mode === "reproducible";
    const onGpu = llama.gpu !== false && model.gpuLayers > 0;
    // Reproducible: each sequence is a context of its own and they run side by side on their own threads,
    // so a sequence on the CPU wants `threads` cores of its own.
    const sequences =
        init.sequences ??
        Math.min(await chooseSequences(llama, model, contextSize), reproducible && !onGpu ? Math.max(1, Math.floor(cores / threads)) : Infinity);
    // The prompt chunk size is pinned (not left to the library, whose default depends on the sequence
    // count): the same prompt is then always evaluated in the same chunks.
    const batchSize = Math.min(init.batchSize ?? 512, contextSize);
    const contexts: LlamaContext[] = [];
    try {
        for (let i = 0; i < (reproducible ? sequences : 1); i++)
            contexts.push(
                await model.createContext({ contextSize, sequences: reproducible ? 1 : sequences, threads: { ideal: threads, min: threads }, batchSize })
            );
    } catch (err) {
        if (contexts.length === 0) throw err;
        throw new Error(`only ${contexts.length} of ${sequences} contexts fit in memory (${String((err as Error)?.message ?? err)}); pass a smaller --sequences`);
    }
    const context = contexts[0]!;
    const vram = await llama.getVramState().catch(() => undefined);
    const metadata: BackendMetadata = {
        backend: "llama",
        promptFormat: renderer.format,
        llamaCppRelease: llama.llamaCppRelease.release,
        llamaCppRepo: llama.llamaCppRelease.repo,
        llamaBuild: llama.buildType,
        nodeLlamaCppVersion: await getModuleVersion().catch(() => undefined),
        gpu: llama.gpu === false ? "cpu" : llama.gpu,
        devices: await llama.getGpuDeviceNames().catch(() => []),
        ...(vram && llama.gpu !== false ? { vramBytes: vram.total } : {}),
        threads,
        sequences,
        batchSize: context.batchSize,
        contextSize: context.contextSize,
        mode: init.mode,
        gpuLayers: model.gpuLayers,
        cpuCores: cores
    };
    send({ type: "ready", metadata, ...(threadTrials ? { threadTrials } : {}) });
    await Promise.all(Array.from({ length: sequences }, (_, slot) => serve(slot, reproducible ? contexts[slot]! : context, renderer, reproducible)));
    for (const c of contexts) await c.dispose();
    await model.dispose();
    process.exit(0);
}

async function loadLlama(init: WorkerInit, cores: number): Promise<Llama> {
    try {
        return await getLlama({
            gpu: init.gpu === "cpu" ? false : init.gpu,
            // Always explicit: the library's default thread count is ~1000x slower on small shared machines.
            maxThreads: Math.max(init.threads ?? cores, 1),
            build: "never",
            progressLogs: false,
            logLevel: LlamaLogLevel.error,
            logger: (level, message) => {
                if (level !== LlamaLogLevel.error && level !== LlamaLogLevel.fatal) return;
                recentErrors.push(message.trim().slice(0, 300));
                if (recentErrors.length > 10) recentErrors.shift();
                process.stderr.write(message + "\n");
            }
        });
    } catch (err) {
        throw new Error(`GPU backend '${init.gpu}' is not available here (${(err as Error).message.split("\n")[0]}); try --gpu auto or --gpu cpu`);
    }
}

/**
 * Tokens per second for 1, 2, 4, … threads up to the core count, on a short greedy generation;
 * stops climbing once a setting is clearly slower than the best so far.
 */
async function measureThreads(model: LlamaModel, cores: number): Promise<{ threads: number; tokensPerSecond: number }[]> {
    const candidates = [...new Set([1, 2, 4, 8, 16, 32, 64].filter((t) => t < cores).concat(cores))].sort((a, b) => a - b);
    const trials: { threads: number; tokensPerSecond: number }[] = [];
    const prompt = model.tokenize("def add(a, b):\n    return a + b\n\ndef mul(a, b):\n", false);
    for (const t of candidates) {
        const ctx = await model.createContext({ contextSize: 256, sequences: 1, threads: { ideal: t, min: t } });
        const sequence = ctx.getSequence();
        const completion = new LlamaCompletion({ contextSequence: sequence });
        await completion.generateCompletion(prompt, { maxTokens: 4, temperature: 0, repeatPenalty: false }); // warm-up
        await sequence.clearHistory();
        const t0 = performance.now();
        let n = 0;
        await completion.generateCompletion(prompt, { maxTokens: 24, temperature: 0, repeatPenalty: false, onToken: (tk) => (n += tk.length) });
        const seconds = (performance.now() - t0) / 1000;
        trials.push({ threads: t, tokensPerSecond: (prompt.length + n) / seconds });
        completion.dispose();
        await ctx.dispose();
        const best = Math.max(...trials.map((x) => x.tokensPerSecond));
        if (trials.at(-1)!.tokensPerSecond < 0.8 * best) break;
    }
    return trials;
}

/**
 * Sequences from free memory: the largest of 8 (CPU) or 16 (GPU), 4, 2, 1 whose context fits in half
 * of the free RAM/VRAM by node-llama-cpp's own estimate.
 */
async function chooseSequences(llama: Llama, model: LlamaModel, contextSize: number): Promise<number> {
    const onGpu = llama.gpu !== false && model.gpuLayers > 0;
    const free = onGpu ? (await llama.getVramState()).free : os.freemem();
    for (const s of onGpu ? [16, 8, 4, 2] : [8, 4, 2]) {
        const need = await model.fileInsights.estimateContextResourceRequirementsV2({ contextSize, modelGpuLayers: model.gpuLayers, sequences: s });
        if ((onGpu ? need.gpuVram : need.cpuRam) <= free / 2) return s;
    }
    return 1;
}

/** One sequence's loop: take requests from the shared queue until it closes. */
async function serve(slot: number, context: LlamaContext, renderer: PromptRenderer, reproducible: boolean): Promise<void> {
    const sequence = context.getSequence();
    const completion = new LlamaCompletion({ contextSequence: sequence });
    sequences.set(completion, sequence);
    for (;;) {
        const req = await queue.take(slot);
        if (!req) break;
        const { call, ...request } = req;
        let result: GenerationResult;
        try {
            result = await generateOne(completion, context, renderer, request, reproducible);
        } catch (err) {
            result = failed(request.id, `generation failed: ${String((err as Error)?.message ?? err).replace(/\s*\n\s*/g, " ")}`);
        }
        send({ type: "result", call, result: { ...result, sequence: slot } });
    }
    queue.release(slot);
    completion.dispose();
}

async function generateOne(completion: LlamaCompletion, context: LlamaContext, renderer: PromptRenderer, req: GenerationRequest, reproducible: boolean): Promise<GenerationResult> {
    const prompt = renderer.render(req.messages);
    // LlamaCompletion evaluates [its beginning token (if the model wants one), ...prompt tokens].
    const bos = beginningToken(context.model);
    const full = bos != null ? [bos, ...prompt.tokens] : prompt.tokens;
    const promptTokens = full.length;
    if (promptTokens + 1 > context.contextSize)
        return {
            ...failed(req.id, `prompt is ${promptTokens} tokens but the context holds ${context.contextSize}; raise --context-size`),
            stopReason: "context_full",
            promptTokens
        };
    const d = req.decoding;
    const sequence = completionSequence(completion);
    // LlamaCompletion keeps the longest common prefix of the sequence's state (all but the last prompt token).
    let cachedPromptTokens = Math.min(sequence.compareContextTokens(full).firstDifferentIndex, promptTokens - 1);
    if (reproducible && cachedPromptTokens < promptTokens - 1) {
        // Reproducible: every prompt is evaluated the same way — from a clean state (this context holds
        // no other sequence), all but its last token in fixed chunks from position 0, then the last token
        // alone as generation begins. A later round of the same prompt finds exactly that state kept and
        // evaluates only the last token, as the first round did, so reuse changes nothing; a partial
        // match (another prompt sharing a prefix) would shift the chunks, so it starts over instead.
        await sequence.clearHistory();
        if (promptTokens > 1) await sequence.evaluateWithoutGeneratingNewTokens(full.slice(0, -1));
        cachedPromptTokens = 0;
    }
    const t0 = performance.now();
    let firstAt = 0;
    let generated = 0;
    // Never let the library shift or truncate the context: an answer that fills it stops as context_full.
    const room = context.contextSize - promptTokens - 1;
    const res = await completion.generateCompletionWithMeta(prompt.tokens, {
        maxTokens: Math.min(req.maxTokens, room),
        temperature: d.temperature,
        ...(d.temperature > 0 ? { seed: req.seed } : {}),
        // Unset filters are off, not node-llama-cpp's hidden defaults (top-k 40, top-p 0.95): the request says it all.
        topK: d.topK ?? 0,
        topP: d.topP ?? 1,
        minP: d.minP ?? 0,
        // node-llama-cpp applies a repeat penalty by default; eddy's default is none.
        repeatPenalty: d.repeatPenalty !== undefined && d.repeatPenalty !== 1 ? { penalty: d.repeatPenalty } : false,
        customStopTriggers: prompt.stopTriggers,
        disableContextShift: true,
        contextShiftSize: 1,
        onToken: (tokens) => {
            if (firstAt === 0) firstAt = performance.now();
            generated += tokens.length;
        }
    });
    const end = performance.now();
    let stopReason: StopReason;
    const why = res.metadata.stopReason;
    if (why === "eogToken") stopReason = "eos";
    else if (why === "customStopTrigger" || why === "stopGenerationTrigger") stopReason = "stop_trigger";
    else if (why === "maxTokens") stopReason = req.maxTokens > room ? "context_full" : "max_tokens"; // the binding limit was the context
    else stopReason = "error";
    return {
        id: req.id,
        text: prompt.responsePrefix + res.response + (stopReason === "stop_trigger" ? prompt.stopSuffix : ""),
        stopReason,
        promptTokens,
        generatedTokens: generated,
        ttftMs: firstAt ? firstAt - t0 : end - t0,
        genMs: end - t0,
        cachedPromptTokens
    };
}

/** The sequence a completion runs on (kept beside it; LlamaCompletion does not expose it). */
const sequences = new WeakMap<LlamaCompletion, LlamaContextSequence>();
function completionSequence(c: LlamaCompletion): LlamaContextSequence {
    return sequences.get(c)!;
}

function failed(id: string, error: string): GenerationResult {
    return { id, text: "", stopReason: "error", promptTokens: 0, generatedTokens: 0, ttftMs: 0, genMs: 0, error };
}

