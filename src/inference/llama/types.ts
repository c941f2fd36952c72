import type { DecodingMode } from "../../vocabulary.js";
import type { BackendMetadata, GenerationRequest, GenerationResult } from "../types.js";

/** GPU choice passed through to node-llama-cpp's getLlama ("cpu" = no GPU). */
/** What `--gpu` accepts. */
export const GPU_CHOICES = ["auto", "cuda", "metal", "vulkan", "cpu"] as const;
export type GpuChoice = (typeof GPU_CHOICES)[number];

/** Options of the node-llama-cpp backend; unset fields are chosen for the machine and recorded. */
export interface LlamaBackendOptions {
    /** Path of a GGUF file, or an `hf:` URI (only with allowDownload). */
    modelPath: string;
    /** Stops opening the backend (Ctrl-C): hashing the file ends at its next chunk, a worker still loading is killed. */
    signal?: AbortSignal;
    /** GPU backend; default "auto" (whatever node-llama-cpp finds, CPU otherwise). */
    gpu?: GpuChoice;
    /** Layers to offload to the GPU: a number, "max", or "auto" (default). */
    gpuLayers?: number | "max" | "auto";
    /** CPU threads; default: auto-tuned by a short measurement, cached per machine and model. */
    threads?: number;
    /** Tokens each sequence can hold (prompt + answer); default min(trained context, 4096). */
    contextSize?: number;
    /**
     * Parallel sequences; default chosen from free memory and the model's size (in reproducible mode
     * also at most one per `threads` CPU cores, since each sequence is a context of its own).
     */
    sequences?: number;
    /** Tokens evaluated per batch (prompt chunk size); default 512 (capped by the context size). */
    batchSize?: number;
    /** KV-cache type of every context (keys and values), e.g. q8_0; default llama.cpp's (f16, flash attention as the library decides). */
    kvCache?: string;
    /**
     * Reproducible mode: members per lockstep group (G). 1 (the default here) gives every sequence a
     * context of its own; G > 1 decodes requests in groups (GenerationRequest.group), each in one
     * context of G sequences batched in lockstep (see lockstep.ts). `eddy run` defaults to 8.
     */
    groupSize?: number;
    /** Lockstep groups decoded at once (one context each); default from free memory and (on the CPU) cores per thread count. */
    groups?: number;
    /**
     * "reproducible" (default): one context per sequence, every prompt evaluated from a clean state in
     * the same chunks, so a response depends only on the model, the request and the settings — never on
     * what else is generating or what ran before. "fast": one shared context whose sequences are batched
     * together and reuse an evaluated prompt across rounds; results can depend on batch composition.
     */
    mode?: DecodingMode;
    /** @deprecated use mode: true means "reproducible", false means "fast". */
    reproducible?: boolean;
    /** Allow an `hf:` URI to be downloaded into models/. Off by default: eddy never touches the network. */
    allowDownload?: boolean;
    /**
     * How chat messages become the prompt: "auto" (the GGUF's chat template, or a plain completion
     * prompt with a warning when it has none), "gguf-chat-template", "plain-completion", "raw" (the
     * messages' text only, for base-model text checks), or the name of
     * a node-llama-cpp chat wrapper (chatML, llama3Chat, alpacaChat, general, …).
     */
    promptFormat?: string;
    /** CUDA device ids to split the queue over, one worker each (data parallel); default: all found. */
    gpuDevices?: string[];
    /** Receives warning lines (no chat template, fallbacks); default: stderr. */
    onWarning?: (line: string) => void;
}

/** What the parent sends a worker when it starts. */
export interface WorkerInit {
    modelPath: string;
    gpu: GpuChoice;
    gpuLayers?: number | "max" | "auto";
    threads?: number;
    contextSize?: number;
    sequences?: number;
    batchSize?: number;
    kvCache?: string;
    groupSize?: number;
    groups?: number;
    mode: DecodingMode;
    promptFormat: string;
}

/** Parent → worker messages. */
export type ToWorker =
    | { type: "init"; init: WorkerInit }
    | { type: "request"; call: number; req: GenerationRequest }
    /** A call has sent all its requests (idle sequences may then steal queued rounds). */
    | { type: "end"; call: number }
    /** The caller stopped reading a call's results: drop its queued requests. */
    | { type: "cancel"; call: number }
    /** How much CPU the worker process has used so far (answered with a `usage` message). */
    | { type: "usage" }
    | { type: "close" };

/** Worker → parent messages. */
export type FromWorker =
    | { type: "ready"; metadata: BackendMetadata; threadTrials?: { threads: number; tokensPerSecond: number }[] }
    | { type: "result"; call: number; result: GenerationResult }
    | { type: "warning"; message: string }
    /** The worker process's CPU time so far (user + system, µs: process.cpuUsage, every thread of the process). */
    | { type: "usage"; cpuMicros: number }
    | { type: "fatal"; message: string };
