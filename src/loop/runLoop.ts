import { Embedder, cosine, inspectEmbedModel } from "../embed/Embedder.js";
import { extractCode } from "../extract/extractCode.js";
import { backendDescriptor, createBackend } from "../inference/backends.js";
import type { Backend, GenerationResult } from "../inference/types.js";
import type { SolutionSource } from "../inference/backends.js";
import type { ChatMessage, ParamValue } from "../vocabulary.js";
import { MemoryVerdictCache } from "../judge/cache.js";
import { loadWrapper, renderMessages } from "../prompts/PromptWrapper.js";
import { OPERATIONAL_KEYS } from "../run/config.js";
import { decodingFor } from "../inference/decoding.js";
import { GenerateStage, type BatchPrompt } from "../run/study/GenerateStage.js";
import { countFences, JudgeStage } from "../run/study/JudgeStage.js";
import { checkModels, checkModelUnchanged } from "../run/study/openRun.js";
import { loopIdentity, storedLoopConfig, type LoopConfig } from "./config.js";
import { openStore } from "../store/Store.js";
import { sampleInstances } from "../templates/instances.js";
import { builtInLibrary, type TemplateLibrary } from "../templates/library.js";
import { loadTemplate, selectTemplates } from "../templates/loadTemplates.js";
import type { Template } from "../templates/types.js";
import { isStopped } from "../util/abort.js";
import { EddyError, oneLine } from "../util/errors.js";
import { defaultDbPath, eddyVersion } from "../util/paths.js";
import { deriveSeed } from "../util/seeds.js";
import { newLoopRunId, type LoopRepository, type LoopRunRow, type LoopStepRow, type LoopTaskRow } from "../store/loops.js";
import { missingRuntime } from "../judge/JudgePool.js";
import { DEFAULT_LANGUAGE, wrapperFor, type Language } from "../languages/languages.js";
import { nextTranslation, translationMessages, type TranslationNext } from "./translate.js";

export { LOOP_DEFAULTS, normalizeLoopConfig, type LoopConfig } from "./config.js";

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

/** A loop run opened for this session: created, found by its settings, or resumed. */
interface OpenedLoop {
    run: LoopRunRow;
    /** The settings this session works with (a resumed run's stored ones, this session's operational ones on top). */
    config: LoopConfig;
    /** The templates selected for a new run (empty when resumed: the stored tasks name them). */
    selected: Template[];
    /** True when this session created the run (an error then marks it failed). */
    created: boolean;
}

/** Create the loop run, find the one with the same settings, or take the one being resumed. */
function openLoopRun(ls: LoopRepository, input: LoopConfig, selected: Template[], log: (l: string) => void): OpenedLoop {
    if (input.resume) {
        const run = ls.requireRun(input.resume);
        const ops = Object.fromEntries(OPERATIONAL_KEYS.filter((k) => input[k] !== undefined && k !== "resume" && k !== "fresh").map((k) => [k, input[k]]));
        const config = { ...storedLoopConfig(JSON.parse(run.config_json) as Record<string, unknown>), ...ops };
        checkLoopInputs(config);
        return { run, config, selected: [], created: false };
    }
    const identity = loopIdentity(input, selected.map((t) => t.id));
    const found = input.fresh ? undefined : ls.findByConfigHash(identity.hash);
    if (found) {
        log(`continuing loop run ${found.id} (same settings; --fresh starts a new one)`);
        return { run: found, config: input, selected, created: false };
    }
    const source = answerSource(input);
    const run = ls.createRun({
        id: newLoopRunId(),
        config_hash: identity.hash,
        config_json: JSON.stringify(identity.settings),
        eddy_version: eddyVersion(),
        backend: input.backend,
        model: source.label,
        model_path: source.path,
        model_sha256: null,
        quantization: null,
        summariser: input.summariser ? modelLabel(input, input.summariser) : null,
        metadata_json: null,
        isolation_level: null
    });
    return { run, config: input, selected, created: true };
}

/** The run's tasks: sampled once, then always read back (a resumed run keeps its instances); their templates unchanged. */
function loopTasks(ls: LoopRepository, run: LoopRunRow, config: LoopConfig, selected: Template[], library: TemplateLibrary): { tasks: LoopTaskRow[]; templates: Map<string, Template> } {
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
    return { tasks, templates };
}

/**
 * Run (or continue) an EvaLOOP study: for every task, code from the question; if it passes the
 * oracle, a summary of that code becomes the next question; until a failure or M loops. The loop
 * keeps its state machine and the summaries; each phase is one batch handed to the run's stages
 * (GenerateStage.batch, then JudgeStage.judgeBatch for code), so llama's parallel sequences stay busy
 * and a loop decodes and judges as a run does.
 */
export async function runLoop(input: LoopConfig, hooks: LoopHooks = {}): Promise<LoopResult> {
    const log = hooks.onLog ?? (() => {});
    const library = hooks.library ?? builtInLibrary();
    // Checked before a run is created: a bad template list or model folder must not leave an empty run behind.
    const selected = input.resume ? [] : selectTemplates(library, input.templates);
    if (!input.resume) checkLoopInputs(input);
    const store = openStore(input.db ?? defaultDbPath());
    const ls = store.loops;
    let opened: OpenedLoop;
    try {
        opened = openLoopRun(ls, input, selected, log);
    } catch (err) {
        store.close();
        throw err;
    }
    const { run, config } = opened;
    // A run this call created, or one whose work has begun, is marked failed on an error; an existing
    // run that is refused (a changed model) keeps its status.
    let markFailed = opened.created;
    hooks.onRunId?.(run.id);
    if (run.status === "complete") {
        const n = ls.tasks(run.id).length;
        store.close();
        return { runId: run.id, status: "complete", tasks: n };
    }

    const signal = hooks.signal ?? new AbortController().signal;
    let judge: JudgeStage | undefined;
    let backend: Backend | undefined;
    let summariser: Backend | undefined;
    let embedder: Embedder | undefined;
    try {
        const { tasks, templates } = loopTasks(ls, run, config, selected, library);
        const wrapper = loadWrapper(config.wrappers[0]!);
        // One temperature per loop run; the study's decoding (top-k, top-p, min-p, repeat penalty) at it.
        const decoding = decodingFor(config, config.temperatures[0]!);
        // The run's judging stage, used batch by batch: its pool (the loop keeps no queue of its own).
        judge = new JudgeStage({
            workers: config.judgeWorkers,
            judging: false,
            needPool: true,
            allowUnsandboxed: config.allowUnsandboxed,
            cache: new MemoryVerdictCache(),
            log,
            onPool: () => {},
            onFatal: () => {},
            signal
        });
        // Ctrl-C while the judge's workers start: they are stopped, and so is this session (nothing was asked yet).
        const pool = await judge.pool.catch((err: unknown) => {
            if (signal.aborted || isStopped(err)) return undefined;
            throw err;
        });
        if (!pool) {
            ls.setStatus(run.id, "interrupted", null);
            return { runId: run.id, status: "interrupted", tasks: tasks.length };
        }
        for (const lang of new Set(config.translate ?? [])) {
            const missing = missingRuntime(lang, pool.runtimes);
            if (missing) throw new EddyError(missing);
        }
        backend = await openBackend(config, config.models[0], pool, [...templates.values()], log);
        summariser = config.summariser ? await openBackend(config, config.summariser, pool, [...templates.values()], log) : backend;
        if (config.embedModel) embedder = await Embedder.load(config.embedModel);
        const meta = await backend.metadata();
        const summariserMeta = summariser !== backend ? await summariser.metadata() : meta;
        const sha = backendDescriptor(config.backend).identity(backend, meta);
        checkModelUnchanged([run.model_sha256], sha, run.model_path ?? run.model, `loop run ${run.id}`);
        markFailed = true;
        ls.markRunning(run.id, sha, meta.model?.quantization ?? null);
        ls.setMetadata(run.id, { ...meta, ...(summariser !== backend ? { summariser: summariserMeta } : {}), isolation: pool.isolation, python: pool.environment }, pool.isolation.level);

        const byTask = new Map<string, LoopStepRow[]>();
        for (const s of ls.steps(run.id)) {
            const k = taskKey(s.template_id, s.instance_idx);
            if (!byTask.has(k)) byTask.set(k, []);
            byTask.get(k)!.push(s);
        }
        const firstQuestion = new Map(tasks.map((t) => [taskKey(t.template_id, t.instance_idx), t.question]));
        const stalled = new Set<string>();
        let errors = 0;
        /** Answers that came back as errors stop their task for this session (a resume asks again). */
        const answered = (results: GenerationResult[], what: string): GenerationResult[] =>
            results.filter((r) => {
                if (r.stopReason !== "error") return true;
                stalled.add(r.id);
                errors++;
                log(`${what} for ${r.id} failed: ${r.error ?? "error"} (the task stops here; resume to retry)`);
                return false;
            });

        for (;;) {
            if (signal.aborted) break;
            const plans = tasks
                .filter((t) => !stalled.has(taskKey(t.template_id, t.instance_idx)))
                .map((t): Plan => {
                    const steps = byTask.get(taskKey(t.template_id, t.instance_idx)) ?? [];
                    const chain = config.translate;
                    return { task: t, next: chain ? nextTranslation(templates.get(t.template_id)!, t.question, steps, chain, config.maxLoops) : nextStep(t, steps, config.maxLoops) };
                });
            const coding = plans.filter((p): p is Plan<CodeNext> => p.next.kind === "code");
            const summarising = plans.filter((p): p is Plan<SummaryNext> => p.next.kind === "summary");
            if (coding.length === 0 && summarising.length === 0) break;

            // Summaries first: they unblock the next loop's code.
            if (summarising.length > 0) {
                const prompts = summarising.map(({ task, next }): BatchPrompt => ({
                    id: taskKey(task.template_id, task.instance_idx),
                    messages: summaryMessages(templates.get(task.template_id)!.function, next.code),
                    decoding,
                    seed: deriveSeed(config.seed, task.template_id, task.instance_idx, next.loop, "summary"),
                    neighbourhood: task.template_id,
                    task: { templateId: task.template_id, instance: task.instance_idx, round: 2 * next.loop - 1, params: JSON.parse(task.params_json) as ParamValue[] }
                }));
                const ok = answered(await GenerateStage.batch(summariser, summariserMeta, prompts, { maxTokens: config.maxTokens, signal }), "summary");
                if (signal.aborted) break; // a phase is stored whole or not at all (see the code phase)
                const rows = await summaryRows(run.id, ok, summarising, prompts, embedder, firstQuestion);
                ls.setSummaries(rows);
                for (const r of rows) Object.assign(byTask.get(taskKey(r.template_id, r.instance_idx))!.find((x) => x.loop === r.loop)!, r);
                hooks.onProgress?.({ phase: "summary", loop: Math.max(...rows.map((r) => r.loop), 0), active: coding.length + summarising.length, tasks: tasks.length });
                continue;
            }

            const prompts = coding.map(({ task, next }): BatchPrompt => {
                const lang = languageOf(next);
                return {
                    id: taskKey(task.template_id, task.instance_idx),
                    // A translation step's prompt goes as it is; a first answer through the wrapper, in its language.
                    messages: "from" in next && next.from ? translationMessages(next.question) : renderMessages(wrapperFor(wrapper, lang), next.question),
                    decoding,
                    seed: deriveSeed(config.seed, task.template_id, task.instance_idx, next.loop, "code"),
                    neighbourhood: task.template_id,
                    // Replay's turn: a translation loop's step s is round s − 1; the summary loop's code of loop k is 2(k − 1).
                    task: { templateId: task.template_id, instance: task.instance_idx, round: config.translate ? next.loop - 1 : 2 * (next.loop - 1), params: JSON.parse(task.params_json) as ParamValue[], ...(lang !== DEFAULT_LANGUAGE ? { language: lang } : {}) }
                };
            });
            const ok = answered(await GenerateStage.batch(backend, meta, prompts, { maxTokens: config.maxTokens, signal }), "code");
            // Stopped mid-phase: nothing of it is stored. Lockstep groups are cut over the whole phase, so a
            // resume that asked only the missing members would group them otherwise, and their answers could
            // differ from an uninterrupted run's; the whole phase is asked again instead.
            if (signal.aborted) break;
            const planOf = new Map(coding.map((p) => [taskKey(p.task.template_id, p.task.instance_idx), p]));
            const codes = ok.map((r) => {
                const p = planOf.get(r.id)!;
                return extractCode(r.text, templates.get(p.task.template_id)!.function, languageOf(p.next));
            });
            const verdicts = await judge.judgeBatch(
                ok.map((r, i) => {
                    const p = planOf.get(r.id)!;
                    return { template: templates.get(p.task.template_id)!, bindings: JSON.parse(p.task.bindings_json) as Record<string, ParamValue>, code: codes[i]!, language: languageOf(p.next), stopReason: r.stopReason, fences: countFences(r.text) };
                })
            );
            const messagesOf = new Map(prompts.map((q) => [q.id, q.messages]));
            const rows = ok.map((r, i) => {
                const { task, next } = planOf.get(r.id)!;
                const v = verdicts[i]!;
                return {
                    run_id: run.id, template_id: task.template_id, instance_idx: task.instance_idx, loop: next.loop, question: next.question,
                    prompt_json: JSON.stringify(messagesOf.get(r.id)), response: r.text, code: codes[i]!,
                    category: v.category, detail: v.detail, stop_reason: r.stopReason,
                    prompt_tokens: r.promptTokens, generated_tokens: r.generatedTokens, gen_ms: r.genMs
                };
            });
            ls.addSteps(rows);
            for (const r of rows) {
                const k = taskKey(r.template_id, r.instance_idx);
                if (!byTask.has(k)) byTask.set(k, []);
                byTask.get(k)!.push({ ...r, created: "", summary_prompt_json: null, summary_response: null, summary: null, similarity: null, drift: null });
            }
            hooks.onProgress?.({ phase: "code", loop: Math.max(...rows.map((r) => r.loop), 0), active: coding.length, tasks: tasks.length });
        }
        const status = signal.aborted || errors > 0 ? "interrupted" : "complete";
        ls.setStatus(run.id, status, errors > 0 ? `${errors} generation error(s); resume to retry` : null);
        return { runId: run.id, status, tasks: tasks.length };
    } catch (err) {
        if (markFailed) ls.setStatus(run.id, "failed", oneLine(err));
        throw err;
    } finally {
        await embedder?.close().catch(() => {});
        if (summariser && summariser !== backend) await summariser.close().catch(() => {});
        await backend?.close().catch(() => {});
        await judge?.close();
        store.close();
    }
}

type CodeNext = Extract<Next | TranslationNext, { kind: "code" }>;
type SummaryNext = Extract<Next, { kind: "summary" }>;
/** A task and what it does next. */
interface Plan<N extends Next | TranslationNext = Next | TranslationNext> {
    task: LoopTaskRow;
    next: N;
}

const taskKey = (templateId: string, instance: number): string => `${templateId}#${instance}`;

/**
 * The summaries of a phase: each answer cleaned into the next question, with (given an embedding
 * model) its similarity to the question it summarises and its drift from the task's first question.
 */
async function summaryRows(runId: string, ok: GenerationResult[], plans: Plan<SummaryNext>[], prompts: BatchPrompt[], embedder: Embedder | undefined, firstQuestion: Map<string, string>) {
    const planOf = new Map(plans.map((p) => [taskKey(p.task.template_id, p.task.instance_idx), p]));
    const messagesOf = new Map(prompts.map((q) => [q.id, q.messages]));
    const summaries = ok.map((r) => cleanSummary(r.text));
    let sims: (number | null)[] = ok.map(() => null);
    let drifts: (number | null)[] = ok.map(() => null);
    if (embedder && ok.length > 0) {
        const questions = ok.map((r) => planOf.get(r.id)!.next.question);
        const firsts = ok.map((r) => firstQuestion.get(r.id)!);
        const vecs = await embedder.embed([...questions, ...summaries, ...firsts]);
        const n = ok.length;
        sims = ok.map((_, i) => cosine(vecs[i]!, vecs[n + i]!));
        drifts = ok.map((_, i) => cosine(vecs[2 * n + i]!, vecs[n + i]!));
    }
    return ok.map((r, i) => {
        const { task, next } = planOf.get(r.id)!;
        return { run_id: runId, template_id: task.template_id, instance_idx: task.instance_idx, loop: next.loop, summary_prompt_json: JSON.stringify(messagesOf.get(r.id)), summary_response: r.text, summary: summaries[i]!, similarity: sims[i]!, drift: drifts[i]! };
    });
}

/** The model file, summariser and embedding model must be there before anything is stored (the checks a run makes). */
function checkLoopInputs(c: LoopConfig): void {
    checkModels(c);
    if (c.summariser) checkModels({ ...c, models: [c.summariser] });
    if (c.embedModel) inspectEmbedModel(c.embedModel);
}

/** What answers in a loop run, labelled as a run labels its models. */
function answerSource(c: LoopConfig): { label: string; path: string | null } {
    const m = backendDescriptor(c.backend).modelSources(c)[0]!;
    return { label: m.label, path: m.path ?? m.source ?? null };
}

/** A model file's label, as a run labels it. */
function modelLabel(c: LoopConfig, file: string): string {
    return backendDescriptor(c.backend).modelSources({ models: [file] })[0]!.label;
}

function languageOf(n: CodeNext): Language {
    return "language" in n ? n.language : DEFAULT_LANGUAGE;
}

async function openBackend(c: LoopConfig, modelPath: string | undefined, solutions: SolutionSource, templates: Template[], log: (l: string) => void): Promise<Backend> {
    // The study's backend settings as they are (mode, G, threads, sequences, GPU, context, prompt format, …).
    return createBackend(c, modelPath ? backendDescriptor(c.backend).modelSources({ models: [modelPath] })[0]! : {}, {
        solutions,
        templates,
        ...backendDescriptor(c.backend).readSources(c).parts,
        onWarning: (l: string) => log(`warning: ${l}`)
    });
}
