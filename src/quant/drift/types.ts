import type { ChatMessage } from "../../vocabulary.js";

/** One text to teacher-force. Only the positions that predict `completion` tokens are compared; the prompt is context. */
export interface DriftText {
    /** Caller's label (e.g. `template#instance/round`), for error messages. */
    id?: string;
    /** Context fed before the compared tokens, as text (special tokens in it are parsed); may be empty. Ignored when `messages` is set. */
    prompt?: string;
    /** Context as chat messages, rendered exactly as generation renders them (the job's `promptFormat`). */
    messages?: ChatMessage[];
    /** The text whose tokens are compared position by position (e.g. the reference model's own answer). */
    completion: string;
}

/** Token-drift figures of one model against the reference, as the drift measurement and the quantisation report both state them. */
export interface TokenDrift {
    /** Fraction of compared positions where both models' most likely next token is the same; null with no positions. */
    top1_agreement: number | null;
    /** Mean KL(reference ‖ candidate) of the next-token distributions, nats. */
    kl_mean: number | null;
    /** Median KL, nats. */
    kl_p50: number | null;
    /** 90th percentile KL, nats. */
    kl_p90: number | null;
    /** 99th percentile KL, nats. */
    kl_p99: number | null;
    /** Largest KL at any position, nats. */
    kl_max: number | null;
}

/** Token drift of one candidate against the reference over all compared positions. */
export interface DriftSummary extends TokenDrift {
    /** Positions compared (one per completion token, over all texts). */
    positions: number;
}

/** What the drift worker is asked to do. */
export interface DriftJob {
    /** The reference GGUF (its tokenizer tokenises every text). */
    reference: string;
    /** GGUF files compared with the reference, one at a time (the reference itself may be among them). */
    candidates: string[];
    /** Texts to teacher-force. */
    texts: DriftText[];
    /** llama.cpp threads; always explicit (the library default is ~1000x slower on small machines). */
    threads: number;
    /** How `messages` become a prompt, as in generation: "auto" (default), "gguf-chat-template", "plain-completion" or a chat wrapper name. */
    promptFormat?: string;
    /** GPU backend for getLlama: false for CPU, or "auto" / "cuda" / "vulkan" / "metal". */
    gpu: false | "auto" | "cuda" | "vulkan" | "metal";
    /** Most tokens of one text that are evaluated (longer texts are cut, and counted); default: the model's training context, at most 4096. */
    contextSize?: number;
    /** Upper bound on logits held at once (positions per chunk × vocabulary); default 2,000,000. */
    maxLogitsInFlight?: number;
}

/** Memory one loaded model took, as llama.cpp accounts it. */
export interface DriftMemory {
    /** Weights in RAM, bytes. */
    modelRamBytes: number;
    /** Weights in VRAM, bytes. */
    modelVramBytes: number;
    /** The evaluation context's footprint (KV cache and compute buffers, RAM + VRAM, as node-llama-cpp estimates it), bytes. */
    contextBytes: number;
}

/** Drift of one candidate file against the reference. */
export interface DriftResult extends DriftSummary {
    /** The candidate GGUF path as given. */
    file: string;
    /** Texts cut to the context size. */
    truncated_texts: number;
    /** Teacher-forced evaluation speed of the candidate (all tokens fed, logits at every compared position), tokens/s. */
    eval_tokens_per_s: number;
    /** Memory of the candidate model and its context. */
    memory: DriftMemory;
}

/** Everything the drift worker returns. */
export interface DriftReport {
    /** The reference GGUF path. */
    reference: string;
    /** Vocabulary size shared by every file. */
    vocabulary: number;
    /** Texts compared. */
    texts: number;
    /** Memory of the reference model and its context. */
    referenceMemory: DriftMemory;
    /** One result per candidate, in the job's order. */
    results: DriftResult[];
}

/** Messages the worker sends to its parent. */
export type DriftWorkerMessage =
    | { type: "progress"; file: string; done: number; total: number }
    | { type: "result"; report: DriftReport }
    | { type: "error"; message: string };
