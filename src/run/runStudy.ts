import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { EddyError, isEddyError, oneLine } from "../util/errors.js";
import { eddyVersion } from "../util/paths.js";
import { deriveSeed } from "../util/seeds.js";
import { JudgePool } from "../judge/JudgePool.js";
import { extractCode } from "../extract/extractCode.js";
import { createLlamaBackend, type GpuChoice } from "../inference/llama/LlamaBackend.js";
import { ReferenceBackend } from "../inference/reference/ReferenceBackend.js";
import { REPLAY_MISSING, ReplayBackend } from "../inference/replay/ReplayBackend.js";
import { renderMessages } from "../prompts/PromptWrapper.js";
import type { Backend, BackendMetadata, ChatMessage, Decoding, GenerationRequest, GenerationResult, StopReason } from "../inference/types.js";
import type { Category, Verdict } from "../judge/types.js";
import type { Template } from "../templates/types.js";
import { openStore, Store, StoreVerdictCache } from "../store/Store.js";
import { requireRun } from "../store/outcomes.js";
import type { ConfigurationRow, GenerationKey, NewGeneration, StoredInstance } from "../store/types.js";
import { Channel } from "./channel.js";
import { isRemoteModel } from "../inference/modelUri.js";
import { identityOf, normalizeStudyConfig, OPERATIONAL_KEYS, studyHash, type StudyConfig } from "./config.js";
import { planStudy, type StudyPlan } from "./plan.js";
import { BatchWriter } from "./writer.js";
import { defaultDbPath } from "../util/paths.js";

/** A snapshot of a running study, for progress displays. */
export interface StudyProgress {
    runId: string;
    /** Queries this session has to answer (after resume and cache), and how many are done. */
    total: number;
    generated: number;
    /** Answered from the response cache. */
    cached: number;
    /** Verdicts this session has to produce, and how many are done. */
    toJudge: number;
    judged: number;
    passed: number;
    tokens: number;
    errors: number;
    tokensPerS: number;
    verdictsPerS: number;
    /** Seconds left, estimated from the slower stage; undefined until there is a rate. */
    etaS: number | undefined;
    elapsedS: number;
    /** The model now generating. */
    model: string;
}

/** Per-stage throughput of one session of a study. */
export interface StudyStats {
    wallMs: number;
    generation: { responses: number; cached: number; missing: number; errors: number; tokens: number; wallMs: number; tokensPerS: number; responsesPerS: number };
    judging: { verdicts: number; cached: number; wallMs: number; judgeMs: number; verdictsPerS: number };
    store: { rows: number; transactions: number; ms: number; rowsPerS: number };
}

/** Callbacks and switches for `runStudy`. */
export interface StudyHooks {
    /** Called about twice a second and at the end. */
    onProgress?(p: StudyProgress): void;
    /** Informational lines (warnings, missing answers). */
    onLog?(line: string): void;
    /** Called as soon as the run id is known. */
    onRunId?(id: string): void;
    /** Called when a model's generation is finished (tests use it to remove the next model). */
    onModelDone?(model: string): void;
    /** Aborting stops cleanly: queued queries are dropped, results already received are written and judged, run marked interrupted. */
    signal?: AbortSignal;
    /** false: generate and store only (benchmarks measure generation alone this way). */
    judge?: boolean;
    /** Progress interval, ms (default 500). */
    progressMs?: number;
}

/** What a study session ends with. */
export interface StudyResult {
    runId: string;
    status: "complete" | "interrupted";
    /** True when this session created the run (false: resumed). */
    created: boolean;
    stats: StudyStats;
    /** Replay answers missing from the file: `template|instance|round`. */
    missing: string[];
}

/** One query of the plan. */
interface Query {
    key: GenerationKey;
    template: Template;
    instance: StoredInstance;
    messages: ChatMessage[];
    decoding: Decoding;
    seed: number;
    prefixKey: string;
    /** Response-cache key (llama backend with a hashed model file only); computed once per query. */
    cacheKey: string | undefined;
}

/** One response waiting for its verdict. */
interface JudgeItem {
    key: GenerationKey;
    template: Template;
    instance: StoredInstance;
    code: string | null;
    stopReason: StopReason;
    /** Number of ``` fences in the response: two or more mean a code block was closed before any cut. */
    fences: number;
}

const TRUNCATING: ReadonlySet<StopReason> = new Set(["max_tokens", "context_full"]);

/**
 * The truncation rule: a response cut off by max tokens or the context that fails the judge is
 * `truncated` (the harness's limit, not the model's failure) unless it had already closed a
 * fenced code block, in which case the cut came after the code and the verdict stands.
 * Passing code still passes, and `judge_error` stays what it is.
 */
export function finalCategory(judged: Category, stop: StopReason, fences = 0): Category {
    if (TRUNCATING.has(stop) && fences < 2 && judged !== "passed" && judged !== "judge_error") return "truncated";
    return judged;
}

/** How many ``` fences a response has (the same count the store computes in SQL for re-judging). */
export function countFences(text: string): number {
    return text.split("```").length - 1;
}

/**
 * Key of a response in the response cache: the model file's sha256 plus everything that decides
 * the rendered prompt (messages, prompt format, context size) and the decoding (settings, seed, max tokens).
 */
export function responseCacheKey(model: { sha256: string; promptFormat?: string | undefined; contextSize?: number | undefined }, messages: ChatMessage[], decoding: Decoding, seed: number, maxTokens: number): string {
    return createHash("sha256")
        .update(JSON.stringify([model.sha256, model.promptFormat ?? null, model.contextSize ?? null, messages, decoding, seed, maxTokens]))
        .digest("hex");
}

const genKey = (k: { templateId: string; instance: number; round: number }): string => `${k.templateId}|${k.instance}|${k.round}`;

/** A new run id: date plus random hex, readable and sortable. */
function newRunId(): string {
    const d = new Date().toISOString().slice(0, 10).replace(/-/g, "");
    return `${d}-${randomBytes(3).toString("hex")}`;
}

/** The decoding of a configuration: greedy at temperature 0, the sampling knobs otherwise. */
function decodingFor(c: StudyConfig, temperature: number): Decoding {
    if (temperature === 0) return { temperature: 0, ...(c.repeatPenalty !== undefined ? { repeatPenalty: c.repeatPenalty } : {}) };
    const d: Decoding = { temperature };
    if (c.topK !== undefined) d.topK = c.topK;
    if (c.topP !== undefined) d.topP = c.topP;
    if (c.minP !== undefined) d.minP = c.minP;
    if (c.repeatPenalty !== undefined) d.repeatPenalty = c.repeatPenalty;
    return d;
}

/** Load a stored run's configuration, with this session's operational settings on top. */
export function resumeConfig(store: Store, runId: string, overrides: Partial<StudyConfig> = {}): StudyConfig {
    const run = requireRun(store, runId);
    const ops: Record<string, unknown> = {};
    for (const k of OPERATIONAL_KEYS) if (overrides[k] !== undefined) ops[k] = overrides[k];
    return normalizeStudyConfig({ ...JSON.parse(run.config_json), ...ops, resume: run.id, db: store.path });
}

/**
 * Run (or continue) a study: plan it, generate every missing response, extract and judge
 * each as it arrives, and store everything. Generation and judging overlap through a
 * bounded queue; generation only waits when that queue is full.
 */
export async function runStudy(input: StudyConfig, hooks: StudyHooks = {}): Promise<StudyResult> {
    const wallStart = performance.now();
    const log = hooks.onLog ?? (() => {});
    const store = openStore(input.db ?? defaultDbPath());
    try {
        const config = input.resume ? resumeConfig(store, input.resume, input) : input;
        return await runWithStore(store, config, hooks, log, wallStart);
    } finally {
        store.close();
    }
}

async function runWithStore(store: Store, config: StudyConfig, hooks: StudyHooks, log: (l: string) => void, wallStart: number): Promise<StudyResult> {
    if (config.backend === "llama")
        for (const m of config.models) {
            // Checked before the run is created, so a typo leaves no empty run behind.
            if (isRemoteModel(m) && !config.allowDownload) throw new EddyError(`${m} is a remote model; eddy downloads nothing unless you pass --allow-download (or give a local GGUF file)`);
            if (!isRemoteModel(m) && !existsSync(m)) throw new EddyError(`model file not found: ${m}`);
        }
    // A replay file stands in for the model: read and validated before anything is stored.
    const replay = config.backend === "replay" ? new ReplayBackend(config.replay!) : undefined;
    const existing = config.resume ? requireRun(store, config.resume) : undefined;
    const plan: StudyPlan = planStudy(config, existing ? (t) => store.instances(existing.id, t) : undefined);
    const hash = studyHash(config, plan.templates.map((t) => t.id));
    const { run, created } = existing
        ? { run: existing, created: false }
        : store.createOrFindRun(
              { id: newRunId(), configHash: hash, config: identityOf(config), eddyVersion: eddyVersion(), backend: config.backend, seed: config.seed },
              !config.fresh
          );
    hooks.onRunId?.(run.id);
    if (!created) log(`continuing run ${run.id} (${run.status})`);

    // A template edited since the run began would mix two oracles in one run.
    const recorded = new Map(store.runTemplates(run.id).map((t) => [t.template_id, t.oracle_hash]));
    for (const t of plan.templates) {
        const h = recorded.get(t.id);
        if (h && h !== t.oracleHash) throw new EddyError(`template ${t.id} changed since run ${run.id} began (oracle hash differs); start a new run with --fresh`);
    }
    // Like a template, an edited replay file would mix two sets of answers in one run.
    if (replay)
        for (const c of store.configurations(run.id))
            if (c.model_sha256 && c.model_sha256 !== replay.sha256)
                throw new EddyError(`replay file ${config.replay} changed since run ${run.id} began (sha256 differs); start a new run with --fresh`);
    store.recordTemplates(run.id, plan.templates.map((t) => ({ id: t.id, oracleHash: t.oracleHash, group: t.group, subgroups: t.subgroups, function: t.function })));
    for (const t of plan.templates) store.insertInstances(run.id, plan.instances.get(t.id)!);
    store.setRunStatus(run.id, "running");

    // Read before the judge pool starts: nothing may throw between its start and the try that closes it.
    const configsById = new Map<number, ConfigurationRow>(store.configurations(run.id).map((c) => [c.id, c]));
    const judging = hooks.judge !== false;
    const verdictCache = new StoreVerdictCache(store);
    const needPool = judging || config.backend === "reference";

    const workers = Math.max(1, config.judgeWorkers ?? availableParallelism());
    const judgeQueue = new Channel<JudgeItem>(Math.max(16, workers * 8));
    let fatal: unknown;
    const stopController = new AbortController();
    const stop = (err?: unknown): void => {
        if (err !== undefined && fatal === undefined) fatal = err;
        stopController.abort();
        // Queued responses are already stored: dropping them here only leaves them for a resume to judge.
        judgeQueue.close();
        judgeQueue.clear();
    };
    // The judge's Python workers start while the model loads: neither waits for the other.
    const poolReady: Promise<JudgePool | undefined> = needPool
        ? JudgePool.start({ workers, cache: verdictCache }).then((p) => {
              store.setRunStatus(run.id, "running", { isolationLevel: p.isolation.level, isolation: p.isolation });
              return p;
          })
        : Promise.resolve(undefined);
    poolReady.catch((err) => stop(err));
    const onAbort = (): void => stop();
    hooks.signal?.addEventListener("abort", onAbort);
    if (hooks.signal?.aborted) stop();

    const writer = new BatchWriter(store, verdictCache, (err) => stop(err));
    const byId = new Map(plan.templates.map((t) => [t.id, t]));
    const missing: string[] = [];

    const s = {
        total: 0, generated: 0, cached: 0, toJudge: 0, judged: 0, passed: 0, tokens: 0, errors: 0, missing: 0, judgeCached: 0, judgeMs: 0,
        genStart: 0, genWall: 0, judgeStart: 0, judgeEnd: 0, model: ""
    };

    const progress = (): StudyProgress => {
        const elapsedS = (performance.now() - wallStart) / 1000;
        const genS = (s.genWall + (s.genStart ? performance.now() - s.genStart : 0)) / 1000;
        const judgeS = s.judgeStart ? ((s.judgeEnd || performance.now()) - s.judgeStart) / 1000 : 0;
        const genRate = genS > 0 ? s.generated / genS : 0;
        const judgeRate = judgeS > 0 ? s.judged / judgeS : 0;
        const genLeft = s.total - s.generated;
        const judgeLeft = s.toJudge - s.judged;
        const eta =
            (genLeft > 0 && genRate === 0) || (judging && judgeLeft > 0 && judgeRate === 0)
                ? undefined
                : Math.max(genLeft > 0 ? genLeft / genRate : 0, judging && judgeLeft > 0 ? judgeLeft / judgeRate : 0);
        return {
            runId: run.id, total: s.total, generated: s.generated, cached: s.cached, toJudge: s.toJudge, judged: s.judged, passed: s.passed,
            tokens: s.tokens, errors: s.errors, tokensPerS: genS > 0 ? s.tokens / genS : 0, verdictsPerS: judgeRate, etaS: eta, elapsedS, model: s.model
        };
    };
    const ticker = hooks.onProgress ? setInterval(() => hooks.onProgress!(progress()), hooks.progressMs ?? 500) : undefined;

    // ---- judging stage: a few consumers keep the judge pool's workers busy -------------------
    const judgeOne = async (item: JudgeItem): Promise<void> => {
        if (!s.judgeStart) s.judgeStart = performance.now();
        let v: Verdict;
        try {
            v = await (await poolReady)!.judge({ template: item.template, bindings: item.instance.bindings, code: item.code });
        } catch (err) {
            // The judge itself failed: leave the generation without a verdict, so a resume judges it again.
            s.errors++;
            log(`judge failed on ${item.template.id} #${item.key.instance} round ${item.key.round}: ${oneLine(err)}`);
            return;
        }
        if (v.category === "judge_error") log(`judge_error on ${item.template.id} #${item.key.instance} round ${item.key.round}: ${v.detail}`);
        const category = finalCategory(v.category, item.stopReason, item.fences);
        writer.addVerdict({ ...item.key, category, judgeCategory: v.category, detail: v.detail, ms: v.ms, cached: v.cached ?? false });
        s.judged++;
        s.judgeMs += v.ms;
        if (v.cached) s.judgeCached++;
        if (category === "passed") s.passed++;
        s.judgeEnd = performance.now();
    };
    const consumers = judging
        ? Array.from({ length: workers * 2 }, async () => {
              if (!(await poolReady.catch(() => undefined))) return;
              for (;;) {
                  const item = await judgeQueue.shift();
                  if (item === undefined || stopController.signal.aborted) return;
                  await judgeOne(item);
              }
          })
        : [];
    const toJudge = async (item: JudgeItem): Promise<void> => {
        if (!judging) return;
        s.toJudge++;
        await judgeQueue.push(item);
    };

    // A resumed run first judges what was generated but never judged (its judge died with it).
    // It runs beside generation, so a long re-judge never holds generation back.
    const rejudge = async (): Promise<void> => {
        if (!judging) return;
        for (const g of store.unjudged(run.id)) {
            const t = byId.get(g.template_id);
            const inst = plan.instances.get(g.template_id)?.[g.instance_idx];
            if (!t || !inst || !configsById.has(g.config_id)) continue;
            if (stopController.signal.aborted) break;
            await toJudge({ key: { configId: g.config_id, templateId: g.template_id, instance: g.instance_idx, round: g.round }, template: t, instance: inst, code: g.code, stopReason: g.stop_reason, fences: g.fences });
        }
    };
    const generateAll = async (): Promise<void> => {
        for (const model of plan.models) {
            if (stopController.signal.aborted) break;
            s.model = model.label;
            if (model.path && !isRemoteModel(model.path) && !existsSync(model.path))
                throw new EddyError(`model file not found: ${model.path} (run ${run.id} kept everything so far; restore the file and resume with 'eddy run --resume ${run.id}')`);
            await generateForModel(model);
            hooks.onModelDone?.(model.label);
        }
    };

    // ---- generation stage: one backend per model, its configurations' queries streamed through it ----
    // A failing part stops the whole session at once (and waits for the other part to wind down).
    const guard = (p: Promise<void>): Promise<void> =>
        p.catch((err) => {
            // After Ctrl-C the inference worker may die of the same SIGINT: that is the interruption, not a failure.
            if (stopController.signal.aborted && fatal === undefined) log(`stopped: ${oneLine(err)}`);
            else stop(err);
        });
    try {
        await Promise.all([guard(rejudge()), guard(generateAll())]);
    } finally {
        judgeQueue.close();
        await Promise.all(consumers);
        writer.flush();
        if (ticker) clearInterval(ticker);
        await poolReady.then((p) => p?.close()).catch(() => {});
        hooks.signal?.removeEventListener("abort", onAbort);
    }

    async function generateForModel(model: { label: string; path?: string }): Promise<void> {
        // Which queries are still missing, per configuration; a configuration row needs backend metadata,
        // so look at the stored ones first and skip loading a model that has nothing left to do.
        const existingConfs = store.configurations(run.id).filter((c) => c.model === model.label);
        const total = plan.templates.reduce((n, t) => n + plan.instances.get(t.id)!.length, 0) * config.rounds;
        const complete =
            existingConfs.length === config.temperatures.length * plan.wrappers.length && existingConfs.every((c) => store.generatedKeys(c.id).size >= total);
        if (complete) return;

        const backend = await openBackend(model);
        try {
            const meta: BackendMetadata = await backend.metadata();
            const sha = meta.model?.sha256 ?? (backend instanceof ReplayBackend ? backend.sha256 : null);
            // A model file replaced at the same path would mix two models' answers in one configuration.
            if (sha && existingConfs.some((c) => c.model_sha256 && c.model_sha256 !== sha))
                throw new EddyError(`model file ${model.path ?? model.label} changed since run ${run.id} began (sha256 differs); start a new run with --fresh`);
            const confs: { row: ConfigurationRow; wrapper: StudyPlan["wrappers"][number]; decoding: Decoding; done: Set<string> }[] = [];
            for (const temperature of config.temperatures)
                for (const w of plan.wrappers) {
                    const decoding = decodingFor(config, temperature);
                    const row = store.upsertConfiguration({
                        runId: run.id, model: model.label, modelPath: model.path ?? null, modelSha256: sha, quantization: meta.model?.quantization ?? null,
                        temperature, wrapper: w.id, decoding, metadata: { ...meta, maxTokens: config.maxTokens }
                    });
                    confs.push({ row, wrapper: w, decoding, done: store.generatedKeys(row.id) });
                }
            const useCache = config.backend === "llama" && !!meta.model?.sha256;
            const cacheModel = { sha256: sha ?? "", promptFormat: meta.promptFormat, contextSize: meta.contextSize };
            const queries: Query[] = [];
            for (const t of plan.templates)
                for (const inst of plan.instances.get(t.id)!)
                    for (const c of confs) {
                        const messages = renderMessages(c.wrapper.wrapper, inst.question);
                        for (let round = 0; round < config.rounds; round++) {
                            const key = { configId: c.row.id, templateId: t.id, instance: inst.index, round };
                            if (c.done.has(genKey(key))) continue;
                            const seed = deriveSeed(config.seed, t.id, inst.index, round);
                            queries.push({
                                key, template: t, instance: inst, messages, decoding: c.decoding,
                                seed, prefixKey: `${c.row.id}|${t.id}|${inst.index}`,
                                cacheKey: useCache ? responseCacheKey(cacheModel, messages, c.decoding, seed, config.maxTokens) : undefined
                            });
                        }
                    }
            s.total += queries.length;
            const pending = new Map<string, Query>();

            const store1 = (q: Query, r: Pick<GenerationResult, "text" | "stopReason" | "promptTokens" | "generatedTokens" | "ttftMs" | "genMs">, cached: boolean, fresh: boolean): Promise<void> => {
                const code = extractCode(r.text, q.template.function);
                const g: NewGeneration = {
                    ...q.key, seed: q.seed, prompt: JSON.stringify(q.messages), response: r.text, code, stopReason: r.stopReason,
                    promptTokens: r.promptTokens, generatedTokens: r.generatedTokens, ttftMs: r.ttftMs, genMs: r.genMs, cached
                };
                writer.addGeneration(g, fresh && q.cacheKey !== undefined ? { key: q.cacheKey, modelSha256: sha! } : undefined);
                s.generated++;
                s.tokens += cached ? 0 : r.generatedTokens;
                if (cached) s.cached++;
                return toJudge({ key: q.key, template: q.template, instance: q.instance, code, stopReason: r.stopReason, fences: countFences(r.text) });
            };

            async function* requests(): AsyncGenerator<GenerationRequest> {
                for (const q of queries) {
                    if (stopController.signal.aborted) return;
                    if (q.cacheKey !== undefined && !config.noCache) {
                        const hit = store.cachedResponse(q.cacheKey);
                        if (hit) {
                            await store1(q, { text: hit.response, stopReason: hit.stop_reason, promptTokens: hit.prompt_tokens, generatedTokens: hit.generated_tokens, ttftMs: 0, genMs: 0 }, true, false);
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
                    if (stopController.signal.aborted) break;
                    const q = pending.get(r.id);
                    if (!q) continue;
                    pending.delete(r.id);
                    if (r.stopReason === "error") {
                        if (r.error === REPLAY_MISSING) {
                            missing.push(genKey(q.key));
                            s.missing++;
                            writer.addGeneration({
                                ...q.key, seed: q.seed, prompt: JSON.stringify(q.messages), response: "", code: null, stopReason: "error",
                                promptTokens: 0, generatedTokens: 0, ttftMs: 0, genMs: 0, missing: true
                            });
                            s.generated++;
                        } else {
                            // Not stored: a resume asks again.
                            s.errors++;
                            if (s.errors <= 5) log(`generation failed for ${q.template.id} #${q.instance.index} round ${q.key.round}: ${r.error ?? "unknown error"}`);
                        }
                        continue;
                    }
                    await store1(q, r, false, true);
                }
            } finally {
                s.genWall += performance.now() - s.genStart;
                s.genStart = 0;
            }
        } finally {
            await backend.close().catch(() => {});
        }
    }

    async function openBackend(model: { label: string; path?: string }): Promise<Backend> {
        if (config.backend === "reference") return new ReferenceBackend((await poolReady)!, plan.templates);
        if (replay) return replay;
        try {
            return await createLlamaBackend({
                modelPath: model.path!,
                onWarning: log,
                ...(config.gpu !== undefined ? { gpu: config.gpu as GpuChoice } : {}),
                ...(config.threads !== undefined ? { threads: config.threads } : {}),
                ...(config.sequences !== undefined ? { sequences: config.sequences } : {}),
                ...(config.batchSize !== undefined ? { batchSize: config.batchSize } : {}),
                ...(config.contextSize !== undefined ? { contextSize: config.contextSize } : {}),
                ...(config.promptFormat !== undefined ? { promptFormat: config.promptFormat } : {}),
                ...(config.allowDownload !== undefined ? { allowDownload: config.allowDownload } : {}),
                ...(config.reproducible !== undefined ? { reproducible: config.reproducible } : {})
            });
        } catch (err) {
            if (isEddyError(err)) throw err;
            throw new EddyError(`cannot load model ${model.path}: ${oneLine(err)}`);
        }
    }

    // ---- wrap up ---------------------------------------------------------------------------------
    const wallMs = performance.now() - wallStart;
    const judgeWall = s.judgeStart ? s.judgeEnd - s.judgeStart : 0;
    const stats: StudyStats = {
        wallMs,
        generation: {
            responses: s.generated - s.missing, cached: s.cached, missing: s.missing, errors: s.errors, tokens: s.tokens, wallMs: s.genWall,
            tokensPerS: s.genWall > 0 ? (s.tokens * 1000) / s.genWall : 0, responsesPerS: s.genWall > 0 ? ((s.generated - s.cached) * 1000) / s.genWall : 0
        },
        judging: { verdicts: s.judged, cached: s.judgeCached, wallMs: judgeWall, judgeMs: s.judgeMs, verdictsPerS: judgeWall > 0 ? (s.judged * 1000) / judgeWall : 0 },
        store: { ...writer.stats, rowsPerS: writer.stats.ms > 0 ? (writer.stats.rows * 1000) / writer.stats.ms : 0 }
    };
    hooks.onProgress?.(progress());
    if (missing.length) log(`${missing.length} answer(s) missing from the replay file (recorded as missing, never judged): ${missing.slice(0, 20).join(", ")}${missing.length > 20 ? ", …" : ""}`);

    if (fatal !== undefined) {
        const err = fatal;
        try {
            store.setRunStatus(run.id, "failed", { error: oneLine(err), stats });
        } catch {
            // The database may be the very thing that failed (full, locked): the error below says so.
        }
        if (isEddyError(err)) throw err;
        throw new EddyError(`run ${run.id} stopped: ${oneLine(err)} (everything stored so far is kept; resume with 'eddy run --resume ${run.id}')`);
    }
    const c = store.counts(run.id);
    const expected = plan.queries;
    const complete = c.generations + c.missing >= expected && c.verdicts >= c.generations;
    const status = stopController.signal.aborted || !complete ? "interrupted" : "complete";
    store.setRunStatus(run.id, status, { stats, error: !complete && !stopController.signal.aborted ? `${expected - c.generations - c.missing} queries and ${c.generations - c.verdicts} verdicts left (errors: ${s.errors})` : null });
    return { runId: run.id, status, created, stats, missing };
}
