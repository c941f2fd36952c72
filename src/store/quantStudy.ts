import { randomBytes } from "node:crypto";
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
    /** Tokens generated per CPU-second of the inference process (generation_usage); null where none was recorded. */
    tokensPerCpuSecond: number | null;
    /** The CPU time and tokens that figure comes from (every session that generated this configuration's model). */
    cpu: { seconds: number; tokens: number } | null;
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
    const labels = new Map((connection(store).prepare("SELECT id, model FROM configurations WHERE run_id = ?").all(runId) as { id: number; model: string }[]).map((c) => [c.id, c.model]));
    const usage = new Map(generationUsage(store, runId).map((u) => [u.model, u]));
    return rows.map((r) => {
        const u = usage.get(labels.get(r.configId) ?? "");
        return {
            configId: r.configId,
            modelPath: r.modelPath,
            responses: r.responses,
            promptTokensPerS: r.ttftMs > 0 ? (r.promptTokens * 1000) / r.ttftMs : null,
            generationTokensPerS: r.decodeMs > 0 ? (Math.max(0, r.genTokens - r.responses) * 1000) / r.decodeMs : null,
            tokensPerCpuSecond: u && u.cpuMs > 0 ? (u.generatedTokens * 1000) / u.cpuMs : null,
            cpu: u ? { seconds: u.cpuMs / 1000, tokens: u.generatedTokens } : null
        };
    });
}

/** Whether the store has a table (a read-only store written by an older eddy may lack the newer ones). */
function hasTable(store: Store, name: string): boolean {
    return connection(store).prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/** One session's generation of one model's answers in a run: the CPU time its inference process spent and what it made. */
export interface GenerationUsage {
    runId: string;
    /** The model label of the configurations it served. */
    model: string;
    /** User + system CPU time of the inference process(es) while they generated, ms. */
    cpuMs: number;
    /** Wall time of the same span, ms. */
    wallMs: number;
    /** Tokens generated in it (answers taken from the response cache are not generated, and not counted). */
    generatedTokens: number;
    promptTokens: number;
    responses: number;
    threads: number | null;
}

/** Record a session's generation usage (a resumed run adds a row per session). */
export function recordGenerationUsage(store: Store, u: GenerationUsage): void {
    store.write(() =>
        connection(store)
            .prepare(
                `INSERT INTO generation_usage (run_id, model, session, cpu_ms, wall_ms, generated_tokens, prompt_tokens, responses, threads, created)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
            )
            .run(u.runId, u.model, randomBytes(6).toString("hex"), u.cpuMs, u.wallMs, u.generatedTokens, u.promptTokens, u.responses, u.threads, new Date().toISOString())
    );
}

/** Per model of a run, the sessions' usage summed (threads: the last session's); none in a store from before it was recorded. */
export function generationUsage(store: Store, runId: string): GenerationUsage[] {
    if (!hasTable(store, "generation_usage")) return [];
    return connection(store)
        .prepare(
            `SELECT run_id AS runId, model, SUM(cpu_ms) AS cpuMs, SUM(wall_ms) AS wallMs, SUM(generated_tokens) AS generatedTokens,
                    SUM(prompt_tokens) AS promptTokens, SUM(responses) AS responses, MAX(threads) AS threads
             FROM generation_usage WHERE run_id = ? GROUP BY model ORDER BY model`
        )
        .all(runId) as GenerationUsage[];
}

/**
 * What `eddy quant` measured beside its run (quant_studies), for everything drawn from the study later (the
 * viewer's page): `T` is the stored record (src/quant owns its shape). The run holds the answers and verdicts.
 */
export interface QuantStudyRecord<T> {
    runId: string;
    /** The reference file. */
    reference: string;
    created: string;
    updated: string;
    inputs: T;
}

/** Record (or replace) the quantisation study of a run. */
export function recordQuantStudy<T>(store: Store, runId: string, reference: string, inputs: T): void {
    const t = new Date().toISOString();
    store.write(() =>
        connection(store)
            .prepare(
                `INSERT INTO quant_studies (run_id, created, updated, reference, inputs_json) VALUES (?, ?, ?, ?, ?)
                 ON CONFLICT(run_id) DO UPDATE SET updated = excluded.updated, reference = excluded.reference, inputs_json = excluded.inputs_json`
            )
            .run(runId, t, t, reference, JSON.stringify(inputs))
    );
}

/** The quantisation study of a run, or undefined when the run is not one (or the store predates them). */
export function readQuantStudy<T>(store: Store, runId: string): QuantStudyRecord<T> | undefined {
    if (!hasTable(store, "quant_studies")) return undefined;
    const r = connection(store).prepare("SELECT * FROM quant_studies WHERE run_id = ?").get(runId) as
        | { run_id: string; reference: string; created: string; updated: string; inputs_json: string }
        | undefined;
    return r && { runId: r.run_id, reference: r.reference, created: r.created, updated: r.updated, inputs: JSON.parse(r.inputs_json) as T };
}

/** Every quantisation study in the store, newest first (run id, reference, when). */
export function listQuantStudies(store: Store): { runId: string; reference: string; created: string; updated: string }[] {
    if (!hasTable(store, "quant_studies")) return [];
    return connection(store).prepare("SELECT run_id AS runId, reference, created, updated FROM quant_studies ORDER BY updated DESC").all() as never;
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
