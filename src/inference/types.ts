import type { ChatMessage, ParamValue } from "../vocabulary.js";

/** Decoding settings. temperature 0 means greedy; the rest only apply when sampling, and unset filters are off. */
export interface Decoding {
    temperature: number;
    topK?: number;
    topP?: number;
    minP?: number;
    /** Off (undefined) unless asked for. */
    repeatPenalty?: number;
}

/** The question a request answers; backends that do not run a model (reference, replay) answer from it. */
export interface TaskRef {
    templateId: string;
    instance: number;
    round: number;
    params: ParamValue[];
    /** The language the answer is asked in, when not the backend's own (a translation loop's step). */
    language?: import("../languages/languages.js").Language;
}

export interface GenerationRequest {
    /** Caller's key, echoed in the result. */
    id: string;
    messages: ChatMessage[];
    decoding: Decoding;
    /** Explicit sampling seed, derived from (run seed, instance, round) by the caller; recorded. */
    seed: number;
    maxTokens: number;
    /** Requests sharing a prefix key (the R rounds of one prompt) run back-to-back on one sequence. */
    prefixKey?: string;
    /**
     * Lockstep mode: the group this request belongs to (`member` of `size`, ids unique within one
     * generate call). A group is decoded together in one context once all its members have arrived.
     */
    group?: LockstepMember;
    task?: TaskRef;
}

/** A request's place in its lockstep group. */
export interface LockstepMember {
    id: string;
    member: number;
    size: number;
}

export type StopReason = "eos" | "max_tokens" | "stop_trigger" | "context_full" | "error";

export interface GenerationResult {
    id: string;
    text: string;
    stopReason: StopReason;
    promptTokens: number;
    generatedTokens: number;
    /** Time to first token and total generation time, milliseconds. */
    ttftMs: number;
    genMs: number;
    /** Set with stopReason "error": what failed, one line. */
    error?: string;
    /** With stopReason "error": the backend has no answer to give (a replay file without this question); recorded as missing, never asked again. */
    missing?: boolean;
    /** Prompt tokens whose evaluation was reused from the sequence's cache (prefix reuse); backends that know. */
    cachedPromptTokens?: number;
    /** Which parallel sequence ran it (diagnostics: prefix grouping keeps a prompt's rounds on one). */
    sequence?: number;
}

/** Everything about the model and the machine that can change a result; stored with every run. */
export interface BackendMetadata {
    backend: string;
    model?: {
        path: string;
        sha256: string;
        sizeBytes: number;
        architecture?: string;
        quantization?: string;
        sizeLabel?: string;
        parameterCount?: number;
        contextLength?: number;
        chatTemplate?: string;
        name?: string;
    };
    /** Which prompt format ran: "gguf-chat-template", "plain-completion", or a named wrapper. */
    promptFormat?: string;
    llamaCppRelease?: string;
    nodeLlamaCppVersion?: string;
    gpu?: string;
    devices?: string[];
    vramBytes?: number;
    threads?: number;
    sequences?: number;
    batchSize?: number;
    contextSize?: number;
    /** "fast" (parallel batching) or "reproducible" (exact reproduction of seeded sampling). */
    mode?: string;
    /** Reproducible mode: how queries are scheduled ("lockstep" groups, or "per-sequence" contexts); "shared" in fast mode. */
    scheduling?: string;
    /** Lockstep: members per group (G, part of the run's identity) and groups decoded at once. */
    groupSize?: number;
    groups?: number;
    [key: string]: unknown;
}

/**
 * A generation backend (llama, reference, replay, …). One small interface so more can follow.
 * Results stream back in completion order, so judging can start while generation goes on.
 */
export interface Backend {
    readonly name: string;
    metadata(): Promise<BackendMetadata>;
    generate(requests: AsyncIterable<GenerationRequest> | Iterable<GenerationRequest>): AsyncIterable<GenerationResult>;
    close(): Promise<void>;
    /**
     * CPU time (user + system, seconds) the processes that run the model have used so far, where the backend
     * runs them (llama: its inference workers); undefined where it cannot know (a server elsewhere, no model).
     * A caller takes it before and after generating: the difference is the CPU the generation cost.
     */
    cpuSeconds?(): Promise<number | undefined>;
}
