import { Embedder, cosine, inspectEmbedModel } from "../embed/Embedder.js";
import { extractCode } from "../extract/extractCode.js";
import { backendDescriptor, createBackend } from "../inference/backends.js";
import { ReplayBackend } from "../inference/replay/ReplayBackend.js";
import type { Backend, GenerationRequest, GenerationResult } from "../inference/types.js";
import type { ChatMessage, ParamValue } from "../vocabulary.js";
import { JudgePool } from "../judge/JudgePool.js";
import { loadWrapper, renderMessages } from "../prompts/PromptWrapper.js";
import { countFences, finalCategory } from "../run/runStudy.js";
import { OPERATIONAL_KEYS } from "../run/config.js";
import { decodingFor } from "../run/study/GenerateStage.js";
import { checkModels, checkModelUnchanged } from "../run/study/openRun.js";
import { loopIdentity, storedLoopConfig, type LoopConfig } from "./config.js";
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
    if (!input.resume) checkLoopInputs(input);
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
            // The stored settings, with this session's operational ones on top (as a resumed run's).
            const ops = Object.fromEntries(OPERATIONAL_KEYS.filter((k) => input[k] !== undefined && k !== "resume" && k !== "fresh").map((k) => [k, input[k]]));
            config = { ...storedLoopConfig(JSON.parse(run.config_json) as Record<string, unknown>), ...ops };
            checkLoopInputs(config);
        } catch (err) {
            store.close();
            throw err;
        }
    } else {
        const identity = loopIdentity(input, selected.map((t) => t.id));
        const found = input.fresh ? undefined : ls.findByConfigHash(identity.hash);
        const source = answerSource(input);
        run = found ?? ls.createRun({
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
    const wrapper = loadWrapper(config.wrappers[0]!);
    // One temperature per loop run; the study's decoding (top-k, top-p, min-p, repeat penalty) at it.
    const decoding = decodingFor(config, config.temperatures[0]!);

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
        backend = await openBackend(config, config.models[0], judge, [...templates.values()], log);
        summariser = config.summariser ? await openBackend(config, config.summariser, judge, [...templates.values()], log) : backend;
        if (config.embedModel) embedder = await Embedder.load(config.embedModel);
        const meta = await backend.metadata();
        const sha = backendDescriptor(config.backend).identity(backend, meta);
        checkModelUnchanged([run.model_sha256], sha, run.model_path ?? run.model, `loop run ${run.id}`);
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
                        decoding,
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
                    decoding,
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

/** The model file, summariser and embedding model must be there before anything is stored (the checks a run makes). */
function checkLoopInputs(c: LoopConfig): void {
    checkModels(c);
    if (c.summariser) checkModels({ ...c, models: [c.summariser] });
    if (c.embedModel) inspectEmbedModel(c.embedModel);
}

/** What answers in a loop run, labelled as a run labels its models. */
function answerSource(c: LoopConfig): { label: string; path: string | null } {
    const m = backendDescriptor(c.backend).models({ models: c.models, ...(c.replay ? { replay: c.replay } : {}) })[0]!;
    return { label: m.label, path: m.path ?? c.replay ?? null };
}

/** A model file's label, as a run labels it. */
function modelLabel(c: LoopConfig, file: string): string {
    return backendDescriptor(c.backend).models({ models: [file] })[0]!.label;
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
    // The study's backend settings as they are (mode, G, threads, sequences, GPU, context, prompt format, …).
    return createBackend(c, modelPath ? { path: modelPath } : {}, {
        solutions: judge,
        templates,
        ...(backendDescriptor(c.backend).needsReplayFile ? { replay: new ReplayBackend(c.replay!) } : {}),
        onWarning: log
    });
}
