import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { EddyError } from "../../util/errors.js";
import { deriveSeed } from "../../util/seeds.js";
import { extractCode } from "../../extract/extractCode.js";
import { isRemoteModel } from "../../inference/modelUri.js";
import { createBackend, type BackendParts } from "../../inference/createBackend.js";
import { REPLAY_MISSING, ReplayBackend } from "../../inference/replay/ReplayBackend.js";
import type { Backend, BackendMetadata, Decoding, GenerationRequest, GenerationResult } from "../../inference/types.js";
import { renderMessages } from "../../prompts/PromptWrapper.js";
import type { Store } from "../../store/Store.js";
import type { ConfigurationRow, NewGeneration, RunRow } from "../../store/types.js";
import type { ChatMessage } from "../../vocabulary.js";
import type { StudyConfig } from "../config.js";
import type { StudyPlan } from "../plan.js";
import type { BatchWriter } from "../writer.js";
import type { StudyCounters } from "./counters.js";
import { countFences } from "./JudgeStage.js";
import { genKey, type JudgeItem, type Query } from "./types.js";

/**
 * Key of a response in the response cache: the model file's sha256 plus everything that decides
 * the rendered prompt (messages, prompt format, context size) and the decoding (settings, seed,
 * max tokens, and the decoding mode: a fast-mode answer never stands in for a reproducible one).
 */
export function responseCacheKey(
    model: { sha256: string; promptFormat?: string | undefined; contextSize?: number | undefined; mode?: string | undefined },
    messages: ChatMessage[],
    decoding: Decoding,
    seed: number,
    maxTokens: number
): string {
    const parts: unknown[] = [model.sha256, model.promptFormat ?? null, model.contextSize ?? null, messages, decoding, seed, maxTokens];
    // Keys of the batched mode stay what they were before modes existed.
    if (model.mode !== undefined && model.mode !== "fast") parts.push(model.mode);
    return createHash("sha256").update(JSON.stringify(parts)).digest("hex");
}

/** The decoding of a configuration: greedy at temperature 0, the sampling knobs otherwise. */
export function decodingFor(c: StudyConfig, temperature: number): Decoding {
    if (temperature === 0) return { temperature: 0, ...(c.repeatPenalty !== undefined ? { repeatPenalty: c.repeatPenalty } : {}) };
    const d: Decoding = { temperature };
    if (c.topK !== undefined) d.topK = c.topK;
    if (c.topP !== undefined) d.topP = c.topP;
    if (c.minP !== undefined) d.minP = c.minP;
    if (c.repeatPenalty !== undefined) d.repeatPenalty = c.repeatPenalty;
    return d;
}

/** What the generation stage needs from the study around it. */
export interface GenerateStageOptions {
    store: Store;
    config: StudyConfig;
    run: RunRow;
    plan: StudyPlan;
    writer: BatchWriter;
    counters: StudyCounters;
    /** Backend parts (judge pool for reference, the replay file). */
    parts: () => Promise<BackendParts>;
    /** Hand a stored response to the judging stage. */
    judge: (item: JudgeItem) => Promise<void>;
    log: (line: string) => void;
    signal: AbortSignal;
    onModelDone?: ((model: string) => void) | undefined;
}

/**
 * The generation stage: for each model, one backend; every query still missing (per configuration)
 * is answered from the response cache or generated, its code extracted, stored, and handed to the judge.
 */
export class GenerateStage {
    /** Replay answers missing from the file: `template|instance|round`. */
    readonly missing: string[] = [];

    constructor(private readonly o: GenerateStageOptions) {}

    async run(): Promise<void> {
        for (const model of this.o.plan.models) {
            if (this.o.signal.aborted) break;
            this.o.counters.model = model.label;
            if (model.path && !isRemoteModel(model.path) && !existsSync(model.path))
                throw new EddyError(`model file not found: ${model.path} (run ${this.o.run.id} kept everything so far; restore the file and resume with 'eddy run --resume ${this.o.run.id}')`);
            await this.model(model);
            this.o.onModelDone?.(model.label);
        }
    }

    /** Configurations of one model, created on first use (their rows carry the backend's metadata). */
    private configurations(model: { label: string }, meta: BackendMetadata, sha: string | null) {
        const { store, config, run, plan } = this.o;
        const out: { row: ConfigurationRow; wrapper: StudyPlan["wrappers"][number]; decoding: Decoding; done: Set<string> }[] = [];
        for (const temperature of config.temperatures)
            for (const w of plan.wrappers) {
                const decoding = decodingFor(config, temperature);
                const row = store.upsertConfiguration({
                    runId: run.id, model: model.label, modelPath: (model as { path?: string }).path ?? null, modelSha256: sha, quantization: meta.model?.quantization ?? null,
                    temperature, wrapper: w.id, decoding, metadata: { ...meta, maxTokens: config.maxTokens }
                });
                out.push({ row, wrapper: w, decoding, done: store.generatedKeys(row.id) });
            }
        return out;
    }

    /** Plan the queries of one model: every (template, instance, configuration, round) not yet stored. */
    private queries(confs: ReturnType<GenerateStage["configurations"]>, cacheModel: Parameters<typeof responseCacheKey>[0] | undefined): Query[] {
        const { config, plan } = this.o;
        const queries: Query[] = [];
        for (const t of plan.templates)
            for (const inst of plan.instances.get(t.id)!)
                for (const c of confs) {
                    const messages = renderMessages(c.wrapper.wrapper, inst.question);
                    for (let round = 0; round < config.rounds; round++) {
                        const key = { configId: c.row.id, templateId: t.id, instance: inst.index, round };
                        if (c.done.has(genKey(key))) continue;
                        // Every request carries its own seed: sampling never depends on what ran before it.
                        const seed = deriveSeed(config.seed, t.id, inst.index, round);
                        queries.push({
                            key, template: t, instance: inst, messages, decoding: c.decoding, seed, prefixKey: `${c.row.id}|${t.id}|${inst.index}`,
                            cacheKey: cacheModel ? responseCacheKey(cacheModel, messages, c.decoding, seed, config.maxTokens) : undefined
                        });
                    }
                }
        return queries;
    }

    private async model(model: { label: string; path?: string }): Promise<void> {
        const { store, config, run, plan, counters: s } = this.o;
        // Which queries are still missing, per configuration; a configuration row needs backend metadata,
        // so look at the stored ones first and skip loading a model that has nothing left to do.
        const existingConfs = store.configurations(run.id).filter((c) => c.model === model.label);
        const total = plan.templates.reduce((n, t) => n + plan.instances.get(t.id)!.length, 0) * config.rounds;
        if (existingConfs.length === config.temperatures.length * plan.wrappers.length && existingConfs.every((c) => store.generatedKeys(c.id).size >= total)) return;

        const backend: Backend = await createBackend(config, model, { ...(await this.o.parts()), onWarning: this.o.log });
        try {
            const meta: BackendMetadata = await backend.metadata();
            const sha = meta.model?.sha256 ?? (backend instanceof ReplayBackend ? backend.sha256 : null);
            // A model file replaced at the same path would mix two models' answers in one configuration.
            if (sha && existingConfs.some((c) => c.model_sha256 && c.model_sha256 !== sha))
                throw new EddyError(`model file ${model.path ?? model.label} changed since run ${run.id} began (sha256 differs); start a new run with --fresh`);
            const confs = this.configurations(model, meta, sha);
            const useCache = config.backend === "llama" && !!meta.model?.sha256;
            const queries = this.queries(confs, useCache ? { sha256: sha ?? "", promptFormat: meta.promptFormat, contextSize: meta.contextSize, mode: meta.mode } : undefined);
            s.total += queries.length;
            await this.generate(backend, queries, sha);
        } finally {
            await backend.close().catch(() => {});
        }
    }

    /** Stream the queries through the backend; answers come back in completion order. */
    private async generate(backend: Backend, queries: Query[], sha: string | null): Promise<void> {
        const { store, config, counters: s, writer, signal } = this.o;
        const pending = new Map<string, Query>();
        const self = this;
        async function* requests(): AsyncGenerator<GenerationRequest> {
            for (const q of queries) {
                if (signal.aborted) return;
                if (q.cacheKey !== undefined && !config.noCache) {
                    const hit = store.cachedResponse(q.cacheKey);
                    if (hit) {
                        await self.store(q, { text: hit.response, stopReason: hit.stop_reason, promptTokens: hit.prompt_tokens, generatedTokens: hit.generated_tokens, ttftMs: 0, genMs: 0 }, true, sha);
                        continue;
                    }
                }
                const id = `${q.key.configId}|${genKey(q.key)}`;
                pending.set(id, q);
                yield {
                    id, messages: q.messages, decoding: q.decoding, seed: q.seed, maxTokens: config.maxTokens, prefixKey: q.prefixKey,
                    task: { templateId: q.template.id, instance: q.instance.index, round: q.key.round, params: q.instance.params }
                };
            }
        }
        s.genStart = performance.now();
        try {
            for await (const r of backend.generate(requests())) {
                // Leaving the loop tells the backend to drop the queries it has not started.
                if (signal.aborted) break;
                const q = pending.get(r.id);
                if (!q) continue;
                pending.delete(r.id);
                if (r.stopReason !== "error") {
                    await this.store(q, r, false, sha);
                    continue;
                }
                if (r.error === REPLAY_MISSING) {
                    this.missing.push(genKey(q.key));
                    s.missing++;
                    writer.addGeneration({
                        ...q.key, seed: q.seed, prompt: JSON.stringify(q.messages), response: "", code: null, stopReason: "error",
                        promptTokens: 0, generatedTokens: 0, ttftMs: 0, genMs: 0, missing: true
                    });
                    s.generated++;
                } else {
                    // Not stored: a resume asks again.
                    s.errors++;
                    if (s.errors <= 5) this.o.log(`generation failed for ${q.template.id} #${q.instance.index} round ${q.key.round}: ${r.error ?? "unknown error"}`);
                }
            }
        } finally {
            s.genWall += performance.now() - s.genStart;
            s.genStart = 0;
        }
    }

    /** Extract the code, store the response (and, when fresh, its cache entry), and pass it on to the judge. */
    private store(q: Query, r: Pick<GenerationResult, "text" | "stopReason" | "promptTokens" | "generatedTokens" | "ttftMs" | "genMs">, cached: boolean, sha: string | null): Promise<void> {
        const s = this.o.counters;
        const code = extractCode(r.text, q.template.function);
        const g: NewGeneration = {
            ...q.key, seed: q.seed, prompt: JSON.stringify(q.messages), response: r.text, code, stopReason: r.stopReason,
            promptTokens: r.promptTokens, generatedTokens: r.generatedTokens, ttftMs: r.ttftMs, genMs: r.genMs, cached
        };
        this.o.writer.addGeneration(g, !cached && q.cacheKey !== undefined ? { key: q.cacheKey, modelSha256: sha! } : undefined);
        s.generated++;
        s.tokens += cached ? 0 : r.generatedTokens;
        if (cached) s.cached++;
        return this.o.judge({ key: q.key, template: q.template, instance: q.instance, code, stopReason: r.stopReason, fences: countFences(r.text) });
    }
}
