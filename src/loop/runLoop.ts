import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import { Embedder, cosine, inspectEmbedModel } from "../embed/Embedder.js";
import { extractCode } from "../extract/extractCode.js";
import { backendDescriptor, createBackend, DEFAULT_BACKEND, type BackendName } from "../inference/backends.js";
import { isRemoteModel } from "../inference/modelUri.js";
import { ReplayBackend } from "../inference/replay/ReplayBackend.js";
import type { Backend, GenerationRequest, GenerationResult } from "../inference/types.js";
import type { ChatMessage, ParamValue } from "../vocabulary.js";
import { JudgePool } from "../judge/JudgePool.js";
import { loadWrapper, renderMessages } from "../prompts/PromptWrapper.js";
import { countFences, finalCategory } from "../run/runStudy.js";
import { openStore } from "../store/Store.js";
import { sampleInstances } from "../templates/instances.js";
import { builtInLibrary, type TemplateLibrary } from "../templates/library.js";
import { loadTemplate, selectTemplates } from "../templates/loadTemplates.js";
import type { Template } from "../templates/types.js";
import { EddyError, oneLine } from "../util/errors.js";
import { defaultDbPath, eddyVersion } from "../util/paths.js";
import { deriveSeed } from "../util/seeds.js";
import { newLoopRunId, type LoopRunRow, type LoopStepRow, type LoopTaskRow } from "../store/loops.js";
import { missingRuntime } from "../judge/JudgePool.js";
import { wrapperFor, type Language } from "../languages/languages.js";
import { nextTranslation, parseChain, translationMessages, type TranslationNext } from "./translate.js";

/** Which backend answers in a loop study (the registered ones, as for a run). */
export type LoopBackendName = BackendName;

/** An EvaLOOP study of one model. */
export interface LoopConfig {
    backend: LoopBackendName;
    /** GGUF file (llama). */
    model?: string;
    /** JSONL of answers (replay): `round` is the turn, 2(k−1) for loop k's code and 2k−1 for its summary. */
    replay?: string;
    /** A second GGUF that writes the summaries (llama; default: the model itself). */
    summariser?: string;
    templates: string;
    /** Instances per template (tasks = templates × instances). */
    instances: number;
    /** M: loops at most (default 10). */
    maxLoops: number;
    seed: number;
    maxTokens: number;
    temperature: number;
    /** Prompt wrapper for the code requests. */
    wrapper: string;
    /** Embedding model folder: similarity of successive prompts (ASL's s at the failure boundary) and drift. */
    embedModel?: string;
    /** A translation loop over this chain of languages instead of the summary loop (src/loop/translate.ts); absent: the summary loop. */
    translate?: Language[];
    // Operational: they change how fast, not what.
    threads?: number;
    contextSize?: number;
    promptFormat?: string;
    judgeWorkers?: number;
    /** Let the judge run candidate code where no sandbox can be had. */
    allowUnsandboxed?: boolean;
    db?: string;
    fresh?: boolean;
    resume?: string;
}

const OPERATIONAL: (keyof LoopConfig)[] = ["threads", "judgeWorkers", "allowUnsandboxed", "db", "fresh", "resume"];

/** Defaults: the paper's 10 loops, greedy decoding. */
export const LOOP_DEFAULTS = { maxLoops: 10, instances: 5, seed: 1, maxTokens: 512, temperature: 0, wrapper: "default", templates: "all" } as const;

export interface LoopHooks {
    signal?: AbortSignal;
    onLog?: (line: string) => void;
    onRunId?: (id: string) => void;
    /** After each phase: loops done so far and tasks still looping. */
    onProgress?: (p: { phase: "code" | "summary"; loop: number; active: number; tasks: number }) => void;
    /** Where the templates and oracles come from (default: eddy's own). */
    library?: TemplateLibrary;
}

export interface LoopResult {
    runId: string;
    status: LoopRunRow["status"];
    tasks: number;
}

/** The prompt that turns passing code back into a task statement (after EvaLOOP's Listing 4.1). */
export function summaryMessages(functionName: string, code: string): ChatMessage[] {
    return [
        {
            role: "user",
            content:
                `Use one sentence to summarize the following code as a programming task, starting with "Write a python function named ${functionName} that". ` +
                `Keep the function name, its parameters and what it returns.\n` +
                "```python\n" + code.trimEnd() + "\n```"
        }
    ];
}

/** The task statement in a summary response: prose outside code fences, or a lone block's content; one paragraph. */
export function cleanSummary(response: string): string {
    const outside = response.replace(/```[^\n]*\n[\s\S]*?(```|$)/g, " ").trim();
    const text = outside !== "" ? outside : (/```[^\n]*\n([\s\S]*?)(```|$)/.exec(response)?.[1] ?? response);
    return text.replace(/\s+/g, " ").trim().slice(0, 4000);
}

/** Identity of a loop study: the same settings continue the same run. */
export function loopConfigHash(c: LoopConfig): string {
    const id: Record<string, unknown> = { ...c };
    for (const k of OPERATIONAL) delete id[k];
    return createHash("sha256").update(JSON.stringify(id, Object.keys(id).sort())).digest("hex");
}

/** Validate settings into a LoopConfig (paths made absolute). */
export function normalizeLoopConfig(raw: Partial<Record<keyof LoopConfig, unknown>>): LoopConfig {
    const backend = String(raw.backend ?? DEFAULT_BACKEND);
    const descriptor = backendDescriptor(backend);
    const int = (name: string, v: unknown, min: number): number => {
        const n = typeof v === "number" ? v : Number(v);
        if (!Number.isInteger(n) || n < min) throw new EddyError(`${name} must be an integer >= ${min} (got '${String(v)}')`);
        return n;
    };
    const temperature = Number(raw.temperature ?? LOOP_DEFAULTS.temperature);
    if (!Number.isFinite(temperature) || temperature < 0 || temperature > 5) throw new EddyError(`temperature must be between 0 and 5 (got '${String(raw.temperature)}')`);
    // A resumed run takes its stored settings; only the operational ones come from the caller.
    const resuming = raw.resume !== undefined;
    const missing = resuming ? undefined : descriptor.missing({ ...(raw.model ? { models: [String(raw.model)] } : {}), ...(raw.replay ? { replay: String(raw.replay) } : {}) });
    if (missing) throw new EddyError(missing);
    if (raw.summariser && !descriptor.decodes) throw new EddyError(`--summariser needs a backend that runs a model (${backend} answers summaries itself)`);
    const translate = raw.translate === undefined ? undefined : parseChain(raw.translate);
    if (translate && (raw.summariser || raw.embedModel)) throw new EddyError("--translate runs the translation loop (s = 1): --summariser and --embed-model apply to the summary loop");
    const abs = (v: unknown) => (v === undefined ? undefined : path.resolve(String(v)));
    const c: LoopConfig = {
        backend: descriptor.name as LoopBackendName,
        ...(descriptor.decodes && raw.model ? { model: abs(raw.model)! } : {}),
        ...(descriptor.needsReplayFile && raw.replay ? { replay: abs(raw.replay)! } : {}),
        ...(raw.summariser ? { summariser: abs(raw.summariser)! } : {}),
        templates: String(raw.templates ?? LOOP_DEFAULTS.templates),
        instances: int("instances", raw.instances ?? LOOP_DEFAULTS.instances, 1),
        maxLoops: int("loops", raw.maxLoops ?? LOOP_DEFAULTS.maxLoops, 1),
        seed: int("seed", raw.seed ?? LOOP_DEFAULTS.seed, 0),
        maxTokens: int("max tokens", raw.maxTokens ?? LOOP_DEFAULTS.maxTokens, 1),
        temperature,
        wrapper: String(raw.wrapper ?? LOOP_DEFAULTS.wrapper),
        ...(raw.embedModel ? { embedModel: abs(raw.embedModel)! } : {}),
        ...(translate ? { translate } : {}),
        ...(raw.threads !== undefined ? { threads: int("threads", raw.threads, 1) } : {}),
        ...(raw.contextSize !== undefined ? { contextSize: int("context size", raw.contextSize, 16) } : {}),
        ...(raw.promptFormat !== undefined ? { promptFormat: String(raw.promptFormat) } : {}),
        ...(raw.judgeWorkers !== undefined ? { judgeWorkers: int("judge workers", raw.judgeWorkers, 1) } : {}),
        ...(raw.allowUnsandboxed ? { allowUnsandboxed: true } : {}),
        ...(raw.db !== undefined ? { db: abs(raw.db)! } : {}),
        ...(raw.fresh ? { fresh: true } : {}),
        ...(raw.resume !== undefined ? { resume: String(raw.resume) } : {})
    };
    return c;
}

/** What a task does next. */
type Next = { kind: "code"; loop: number; question: string } | { kind: "summary"; loop: number; question: string; code: string } | { kind: "done" };

/** Where a task stands, from its stored steps (this is what makes a loop study resumable). */
export function nextStep(task: LoopTaskRow, steps: LoopStepRow[], maxLoops: number): Next {
    const last = steps[steps.length - 1];
    if (!last) return { kind: "code", loop: 1, question: task.question };
    if (last.category !== "passed" || last.loop >= maxLoops) return { kind: "done" };
    if (last.summary === null) return { kind: "summary", loop: last.loop, question: last.question, code: last.code ?? "" };
    return { kind: "code", loop: last.loop + 1, question: last.summary };
}

/**
 * Run (or continue) an EvaLOOP study: for every task, code from the question; if it passes the
 * oracle, a summary of that code becomes the next question; until a failure or M loops. Each
 * phase goes to the backend as one batch, so llama's parallel sequences stay busy.
 */
export async function runLoop(input: LoopConfig, hooks: LoopHooks = {}): Promise<LoopResult> {
    const log = hooks.onLog ?? (() => {});
    const library = hooks.library ?? builtInLibrary();
    // Checked before a run is created: a bad template list or model folder must not leave an empty run behind.
    const selected = input.resume ? [] : selectTemplates(library, input.templates);
    if (input.embedModel) inspectEmbedModel(input.embedModel);
    for (const m of [input.model, input.summariser])
        if (m && !isRemoteModel(m) && !existsSync(m)) throw new EddyError(`model file ${m} does not exist`);
    const store = openStore(input.db ?? defaultDbPath());
    const ls = store.loops;
    let config = input;
    let run: LoopRunRow;
    // A run this call created, or one whose work has begun, is marked failed on an error; an existing
    // run that is refused (a changed model) keeps its status.
    let markFailed = false;
    if (input.resume) {
        try {
            run = ls.requireRun(input.resume);
        } catch (err) {
            store.close();
            throw err;
        }
        const stored = JSON.parse(run.config_json) as LoopConfig;
        config = { ...stored, ...Object.fromEntries(OPERATIONAL.filter((k) => input[k] !== undefined).map((k) => [k, input[k]])) };
    } else {
        const hash = loopConfigHash(input);
        const found = input.fresh ? undefined : ls.findByConfigHash(hash);
        run = found ?? ls.createRun({
            id: newLoopRunId(),
            config_hash: hash,
            config_json: JSON.stringify(Object.fromEntries(Object.entries(input).filter(([k]) => !OPERATIONAL.includes(k as keyof LoopConfig)))),
            eddy_version: eddyVersion(),
            backend: input.backend,
            model: backendDescriptor(input.backend).models({ ...(input.model ? { models: [input.model] } : {}), ...(input.replay ? { replay: input.replay } : {}) })[0]!.label,
            model_path: input.model ?? input.replay ?? null,
            model_sha256: null,
            quantization: null,
            summariser: input.summariser ? path.basename(input.summariser).replace(/\.gguf$/i, "") : null,
            metadata_json: null,
            isolation_level: null
        });
        if (found) log(`continuing loop run ${found.id} (same settings; --fresh starts a new one)`);
        markFailed = !found;
    }
    hooks.onRunId?.(run.id);
    if (run.status === "complete") {
        const n = ls.tasks(run.id).length;
        store.close();
        return { runId: run.id, status: "complete", tasks: n };
    }

    // Tasks: sampled once, then always read back (a resumed run keeps its instances).
    const templates = new Map<string, Template>();
    if (ls.tasks(run.id).length === 0) {
        const rows: LoopTaskRow[] = [];
        for (const t of selected.length > 0 ? selected : selectTemplates(library, config.templates)) {
            templates.set(t.id, t);
            for (const inst of sampleInstances(t, config.instances, config.seed))
                rows.push({ run_id: run.id, template_id: t.id, instance_idx: inst.index, params_json: JSON.stringify(inst.params), bindings_json: JSON.stringify(inst.bindings), question: inst.question, oracle_hash: t.oracleHash });
        }
        ls.addTasks(rows);
    }
    const tasks = ls.tasks(run.id);
    for (const t of tasks) {
        if (!templates.has(t.template_id)) templates.set(t.template_id, loadTemplate(library, t.template_id));
        if (templates.get(t.template_id)!.oracleHash !== t.oracle_hash)
            throw new EddyError(`template ${t.template_id} changed since loop run ${run.id} began (oracle hash differs); start a new run with --fresh`);
    }
    const wrapper = loadWrapper(config.wrapper);

    let judge: JudgePool | undefined;
    let backend: Backend | undefined;
    let summariser: Backend | undefined;
    let embedder: Embedder | undefined;
    try {
        judge = await JudgePool.start({ ...(config.judgeWorkers ? { workers: config.judgeWorkers } : {}), ...(config.allowUnsandboxed ? { allowUnsandboxed: true } : {}) });
        for (const lang of new Set(config.translate ?? [])) {
            const missing = missingRuntime(lang, judge.runtimes);
            if (missing) throw new EddyError(missing);
        }
        backend = await openBackend(config, config.model, judge, [...templates.values()], log);
        summariser = config.summariser ? await openBackend(config, config.summariser, judge, [...templates.values()], log) : backend;
        if (config.embedModel) embedder = await Embedder.load(config.embedModel);
        const meta = await backend.metadata();
        const sha = backendDescriptor(config.backend).identity(backend, meta);
        if (run.model_sha256 && sha && run.model_sha256 !== sha)
            throw new EddyError(`model ${run.model_path} changed since loop run ${run.id} began (sha256 differs); start a new run with --fresh`);
        markFailed = true;
        ls.markRunning(run.id, sha, meta.model?.quantization ?? null);
        ls.setMetadata(run.id, { ...meta, ...(summariser !== backend ? { summariser: await summariser.metadata() } : {}), isolation: judge.isolation }, judge.isolation.level);

        const byTask = new Map<string, LoopStepRow[]>();
        const key = (t: string, i: number) => `${t}#${i}`;
        for (const s of ls.steps(run.id)) {
            const k = key(s.template_id, s.instance_idx);
            if (!byTask.has(k)) byTask.set(k, []);
            byTask.get(k)!.push(s);
        }
        const firstQuestion = new Map(tasks.map((t) => [key(t.template_id, t.instance_idx), t.question]));
        const stalled = new Set<string>();
        let errors = 0;

        for (;;) {
            if (hooks.signal?.aborted) break;
            const plans = tasks
                .filter((t) => !stalled.has(key(t.template_id, t.instance_idx)))
                .map((t): { task: LoopTaskRow; next: Next | TranslationNext } => {
                    const steps = byTask.get(key(t.template_id, t.instance_idx)) ?? [];
                    const chain = config.translate;
                    return { task: t, next: chain ? nextTranslation(templates.get(t.template_id)!, t.question, steps, chain, config.maxLoops) : nextStep(t, steps, config.maxLoops) };
                });
            const coding = plans.filter((p) => p.next.kind === "code");
            const summarising = plans.filter((p) => p.next.kind === "summary");
            if (coding.length === 0 && summarising.length === 0) break;

            // Summaries first: they unblock the next loop's code.
            if (summarising.length > 0) {
                const reqs = summarising.map(({ task, next }) => {
                    const n = next as Extract<Next, { kind: "summary" }>;
                    const t = templates.get(task.template_id)!;
                    return {
                        id: key(task.template_id, task.instance_idx),
                        messages: summaryMessages(t.function, n.code),
                        decoding: { temperature: config.temperature },
                        seed: deriveSeed(config.seed, task.template_id, task.instance_idx, n.loop, "summary"),
                        maxTokens: config.maxTokens,
                        task: { templateId: task.template_id, instance: task.instance_idx, round: 2 * n.loop - 1, params: JSON.parse(task.params_json) as ParamValue[] }
                    } satisfies GenerationRequest;
                });
                const results = await collect(summariser.generate(reqs), hooks.signal);
                const ok = results.filter((r) => {
                    if (r.stopReason !== "error") return true;
                    stalled.add(r.id);
                    errors++;
                    log(`summary for ${r.id} failed: ${r.error ?? "error"} (the task stops here; resume to retry)`);
                    return false;
                });
                const summaries = ok.map((r) => cleanSummary(r.text));
                const questions = ok.map((r) => (summarising.find((p) => key(p.task.template_id, p.task.instance_idx) === r.id)!.next as { question: string }).question);
                let sims: (number | null)[] = ok.map(() => null), drifts: (number | null)[] = ok.map(() => null);
                if (embedder && ok.length > 0) {
                    const firsts = ok.map((r) => firstQuestion.get(r.id)!);
                    const vecs = await embedder.embed([...questions, ...summaries, ...firsts]);
                    const n = ok.length;
                    sims = ok.map((_, i) => cosine(vecs[i]!, vecs[n + i]!));
                    drifts = ok.map((_, i) => cosine(vecs[2 * n + i]!, vecs[n + i]!));
                }
                const rows = ok.map((r, i) => {
                    const p = summarising.find((x) => key(x.task.template_id, x.task.instance_idx) === r.id)!;
                    const req = reqs.find((q) => q.id === r.id)!;
                    return { run_id: run.id, template_id: p.task.template_id, instance_idx: p.task.instance_idx, loop: p.next.kind === "summary" ? p.next.loop : 0, summary_prompt_json: JSON.stringify(req.messages), summary_response: r.text, summary: summaries[i]!, similarity: sims[i]!, drift: drifts[i]! };
                });
                ls.setSummaries(rows);
                for (const r of rows) {
                    const s = byTask.get(key(r.template_id, r.instance_idx))!.find((x) => x.loop === r.loop)!;
                    Object.assign(s, r);
                }
                hooks.onProgress?.({ phase: "summary", loop: Math.max(...rows.map((r) => r.loop), 0), active: coding.length + summarising.length, tasks: tasks.length });
                continue;
            }

            const reqs = coding.map(({ task, next }) => {
                const n = next as Extract<Next | TranslationNext, { kind: "code" }>;
                const lang = languageOf(n);
                return {
                    id: key(task.template_id, task.instance_idx),
                    // A translation step's prompt goes as it is; a first answer through the wrapper, in its language.
                    messages: "from" in n && n.from ? translationMessages(n.question) : renderMessages(wrapperFor(wrapper, lang), n.question),
                    decoding: { temperature: config.temperature },
                    seed: deriveSeed(config.seed, task.template_id, task.instance_idx, n.loop, "code"),
                    maxTokens: config.maxTokens,
                    // Replay's turn: a translation loop's step s is round s − 1; the summary loop's code of loop k is 2(k − 1).
                    task: { templateId: task.template_id, instance: task.instance_idx, round: config.translate ? n.loop - 1 : 2 * (n.loop - 1), params: JSON.parse(task.params_json) as ParamValue[], ...(lang !== "python" ? { language: lang } : {}) }
                } satisfies GenerationRequest;
            });
            const results = await collect(backend.generate(reqs), hooks.signal);
            const judged = await Promise.all(
                results.map(async (r) => {
                    const p = coding.find((x) => key(x.task.template_id, x.task.instance_idx) === r.id)!;
                    if (r.stopReason === "error") {
                        stalled.add(r.id);
                        errors++;
                        log(`code for ${r.id} failed: ${r.error ?? "error"} (the task stops here; resume to retry)`);
                        return undefined;
                    }
                    const t = templates.get(p.task.template_id)!;
                    const n = p.next as Extract<Next | TranslationNext, { kind: "code" }>;
                    const lang = languageOf(n);
                    const code = extractCode(r.text, t.function, lang);
                    const v = await judge!.judge({ template: t, bindings: JSON.parse(p.task.bindings_json), code, language: lang });
                    return {
                        run_id: run.id, template_id: p.task.template_id, instance_idx: p.task.instance_idx, loop: n.loop, question: n.question,
                        prompt_json: JSON.stringify(reqs.find((q) => q.id === r.id)!.messages), response: r.text, code,
                        category: finalCategory(v.category, r.stopReason, countFences(r.text)), detail: v.detail, stop_reason: r.stopReason,
                        prompt_tokens: r.promptTokens, generated_tokens: r.generatedTokens, gen_ms: r.genMs
                    };
                })
            );
            const rows = judged.filter((x): x is NonNullable<typeof x> => x !== undefined);
            ls.addSteps(rows);
            for (const r of rows) {
                const k = key(r.template_id, r.instance_idx);
                if (!byTask.has(k)) byTask.set(k, []);
                byTask.get(k)!.push({ ...r, created: "", summary_prompt_json: null, summary_response: null, summary: null, similarity: null, drift: null });
            }
            hooks.onProgress?.({ phase: "code", loop: Math.max(...rows.map((r) => r.loop), 0), active: coding.length, tasks: tasks.length });
        }
        const status = hooks.signal?.aborted || errors > 0 ? "interrupted" : "complete";
        ls.setStatus(run.id, status, errors > 0 ? `${errors} generation error(s); resume to retry` : null);
        return { runId: run.id, status, tasks: tasks.length };
    } catch (err) {
        if (markFailed) ls.setStatus(run.id, "failed", oneLine(err));
        throw err;
    } finally {
        await embedder?.close().catch(() => {});
        if (summariser && summariser !== backend) await summariser.close().catch(() => {});
        await backend?.close().catch(() => {});
        await judge?.close().catch(() => {});
        store.close();
    }
}

function languageOf(n: Extract<Next | TranslationNext, { kind: "code" }>): Language {
    return "language" in n ? n.language : "python";
}

async function collect(results: AsyncIterable<GenerationResult>, signal?: AbortSignal): Promise<GenerationResult[]> {
    const out: GenerationResult[] = [];
    for await (const r of results) {
        out.push(r);
        if (signal?.aborted) break;
    }
    return out;
}

async function openBackend(c: LoopConfig, modelPath: string | undefined, judge: JudgePool, templates: Template[], log: (l: string) => void): Promise<Backend> {
    return createBackend(
        {
            backend: c.backend,
            ...(c.threads !== undefined ? { threads: c.threads } : {}),
            ...(c.contextSize !== undefined ? { contextSize: c.contextSize } : {}),
            ...(c.promptFormat !== undefined ? { promptFormat: c.promptFormat } : {})
        },
        modelPath ? { path: modelPath } : {},
        { solutions: judge, templates, ...(backendDescriptor(c.backend).needsReplayFile ? { replay: new ReplayBackend(c.replay!) } : {}), onWarning: log }
    );
}
