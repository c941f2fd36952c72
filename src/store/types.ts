import type { Decoding, StopReason } from "../inference/types.js";
import type { Category, ParamValue } from "../vocabulary.js";

/** Lifecycle of a run. `running` after a crash means "stopped without saying so": resume it. */
export type RunStatus = "running" | "interrupted" | "failed" | "complete";

/** A row of `runs`. */
export interface RunRow {
    id: string;
    created: string;
    updated: string;
    status: RunStatus;
    config_hash: string;
    config_json: string;
    eddy_version: string;
    backend: string;
    seed: number;
    isolation_level: string | null;
    isolation_json: string | null;
    error: string | null;
    stats_json: string | null;
}

/** What `createOrFindRun` needs. */
export interface NewRun {
    id: string;
    configHash: string;
    config: unknown;
    eddyVersion: string;
    backend: string;
    seed: number;
    isolationLevel?: string;
    isolation?: unknown;
}

/** A row of `configurations`: one model × temperature × wrapper of a run. */
export interface ConfigurationRow {
    id: number;
    run_id: string;
    model: string;
    model_path: string | null;
    model_sha256: string | null;
    quantization: string | null;
    temperature: number;
    wrapper: string;
    decoding_json: string;
    metadata_json: string | null;
}

/** What `upsertConfiguration` needs. */
export interface NewConfiguration {
    runId: string;
    model: string;
    modelPath?: string | null;
    modelSha256?: string | null;
    quantization?: string | null;
    temperature: number;
    wrapper: string;
    decoding: Decoding;
    metadata?: unknown;
}

/** An instance as stored with a run. */
export interface StoredInstance {
    templateId: string;
    index: number;
    params: ParamValue[];
    bindings: Record<string, ParamValue>;
    question: string;
}

/** The key of one generation within a run. */
export interface GenerationKey {
    configId: number;
    templateId: string;
    instance: number;
    round: number;
}

/** A generation to store. */
export interface NewGeneration extends GenerationKey {
    seed: number;
    /** JSON of the rendered chat messages. */
    prompt: string;
    response: string;
    code: string | null;
    stopReason: StopReason;
    promptTokens: number;
    generatedTokens: number;
    ttftMs: number;
    genMs: number;
    cached?: boolean;
    missing?: boolean;
}

/** A verdict to store, addressed by its generation's key. */
export interface NewVerdict extends GenerationKey {
    category: Category;
    judgeCategory: Category;
    detail: string;
    ms: number;
    cached?: boolean;
    /** The failing input shrunk, as JSON (src/judge/types.ts ShrunkInput), or null. */
    shrunk?: string | null;
}

/** A row of `generations`. */
export interface GenerationRow {
    id: number;
    config_id: number;
    template_id: string;
    instance_idx: number;
    round: number;
    seed: number;
    prompt_json: string;
    response: string;
    code: string | null;
    stop_reason: StopReason;
    prompt_tokens: number;
    generated_tokens: number;
    ttft_ms: number;
    gen_ms: number;
    cached: number;
    missing: number;
    created: string;
}

/** A row of `response_cache`. */
export interface CachedResponse {
    key: string;
    model_sha256: string;
    response: string;
    stop_reason: StopReason;
    prompt_tokens: number;
    generated_tokens: number;
    ttft_ms: number;
    gen_ms: number;
}
