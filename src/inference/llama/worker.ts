/**
 * The inference worker: a child Node process that owns one model. A native abort in llama.cpp
 * (GGML_ASSERT, a corrupt file) kills only this process; the parent turns that into a clear error.
 * Protocol: see types.ts (init → ready, request → result, close).
 */
import os from "node:os";
import { performance } from "node:perf_hooks";
import { getLlama, getModuleVersion, LlamaCompletion, LlamaLogLevel, type Llama, type LlamaContext, type LlamaContextSequence, type LlamaModel } from "node-llama-cpp";
import type { BackendMetadata, GenerationRequest, GenerationResult, StopReason } from "../types.js";
import { GroupQueue } from "./groupQueue.js";
import { LockstepSlot } from "./lockstep.js";
import { answerText, errorLine, failed, preparePrompt, samplingOptions } from "./prepare.js";
import { createPromptRenderer, type PromptRenderer } from "./promptFormat.js";
import { PrefixQueue } from "./scheduler.js";
import type { FromWorker, ToWorker, WorkerInit } from "./types.js";
import { kvCacheContextOptions } from "./kvCache.js";

const send = (msg: FromWorker) => process.send!(msg);
const queue = new PrefixQueue<GenerationRequest & { call: number }>();
/** Lockstep mode's queue of groups (set before the worker says it is ready). */
let groups: GroupQueue<GenerationRequest> | undefined;
/** llama.cpp's recent error lines: its own reason for a failed load is only logged. */
const recentErrors: string[] = [];
/** Calls still sending requests. */
const openCalls = new Set<number>();

process.on("message", (msg: ToWorker) => {
    if (msg.type === "usage") {
        // llama.cpp's threads are this process's: getrusage counts them all.
        const u = process.cpuUsage();
        send({ type: "usage", cpuMicros: u.user + u.system });
        return;
    }
    if (msg.type === "init")
        void start(msg.init).catch(async (err) => {
            // llama.cpp's log lines arrive asynchronously; give them a moment, they carry the real reason.
            await new Promise((resolve) => setTimeout(resolve, 200));
            const said = recentErrors.filter((l) => !/failed to load model$/i.test(l)).slice(-2).join(" / ");
            const message = errorLine(err);
            send({ type: "fatal", message: said ? `${message} (llama.cpp: ${said})` : message });
            setTimeout(() => process.exit(1), 50);
        });
    else if (groups) {
        if (msg.type === "request") groups.push(msg.call, msg.req);
        else if (msg.type === "end")
            for (const req of groups.end(msg.call)) send({ type: "result", call: msg.call, result: failed(req.id, "its lockstep group never arrived whole (the caller sent only part of it)") });
        else if (msg.type === "cancel") groups.remove(msg.call);
        else if (msg.type === "close") groups.close();
    } else if (msg.type === "request") {
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
    // On the CPU, contexts that decode side by side each want `threads` cores of their own.
    const perCores = onGpu ? Infinity : Math.max(1, Math.floor(cores / threads));
    // The prompt chunk size is pinned (not left to the library, whose default depends on the sequence
    // count): the same prompt is then always evaluated in the same chunks.
    const batchSize = Math.min(init.batchSize ?? 512, contextSize);
    const groupSize = reproducible ? Math.max(1, init.groupSize ?? 1) : 1;
    const common = {
        backend: "llama",
        promptFormat: renderer.format,
        llamaCppRelease: llama.llamaCppRelease.release,
        llamaCppRepo: llama.llamaCppRelease.repo,
        llamaBuild: llama.buildType,
        nodeLlamaCppVersion: await getModuleVersion().catch(() => undefined),
        gpu: llama.gpu === false ? "cpu" : llama.gpu,
        devices: await llama.getGpuDeviceNames().catch(() => []),
        threads,
        mode: init.mode,
        ...(init.kvCache ? { kvCache: init.kvCache } : {}),
        gpuLayers: model.gpuLayers,
        cpuCores: cores
    };
    const withVram = async (m: BackendMetadata): Promise<BackendMetadata> => {
        const vram = await llama.getVramState().catch(() => undefined);
        return vram && llama.gpu !== false ? { ...m, vramBytes: vram.total } : m;
    };

    if (groupSize > 1) {
        const count = init.groups ?? Math.min(await fitting(llama, model, contextSize, groupSize), perCores);
        // node-llama-cpp shares `maxThreads` among its contexts: room for every slot's threads at once.
        llama.maxThreads = Math.max(llama.maxThreads, threads * count);
        const slots: LockstepSlot[] = [];
        try {
            for (let i = 0; i < count; i++) slots.push(await LockstepSlot.create(model, { groupSize, contextSize, batchSize, threads, ...(init.kvCache ? { kvCache: init.kvCache } : {}) }));
        } catch (err) {
            if (slots.length === 0) throw err;
            throw new Error(`only ${slots.length} of ${count} lockstep groups fit in memory (${errorLine(err)}); pass a smaller --groups`);
        }
        groups = new GroupQueue<GenerationRequest>();
        const metadata = await withVram({
            ...common, scheduling: "lockstep", groupSize, groups: count, sequences: count * groupSize, batchSize: slots[0]!.context.batchSize, contextSize: slots[0]!.context.contextSize
        });
        send({ type: "ready", metadata, ...(threadTrials ? { threadTrials } : {}) });
        await Promise.all(slots.map((slot, i) => serveGroups(i, slot, model, renderer)));
        for (const slot of slots) await slot.dispose();
        await model.dispose();
        process.exit(0);
    }

    // Per-sequence (reproducible, G = 1): each sequence is a context of its own. Fast: one shared context.
    const sequences = init.sequences ?? Math.min(await chooseSequences(llama, model, contextSize), reproducible ? perCores : Infinity);
    if (reproducible) llama.maxThreads = Math.max(llama.maxThreads, threads * sequences);
    const contexts: LlamaContext[] = [];
    try {
        for (let i = 0; i < (reproducible ? sequences : 1); i++)
            contexts.push(
                await model.createContext({ contextSize, sequences: reproducible ? 1 : sequences, threads: { ideal: threads, min: threads }, batchSize, ...kvCacheContextOptions(init.kvCache) })
            );
    } catch (err) {
        if (contexts.length === 0) throw err;
        throw new Error(`only ${contexts.length} of ${sequences} contexts fit in memory (${errorLine(err)}); pass a smaller --sequences`);
    }
    const context = contexts[0]!;
    const metadata = await withVram({
        ...common, scheduling: reproducible ? "per-sequence" : "shared", ...(reproducible ? { groupSize: 1 } : {}), sequences, batchSize: context.batchSize, contextSize: context.contextSize
    });
    send({ type: "ready", metadata, ...(threadTrials ? { threadTrials } : {}) });
    await Promise.all(Array.from({ length: sequences }, (_, slot) => serve(slot, reproducible ? contexts[slot]! : context, renderer, reproducible)));
    for (const c of contexts) await c.dispose();
    await model.dispose();
    process.exit(0);
}

/** One lockstep slot's loop: take complete groups until the queue closes. */
async function serveGroups(index: number, slot: LockstepSlot, model: LlamaModel, renderer: PromptRenderer): Promise<void> {
    for (;;) {
        const g = await groups!.take();
        if (!g) break;
        const emit = (r: GenerationResult): void => {
            send({ type: "result", call: g.call, result: { ...r, sequence: index } });
        };
        if (g.members.length > slot.groupSize) {
            for (const req of g.members) emit(failed(req.id, `a lockstep group of ${g.members.length} members does not fit contexts of ${slot.groupSize} sequences`));
            continue;
        }
        await slot.run(model, renderer, g.members, (_, r) => emit(r));
    }
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
    for (const s of onGpu ? [16, 8, 4, 2] : [8, 4, 2]) if ((await contextBytes(model, contextSize, s, onGpu)) <= free / 2) return s;
    return 1;
}

/** Lockstep groups from free memory: how many contexts of G sequences fit in half of the free RAM/VRAM (1 to 8). */
async function fitting(llama: Llama, model: LlamaModel, contextSize: number, groupSize: number): Promise<number> {
    const onGpu = llama.gpu !== false && model.gpuLayers > 0;
    const free = onGpu ? (await llama.getVramState()).free : os.freemem();
    const need = await contextBytes(model, contextSize, groupSize, onGpu);
    return Math.max(1, Math.min(8, Math.floor(free / 2 / Math.max(1, need))));
}

/** node-llama-cpp's estimate of one context's memory. */
async function contextBytes(model: LlamaModel, contextSize: number, sequences: number, onGpu: boolean): Promise<number> {
    const need = await model.fileInsights.estimateContextResourceRequirementsV2({ contextSize, modelGpuLayers: model.gpuLayers, sequences });
    return onGpu ? need.gpuVram : need.cpuRam;
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
            result = failed(request.id, `generation failed: ${errorLine(err)}`);
        }
        send({ type: "result", call, result: { ...result, sequence: slot } });
    }
    queue.release(slot);
    completion.dispose();
}

async function generateOne(completion: LlamaCompletion, context: LlamaContext, renderer: PromptRenderer, req: GenerationRequest, reproducible: boolean): Promise<GenerationResult> {
    const prepared = preparePrompt(context.model, renderer, context.contextSize, req);
    if (!("full" in prepared)) return prepared;
    const { prompt, full, promptTokens } = prepared;
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
    const d = req.decoding;
    const res = await completion.generateCompletionWithMeta(prompt.tokens, {
        maxTokens: prepared.maxTokens,
        ...samplingOptions(d, req.seed),
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
    else if (why === "maxTokens") stopReason = prepared.contextBound ? "context_full" : "max_tokens"; // the binding limit was the context
    else stopReason = "error";
    return {
        id: req.id,
        text: answerText(prompt, res.response, stopReason),
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
