import { fork, type ChildProcess } from "node:child_process";
import { statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Stopped, throwIfStopped } from "../../util/abort.js";
import { childModule } from "../../util/childModule.js";
import { EddyError, oneLine } from "../../util/errors.js";
import { modelsDir } from "../../util/paths.js";
import { inspectGguf, type ModelInfo } from "../gguf/inspectGguf.js";
import type { Backend, BackendMetadata, GenerationRequest, GenerationResult } from "../types.js";
import type { FromWorker, LlamaBackendOptions, ToWorker, WorkerInit } from "./types.js";
import { isRemoteModel } from "../modelUri.js";

export type { LlamaBackendOptions, GpuChoice } from "./types.js";

/** Auto-tuned thread counts, per machine + model file (path, size, mtime) + GPU choice, for this process. */
const threadCache = new Map<string, number>();

/**
 * The node-llama-cpp backend. Inference runs in child processes (one per model, one per GPU where
 * several are used), so a native abort becomes an EddyError here and never kills the orchestrator.
 */
export async function createLlamaBackend(opts: LlamaBackendOptions): Promise<Backend> {
    const modelPath = await resolveModelPath(opts);
    // Hashed before the worker starts, not beside it: the worker's thread auto-tuning measures speed,
    // and a hash running on another core at the same time would skew it.
    const info = await inspectGguf(modelPath, opts.signal);
    const gpu = opts.gpu ?? "auto";
    const st = statSync(modelPath);
    const cacheKey = [os.hostname(), modelPath, st.size, st.mtimeMs, gpu, opts.gpuLayers ?? "auto"].join("|");
    const cachedThreads = opts.threads ?? threadCache.get(cacheKey);
    const init: WorkerInit = {
        modelPath,
        gpu,
        mode: opts.mode ?? (opts.reproducible === false ? "fast" : "reproducible"),
        promptFormat: opts.promptFormat ?? "auto",
        ...(opts.gpuLayers !== undefined ? { gpuLayers: opts.gpuLayers } : {}),
        ...(cachedThreads !== undefined ? { threads: cachedThreads } : {}),
        ...(opts.contextSize !== undefined ? { contextSize: opts.contextSize } : {}),
        ...(opts.sequences !== undefined ? { sequences: opts.sequences } : {}),
        ...(opts.batchSize !== undefined ? { batchSize: opts.batchSize } : {}),
        ...(opts.kvCache !== undefined ? { kvCache: opts.kvCache } : {}),
        ...(opts.groupSize !== undefined ? { groupSize: opts.groupSize } : {}),
        ...(opts.groups !== undefined ? { groups: opts.groups } : {})
    };
    const warn = opts.onWarning ?? ((line: string) => process.stderr.write(`eddy: warning: ${line}\n`));
    const label = path.basename(modelPath);

    throwIfStopped(opts.signal);
    const first = await Worker.start(init, label, undefined, warn, opts.signal);
    let workers: Worker[] = [first];
    // Several CUDA devices: one worker per device, each seeing only its own (data parallel).
    const devices = opts.gpuDevices ?? (first.metadata.gpu === "cuda" && (first.metadata.devices?.length ?? 0) > 1 ? first.metadata.devices!.map((_, i) => String(i)) : undefined);
    if (devices && devices.length > 1) {
        await first.close();
        const threads = first.metadata.threads;
        const perDevice = await Promise.allSettled(devices.map((d) => Worker.start({ ...init, threads }, label, d, warn, opts.signal)));
        workers = perDevice.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
        const failed = perDevice.find((s): s is PromiseRejectedResult => s.status === "rejected");
        if (failed) {
            // one device failed: stop the workers that did start, or their processes outlive the error
            await Promise.all(workers.map((w) => w.close()));
            throw failed.reason;
        }
    }
    const threadsSource = opts.threads !== undefined ? "user" : cachedThreads !== undefined ? "cached" : "auto-tuned";
    if (opts.threads === undefined && workers[0]!.metadata.threads !== undefined) threadCache.set(cacheKey, workers[0]!.metadata.threads);

    const metadata: BackendMetadata = {
        ...workers[0]!.metadata,
        model: modelMetadata(info),
        threadsSource,
        ...(workers[0]!.threadTrials ? { threadTrials: workers[0]!.threadTrials } : {}),
        ...(workers.length > 1 ? { workers: workers.length, gpuDevices: devices } : {})
    };
    let nextCall = 0;
    let closed = false;

    return {
        name: "llama",
        async metadata() {
            return metadata;
        },
        generate(requests) {
            if (closed) throw new EddyError("the llama backend is closed");
            return run(workers, nextCall++, requests);
        },
        async close() {
            closed = true;
            await Promise.all(workers.map((w) => w.close()));
        },
        async cpuSeconds() {
            if (closed) return undefined;
            const each = await Promise.all(workers.map((w) => w.cpuSeconds()));
            return each.some((s) => s === undefined) ? undefined : each.reduce<number>((a, s) => a + s!, 0);
        }
    };
}

/** The model metadata stored with a run. */
function modelMetadata(info: ModelInfo): NonNullable<BackendMetadata["model"]> {
    return {
        path: info.path,
        sha256: info.sha256,
        sizeBytes: info.size_bytes,
        architecture: info.architecture,
        quantization: info.quantization,
        parameterCount: info.parameter_count,
        ...(info.size_label !== undefined ? { sizeLabel: info.size_label } : {}),
        ...(info.context_length !== undefined ? { contextLength: info.context_length } : {}),
        ...(info.chat_template !== undefined ? { chatTemplate: info.chat_template } : {}),
        ...(info.name !== undefined ? { name: info.name } : {})
    };
}

/** A local path for the model: never the network, unless an `hf:` URI comes with allowDownload. */
async function resolveModelPath(opts: LlamaBackendOptions): Promise<string> {
    const p = opts.modelPath;
    if (isRemoteModel(p)) {
        if (!opts.allowDownload)
            throw new EddyError(`${p} is a remote model; eddy does not download unless you pass --allow-download (or download the GGUF yourself into ${modelsDir()} or pass --model <path>)`);
        const { resolveModelFile } = await import("node-llama-cpp");
        try {
            return await resolveModelFile(p, { directory: modelsDir(), cli: false });
        } catch (err) {
            throw new EddyError(`cannot download ${p}: ${oneLine(err)}`);
        }
    }
    return path.resolve(p);
}

/** Send one call's requests to the workers and yield results in completion order. */
async function* run(workers: Worker[], call: number, requests: AsyncIterable<GenerationRequest> | Iterable<GenerationRequest>): AsyncGenerator<GenerationResult> {
    const results: GenerationResult[] = [];
    let wake: (() => void) | undefined;
    let failure: Error | undefined;
    let sent = 0;
    let received = 0;
    let inputDone = false;
    const notify = () => {
        const w = wake;
        wake = undefined;
        w?.();
    };
    const assigned = new Map<string, Worker>();
    const listeners = workers.map((w) =>
        w.subscribe(call, {
            result: (r) => {
                received++;
                w.outstanding--;
                results.push(r);
                notify();
            },
            died: (err) => {
                failure ??= err;
                notify();
            }
        })
    );
    // Pull the requests eagerly (they are small) so every sequence stays fed.
    const feeding = (async () => {
        try {
            for await (const req of requests as AsyncIterable<GenerationRequest>) {
                // A lockstep group, or the rounds of one prompt, stay on one worker; the others go to the least busy one.
                const key = req.group?.id ?? req.prefixKey;
                let w = key !== undefined ? assigned.get(key) : undefined;
                if (!w) {
                    w = workers.reduce((a, b) => (b.outstanding < a.outstanding ? b : a));
                    if (key !== undefined) assigned.set(key, w);
                }
                w.outstanding++;
                sent++;
                w.send({ type: "request", call, req });
            }
        } catch (err) {
            failure ??= err instanceof Error ? err : new Error(String(err));
        }
        inputDone = true;
        for (const w of workers) w.send({ type: "end", call });
        notify();
    })();
    try {
        for (;;) {
            if (results.length > 0) {
                yield results.shift()!;
                continue;
            }
            if (failure) throw failure;
            if (inputDone && received === sent) break;
            await new Promise<void>((resolve) => (wake = resolve));
        }
        await feeding;
    } finally {
        for (const unsubscribe of listeners) unsubscribe();
        // The caller stopped early (an abort, an error): the workers drop what is still queued for this call.
        if (!(inputDone && received === sent)) for (const w of workers) w.send({ type: "cancel", call });
    }
}

interface CallListener {
    result(r: GenerationResult): void;
    died(err: Error): void;
}

/** One child process holding the model. */
class Worker {
    /** Requests sent and not yet answered (for load balancing). */
    outstanding = 0;
    private readonly listeners = new Map<number, CallListener>();
    /** Callers waiting for the worker's CPU time (answered in order). */
    private readonly usageWaiters: ((micros: number | undefined) => void)[] = [];
    private exited = false;
    private closing = false;

    private constructor(
        private readonly child: ChildProcess,
        private readonly label: string,
        readonly metadata: BackendMetadata,
        readonly threadTrials: { threads: number; tokensPerSecond: number }[] | undefined
    ) {}

    /**
     * Fork a worker, load the model, resolve when it is ready (or reject with a one-line reason). `signal`
     * (Ctrl-C) kills a worker still loading at once: loading a large model takes a while, and nothing waits for it.
     */
    static start(init: WorkerInit, label: string, cudaDevice: string | undefined, warn: (line: string) => void, signal?: AbortSignal): Promise<Worker> {
        const { file, execArgv } = childModule(import.meta.url, "worker");
        const env = { ...process.env, ...(cudaDevice !== undefined ? { CUDA_VISIBLE_DEVICES: cudaDevice } : {}) };
        const child = fork(file, [], { execArgv: [...process.execArgv.filter((a) => !a.startsWith("--inspect")), ...execArgv], env, stdio: ["ignore", "ignore", "pipe", "ipc"], serialization: "advanced" });
        const tail: string[] = [];
        child.stderr!.setEncoding("utf8");
        child.stderr!.on("data", (chunk: string) => {
            tail.push(...chunk.split("\n").filter((l) => l.trim() !== ""));
            if (tail.length > 40) tail.splice(0, tail.length - 40);
        });
        return new Promise<Worker>((resolve, reject) => {
            let worker: Worker | undefined;
            const onAbort = (): void => {
                if (worker) return;
                child.kill("SIGKILL");
                reject(new Stopped(`stopped while loading ${label}`));
            };
            signal?.addEventListener("abort", onAbort, { once: true });
            child.once("exit", () => signal?.removeEventListener("abort", onAbort));
            child.on("message", (msg: FromWorker) => {
                if (msg.type === "ready") {
                    signal?.removeEventListener("abort", onAbort);
                    worker = new Worker(child, label, msg.metadata, msg.threadTrials);
                    resolve(worker);
                } else if (msg.type === "fatal") reject(new EddyError(`cannot load ${label}: ${msg.message}`));
                else if (msg.type === "warning") warn(msg.message);
                else if (msg.type === "result") worker?.listeners.get(msg.call)?.result(msg.result);
                else if (msg.type === "usage") worker?.usageWaiters.shift()?.(msg.cpuMicros);
            });
            child.on("exit", (code, signal) => {
                const reason = describeExit(label, code, signal, tail);
                if (!worker) reject(new EddyError(`cannot load ${label}: ${reason}`));
                else worker.onExit(reason);
            });
            child.on("error", (err) => reject(new EddyError(`cannot start the inference worker: ${oneLine(err)}`)));
            child.send({ type: "init", init } satisfies ToWorker);
        });
    }

    /** Route one call's results; returns the unsubscribe function. */
    subscribe(call: number, listener: CallListener): () => void {
        this.listeners.set(call, listener);
        if (this.exited) listener.died(new EddyError(`the inference worker for ${this.label} is not running`));
        return () => this.listeners.delete(call);
    }

    /** The worker process's CPU time so far, seconds (undefined once it has exited). */
    cpuSeconds(): Promise<number | undefined> {
        if (this.exited) return Promise.resolve(undefined);
        return new Promise((resolve) => {
            this.usageWaiters.push((micros) => resolve(micros === undefined ? undefined : micros / 1e6));
            this.child.send({ type: "usage" } satisfies ToWorker);
        });
    }

    /** Send a message to the child. */
    send(msg: ToWorker): void {
        if (!this.exited) this.child.send(msg);
    }

    /** Let the child finish and exit; kill it if it does not within 10 s. */
    close(): Promise<void> {
        if (this.exited) return Promise.resolve();
        this.closing = true;
        return new Promise((resolve) => {
            const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
            this.child.once("exit", () => {
                clearTimeout(timer);
                resolve();
            });
            this.child.send({ type: "close" } satisfies ToWorker);
        });
    }

    private onExit(reason: string): void {
        this.exited = true;
        for (const w of this.usageWaiters.splice(0)) w(undefined);
        if (this.closing) return;
        const err = new EddyError(`inference stopped: ${reason}`);
        for (const l of this.listeners.values()) l.died(err);
    }
}

/** One line saying how a worker ended, with llama.cpp's own last words when it aborted. */
function describeExit(label: string, code: number | null, signal: NodeJS.Signals | null, tail: string[]): string {
    const how = signal ? `the llama.cpp worker for ${label} crashed (${signal})` : `the llama.cpp worker for ${label} exited with code ${code}`;
    const said = tail.filter((l) => /GGML_ASSERT|error|abort|failed|exception/i.test(l)).slice(-2).join(" / ");
    return said ? `${how}: ${said.slice(0, 300)}` : how;
}
