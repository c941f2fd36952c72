import type { ChatMessage } from "../vocabulary.js";
import { connection } from "./connection.js";
import type { Store } from "./Store.js";

/** Generation speed of one configuration, from the timings stored with its responses. */
export interface GenerationSpeed {
    /** Configuration id in the store. */
    configId: number;
    /** Model file of the configuration. */
    modelPath: string | null;
    /** Freshly generated responses the figures come from (cached answers carry no timings). */
    responses: number;
    /** Prompt tokens per second of time to first token (prompt processing), per sequence; null without fresh responses. */
    promptTokensPerS: number | null;
    /** Generated tokens per second after the first token, per sequence; null without fresh responses. */
    generationTokensPerS: number | null;
}

/**
 * Per-configuration speeds of a run: Σ prompt tokens / Σ time to first token, and
 * Σ generated tokens / Σ (generation time − time to first token). These are per-sequence
 * rates (requests overlap under batching), comparable between files run with the same settings.
 */
export function generationSpeeds(store: Store, runId: string): GenerationSpeed[] {
    const rows = connection(store)
        .prepare(
            `SELECT c.id AS configId, c.model_path AS modelPath, COUNT(g.id) AS responses,
                    COALESCE(SUM(g.prompt_tokens), 0) AS promptTokens, COALESCE(SUM(g.ttft_ms), 0) AS ttftMs,
                    COALESCE(SUM(g.generated_tokens), 0) AS genTokens, COALESCE(SUM(g.gen_ms - g.ttft_ms), 0) AS decodeMs
             FROM configurations c
             LEFT JOIN generations g ON g.config_id = c.id AND g.cached = 0 AND g.missing = 0
             WHERE c.run_id = ?
             GROUP BY c.id ORDER BY c.id`
        )
        .all(runId) as { configId: number; modelPath: string | null; responses: number; promptTokens: number; ttftMs: number; genTokens: number; decodeMs: number }[];
    return rows.map((r) => ({
        configId: r.configId,
        modelPath: r.modelPath,
        responses: r.responses,
        promptTokensPerS: r.ttftMs > 0 ? (r.promptTokens * 1000) / r.ttftMs : null,
        generationTokensPerS: r.decodeMs > 0 ? (Math.max(0, r.genTokens - r.responses) * 1000) / r.decodeMs : null
    }));
}

/** One stored answer with the messages that asked for it. */
export interface StoredAnswer {
    /** Template id. */
    template: string;
    /** Instance index in the neighbourhood. */
    instance: number;
    /** Round (repeat) index. */
    round: number;
    /** The chat messages that asked for it. */
    messages: ChatMessage[];
    /** The raw response. */
    response: string;
}

/**
 * The answers one configuration gave in a run, distinct by (prompt, response) — greedy rounds
 * repeat the same answer, and teacher-forcing it twice adds nothing — in template/instance order.
 */
export function storedAnswers(store: Store, configId: number, limit: number): StoredAnswer[] {
    const rows = connection(store)
        .prepare(
            `SELECT template_id AS template, instance_idx AS instance, MIN(round) AS round, prompt_json AS prompt, response
             FROM generations WHERE config_id = ? AND missing = 0 AND response != ''
             GROUP BY prompt_json, response
             ORDER BY template_id, instance_idx, MIN(round) LIMIT ?`
        )
        .all(configId, limit) as { template: string; instance: number; round: number; prompt: string; response: string }[];
    return rows.map((r) => ({ template: r.template, instance: r.instance, round: r.round, messages: JSON.parse(r.prompt) as ChatMessage[], response: r.response }));
}
