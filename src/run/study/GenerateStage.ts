import { resumeCommand } from "../../util/commandLine.js";
import { createHash } from "node:crypto";
import { EddyError } from "../../util/errors.js";
import { deriveSeed } from "../../util/seeds.js";
import { extractCode } from "../../extract/extractCode.js";
import { backendDescriptor, createBackend, type BackendParts, type CacheIdentity, type ModelSource } from "../../inference/backends.js";
import type { Backend, BackendMetadata, Decoding, GenerationRequest, GenerationResult, TaskRef } from "../../inference/types.js";
import { decodingFor } from "../../inference/decoding.js";
import { renderMessages } from "../../prompts/PromptWrapper.js";
import type { Store } from "../../store/Store.js";
import type { ConfigurationRow, NewGeneration, RunRow } from "../../store/types.js";
import type { ChatMessage } from "../../vocabulary.js";
import type { StudyConfig } from "../config.js";
import type { StudyPlan } from "../plan.js";
import type { BatchWriter } from "../writer.js";
import type { StudyCounters } from "./counters.js";
import { countFences } from "./JudgeStage.js";
import { checkModelUnchanged } from "./openRun.js";
import { isStopped, unlessStopped } from "../../util/abort.js";
import { recordGenerationUsage } from "../../store/quantStudy.js";
import { genKey, type JudgeItem, type Query } from "./types.js";

/** A lockstep group of one configuration: its members in member order, and which are stored already. */
interface LockstepGroup {
    id: string;
    members: Query[];
    done: boolean[];
}

/** What one pass of a model's backend computed: responses (generated, not taken from the cache) and their tokens. */
interface Generated {
    responses: number;
    generatedTokens: number;
    promptTokens: number;
}

/** What is sent to the backend together: a lockstep group (with its id), or one query. */
interface Unit {
    id?: string;
    members: { query: Query; stored: boolean }[];
}

/** The groups as units of requests. */
function lockstepRequests(groups: LockstepGroup[]): Unit[] {
    return groups.map((g) => ({ id: g.id, members: g.members.map((query, i) => ({ query, stored: g.done[i]! })) }));
}

/** What a cached response depends on besides the request: the model (as its backend identifies it) and how its prompts are rendered and fit. */
export type CacheModel = CacheIdentity;

/**
 * Key of a response in the response cache: the model file's sha256 plus everything that decides
 * the rendered prompt (messages, prompt format, context size) and the decoding (settings, seed,
 * max tokens, and the decoding mode: a fast-mode answer never stands in for a reproducible one).
 * These are the keys of one context per query (G = 1); lockstep members have {@link lockstepCacheKeys}.
 */
export function responseCacheKey(model: CacheModel, messages: ChatMessage[], decoding: Decoding, seed: number, maxTokens: number): string {
    const parts: unknown[] = [model.sha256, model.promptFormat ?? null, model.contextSize ?? null, messages, decoding, seed, maxTokens];
    // Keys of the batched mode stay what they were before modes existed.
    if (model.mode !== undefined && model.mode !== "fast") parts.push(model.mode);
    // Keys without a chosen KV-cache type stay what they were before `--kv-cache`.
    if (model.kvCache !== undefined) parts.push({ kvCache: model.kvCache });
    return createHash("sha256").update(JSON.stringify(parts)).digest("hex");
}

/**
 * Keys of a lockstep group's responses: a member's answer depends on the whole group (every member's
 * request, in order), G (the context's sequence count) and the prompt chunk size, so a cached answer
 * is only reused for the same member of the same group.
 */
export function lockstepCacheKeys(
    model: CacheModel,
    groupSize: number,
    members: readonly Pick<Query, "messages" | "decoding" | "seed">[],
    maxTokens: number
): string[] {
    const group = createHash("sha256")
        .update(JSON.stringify(members.map((m) => [m.messages, m.decoding, m.seed])))
        .digest("hex");
    const parts: unknown[] = [model.sha256, model.promptFormat ?? null, model.contextSize ?? null, model.batchSize ?? null, "lockstep", groupSize, maxTokens, group];
    if (model.kvCache !== undefined) parts.push({ kvCache: model.kvCache });
    return members.map((_, i) => createHash("sha256").update(JSON.stringify([...parts, i])).digest("hex"));
}

/**
 * Lockstep: items cut into groups of G per neighbourhood, in their order (the last may be smaller);
 * a group's id is its neighbourhood and its place there. A neighbourhood's answers then never depend
 * on which others the batch holds.
 */
export function lockstepCut<T>(items: readonly T[], neighbourhood: (item: T) => string, groupSize: number): { id: string; members: T[] }[] {
    const byNeighbourhood = new Map<string, T[]>();
    for (const item of items) {
        const key = neighbourhood(item);
        const list = byNeighbourhood.get(key);
        if (list) list.push(item);
        else byNeighbourhood.set(key, [item]);
    }
    const out: { id: string; members: T[] }[] = [];
    for (const [key, list] of byNeighbourhood)
        for (let at = 0; at < list.length; at += groupSize) out.push({ id: `${key}#${at / groupSize}`, members: list.slice(at, at + groupSize) });
    return out;
}

/** One prompt of a batch handed to {@link GenerateStage.batch}. */
export interface BatchPrompt {
    /** Echoed in its result. */
    id: string;
    messages: ChatMessage[];
    decoding: Decoding;
    seed: number;
    /** Prompts of one neighbourhood (a template's) are grouped together in lockstep, as a run's are. */
    neighbourhood: string;
    task?: TaskRef;
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
        const descriptor = backendDescriptor(this.o.config.backend);
        for (const model of this.o.plan.models) {
            if (this.o.signal.aborted) break;
            this.o.counters.model = model.label;
            const gone = descriptor.sourceGone(model);
            if (gone)
                throw new EddyError(`${gone}; run ${this.o.run.id} kept everything so far: restore the file, then resume with`, 1, { next: resumeCommand(this.o.run.id, this.o.store.path) });
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

    /** Every query of one model's plan (template, instance, configuration, round), with whether it is stored already. */
    private planned(confs: ReturnType<GenerateStage["configurations"]>): { query: Query; done: boolean }[] {
        const { config, plan } = this.o;
        const out: { query: Query; done: boolean }[] = [];
        for (const t of plan.templates)
            for (const inst of plan.instances.get(t.id)!)
                for (const c of confs) {
                    const messages = renderMessages(c.wrapper.wrapper, inst.question);
                    for (let round = 0; round < config.rounds; round++) {
                        const key = { configId: c.row.id, templateId: t.id, instance: inst.index, round };
                        // Every request carries its own seed: sampling never depends on what ran before it.
                        const seed = deriveSeed(config.seed, t.id, inst.index, round);
                        out.push({ query: { key, template: t, instance: inst, messages, decoding: c.decoding, seed, prefixKey: `${c.row.id}|${t.id}|${inst.index}`, cacheKey: undefined }, done: c.done.has(genKey(key)) });
                    }
                }
        return out;
    }

    /**
     * Lockstep: the queries of each configuration and template, in plan order (instance, round), cut
     * into groups of G (the last may be smaller). A template's answers then never depend on which
     * other templates the study holds, and a study split into shards (configuration × template) on
     * several machines gives the bytes of one machine. Only groups with a query not yet stored are
     * kept, whole: a group is always decoded with all its members, so each comes out as it would in
     * an uninterrupted run.
     */
    private lockstepGroups(planned: { query: Query; done: boolean }[], groupSize: number, cacheModel: CacheModel | undefined): LockstepGroup[] {
        const out: LockstepGroup[] = [];
        for (const g of lockstepCut(planned, (p) => `${p.query.key.configId}|${p.query.key.templateId}`, groupSize)) {
            if (g.members.every((p) => p.done)) continue;
            const members = g.members.map((p) => p.query);
            const keys = cacheModel ? lockstepCacheKeys(cacheModel, groupSize, members, this.o.config.maxTokens) : undefined;
            out.push({ id: g.id, members: members.map((q, i) => ({ ...q, cacheKey: keys?.[i] })), done: g.members.map((p) => p.done) });
        }
        return out;
    }

    /**
     * A batch of prompts through an open backend, for a caller that keeps its own state and store (the
     * loop's steps): where the backend decodes in lockstep, the prompts of each neighbourhood are cut into
     * groups of G in batch order, as a run's queries are; otherwise each goes on its own. Results come in
     * completion order, each with its prompt's id; an abort stops reading (the backend drops the rest).
     */
    static async batch(backend: Backend, meta: BackendMetadata, prompts: readonly BatchPrompt[], o: { maxTokens: number; signal?: AbortSignal | undefined }): Promise<GenerationResult[]> {
        const request = (p: BatchPrompt, group?: GenerationRequest["group"]): GenerationRequest => ({
            id: p.id, messages: p.messages, decoding: p.decoding, seed: p.seed, maxTokens: o.maxTokens,
            ...(p.task ? { task: p.task } : {}),
            ...(group ? { group } : {})
        });
        const requests =
            meta.scheduling === "lockstep"
                ? lockstepCut(prompts, (p) => p.neighbourhood, meta.groupSize!).flatMap((g) => g.members.map((p, member) => request(p, { id: g.id, member, size: g.members.length })))
                : prompts.map((p) => request(p));
        const out: GenerationResult[] = [];
        for await (const r of backend.generate(requests)) {
            out.push(r);
            if (o.signal?.aborted) break;
        }
        return out;
    }

    private async model(model: ModelSource): Promise<void> {
        const { store, config, run, plan, counters: s } = this.o;
        // Which queries are still missing, per configuration; a configuration row needs backend metadata,
        // so look at the stored ones first and skip loading a model that has nothing left to do.
        const existingConfs = store.configurations(run.id).filter((c) => c.model === model.label);
        const total = plan.templates.reduce((n, t) => n + plan.instances.get(t.id)!.length, 0) * config.rounds;
        if (existingConfs.length === config.temperatures.length * plan.wrappers.length && existingConfs.every((c) => store.generatedKeys(c.id).size >= total)) return;

        s.phase = `loading ${model.label}`;
        // Ctrl-C while the model loads (or the judge pool the reference backend answers through starts): the
        // study stops at once; a backend that finishes opening after that is closed, never used.
        const { signal } = this.o;
        const opening = (async () => createBackend(config, model, { ...(await this.o.parts()), onWarning: (l: string) => this.o.log(`warning: ${l}`), signal }))();
        let backend: Backend | undefined;
        try {
            backend = await unlessStopped(opening, signal, (b) => b.close().catch(() => {}));
        } catch (err) {
            if (signal.aborted || isStopped(err)) return;
            throw err;
        }
        if (!backend) return;
        s.phase = "";
        try {
            const meta: BackendMetadata = await backend.metadata();
            const descriptor = backendDescriptor(config.backend);
            const sha = descriptor.identity(backend, meta);
            checkModelUnchanged(existingConfs.map((c) => c.model_sha256), sha, model.path ?? model.label, `run ${run.id}`);
            const confs = this.configurations(model, meta, sha);
            const cacheModel = descriptor.cacheIdentity(meta, sha);
            const planned = this.planned(confs);
            // The CPU the inference process spends on this model's answers, for tokens per CPU-second (quant studies).
            const cpuBefore = await backend.cpuSeconds?.();
            const wallBefore = performance.now();
            let made: Generated;
            if (meta.scheduling === "lockstep") {
                const groups = this.lockstepGroups(planned, meta.groupSize!, cacheModel);
                s.total += groups.reduce((n, g) => n + g.done.filter((d) => !d).length, 0);
                made = await this.generate(backend, lockstepRequests(groups), sha);
            } else {
                const queries = planned.filter((p) => !p.done).map((p) => ({ ...p.query, cacheKey: cacheModel && responseCacheKey(cacheModel, p.query.messages, p.query.decoding, p.query.seed, config.maxTokens) }));
                s.total += queries.length;
                made = await this.generate(backend, queries.map((q) => ({ members: [{ query: q, stored: false }] })), sha);
            }
            const cpuAfter = await backend.cpuSeconds?.();
            if (cpuBefore !== undefined && cpuAfter !== undefined && made.responses > 0) {
                recordGenerationUsage(store, {
                    runId: run.id, model: model.label, cpuMs: (cpuAfter - cpuBefore) * 1000, wallMs: performance.now() - wallBefore,
                    generatedTokens: made.generatedTokens, promptTokens: made.promptTokens, responses: made.responses, threads: typeof meta.threads === "number" ? meta.threads : null
                });
            }
        } finally {
            await backend.close().catch(() => {});
        }
    }

    /**
     * Stream the queries through the backend; answers come back in completion order. Queries come in
     * units that are answered from the cache together or not at all (a lockstep group, or one query).
     * A stored query (a lockstep member generated again with its group) is compared with what is
     * stored, never stored twice.
     */
    private async generate(backend: Backend, units: Unit[], sha: string | null): Promise<Generated> {
        const { store, config, counters: s, writer, signal } = this.o;
        const pending = new Map<string, { q: Query; stored: boolean }>();
        const made: Generated = { responses: 0, generatedTokens: 0, promptTokens: 0 };
        // The generator below is a `function*` (no arrow form): it stores through this bound method.
        const storeOne = this.store.bind(this);
        async function* requests(): AsyncGenerator<GenerationRequest> {
            for (const unit of units) {
                if (signal.aborted) return;
                const fresh = unit.members.filter((m) => !m.stored);
                if (!config.noCache && fresh.every((m) => m.query.cacheKey !== undefined)) {
                    const hits = fresh.map((m) => store.cachedResponse(m.query.cacheKey!));
                    if (hits.every((h) => h !== undefined)) {
                        for (const [i, hit] of hits.entries())
                            await storeOne(fresh[i]!.query, { text: hit!.response, stopReason: hit!.stop_reason, promptTokens: hit!.prompt_tokens, generatedTokens: hit!.generated_tokens, ttftMs: 0, genMs: 0 }, true, sha);
                        continue;
                    }
                }
                for (const [member, m] of unit.members.entries()) {
                    const q = m.query;
                    const id = `${q.key.configId}|${genKey(q.key)}`;
                    pending.set(id, { q, stored: m.stored });
                    yield {
                        id, messages: q.messages, decoding: q.decoding, seed: q.seed, maxTokens: config.maxTokens, prefixKey: q.prefixKey,
                        task: { templateId: q.template.id, instance: q.instance.index, round: q.key.round, params: q.instance.params },
                        ...(unit.id !== undefined ? { group: { id: unit.id, member, size: unit.members.length } } : {})
                    };
                }
            }
        }
        s.genStart = performance.now();
        try {
            for await (const r of backend.generate(requests())) {
                // Leaving the loop tells the backend to drop the queries it has not started.
                if (signal.aborted) break;
                const p = pending.get(r.id);
                if (!p) continue;
                pending.delete(r.id);
                const q = p.q;
                // Whatever the model computed counts (a lockstep member generated again to be checked included).
                if (!r.missing) {
                    made.responses++;
                    made.generatedTokens += r.generatedTokens;
                    made.promptTokens += r.promptTokens;
                }
                if (p.stored) {
                    this.verify(q, r);
                    continue;
                }
                if (r.stopReason !== "error") {
                    await this.store(q, r, false, sha);
                    continue;
                }
                if (r.missing) {
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
        return made;
    }

    /** A stored response generated again (its lockstep group was resumed): it must come out the same, byte for byte. */
    private verify(q: Query, r: GenerationResult): void {
        const s = this.o.counters;
        s.tokens += r.generatedTokens;
        if (r.stopReason === "error") return;
        const stored = this.o.store.storedResponse(q.key);
        if (stored === undefined) return;
        s.regenerated++;
        if (stored === r.text) return;
        s.mismatched++;
        let at = 0;
        while (at < stored.length && stored[at] === r.text[at]) at++;
        this.o.log(`determinism: ${genKey(q.key)} (configuration ${q.key.configId}) generated again with its group differs from the stored response at character ${at}; the stored one is kept`);
    }

    /** Extract the code, store the response (and, when fresh, its cache entry), and pass it on to the judge. */
    private store(q: Query, r: Pick<GenerationResult, "text" | "stopReason" | "promptTokens" | "generatedTokens" | "ttftMs" | "genMs">, cached: boolean, sha: string | null): Promise<void> {
        const s = this.o.counters;
        const code = extractCode(r.text, q.template.function, this.o.config.language);
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
