import type { Store } from "../store/Store.js";
import { renderPage } from "../report/page.js";
import { html, raw, type SafeHtml } from "../report/safeHtml.js";
import { isHarness } from "../scores/neighbourhood.js";
import { indent, renderTable } from "../report/terminalTable.js";
import { safeTerminalLine, safeTerminalText } from "../util/safeText.js";
import { wrapLines, wrapText } from "../util/textWidth.js";
import { averageSustainableLoops, type AslResult } from "./asl.js";
import { diffStat, lineDiff } from "./diff.js";
import type { LoopRepository, LoopRunRow, LoopStepRow } from "../store/loops.js";
import { stepsFor, sustainedLoops } from "./translate.js";
import type { Language } from "../languages/languages.js";

/** One task's loops as the report shows them. */
export interface LoopTaskReport {
    template: string;
    instance: number;
    params: unknown[];
    /** l: consecutive passing loops from the first. */
    sustained: number;
    /** The loop whose code first failed; null when all M loops passed (or the task is unfinished). */
    firstFailure: number | null;
    /** Verdict of the failing loop. */
    failureCategory: string | null;
    /** Similarity of the last passing prompt and the one that failed (ASL's s at the boundary); null when not measured. */
    boundarySimilarity: number | null;
    /** False while the task still has loops to run (an interrupted run): left out of ASL. */
    finished: boolean;
    loops: {
        loop: number;
        question: string;
        category: string;
        detail: string;
        code: string | null;
        similarity: number | null;
        drift: number | null;
        /** Diff against the previous loop's code (absent for loop 1). */
        diff?: string[];
        added?: number;
        removed?: number;
    }[];
}

export interface LoopRunReport {
    runId: string;
    status: string;
    model: string;
    quantization: string | null;
    backend: string;
    summariser: string | null;
    maxLoops: number;
    temperature: number;
    embedModel: string | null;
    /** A translation loop's chain of languages (its `loops` are steps: the first answer, then one per translation); null: the summary loop. */
    translate: Language[] | null;
    asl: AslResult;
    /** Per template: ASL over its tasks. */
    perTemplate: { template: string; asl: AslResult }[];
    /**
     * Pass rate of the first loop (an ordinary one-shot pass@1), under the run's exclusion rules: over
     * the tasks whose first loop has a model verdict ({@link firstLoopTasks}); a first loop not run yet
     * or ended by a harness outcome (truncated, judge_error) is left out, never counted as a failure.
     * null when no task qualifies.
     */
    firstLoopPassRate: number | null;
    /** Tasks pass@loop1 covers (of all tasks). */
    firstLoopTasks: number;
    /** Per loop j: tasks that reached it, passed it; mean similarity p^j→p^(j+1) and drift p^1→p^(j+1) where measured. */
    perLoop: { loop: number; reached: number; passed: number; meanSimilarity: number | null; meanDrift: number | null }[];
    unfinished: number;
    /** Tasks ended by a harness outcome (truncated, judge_error): not the model's fault, left out of ASL. */
    harness: number;
    tasks: LoopTaskReport[];
}

export interface LoopReport {
    generated: string;
    runs: LoopRunReport[];
}

const mean = (xs: number[]): number | null => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);

/** Everything `eddy loop report` shows, for one or more loop runs (several: side by side, e.g. models or quantisations). */
export function buildLoopReport(store: Store, runIds: string[]): LoopReport {
    const ls = store.loops;
    return { generated: new Date().toISOString(), runs: runIds.map((id) => buildRun(ls, ls.requireRun(id))) };
}

function buildRun(ls: LoopRepository, run: LoopRunRow): LoopRunReport {
    // `temperatures` (one) since loop settings are the study's; `temperature` in loop runs stored before.
    const stored = JSON.parse(run.config_json) as { maxLoops: number; temperatures?: number[]; temperature?: number; embedModel?: string; translate?: Language[] };
    const config = { ...stored, temperature: stored.temperatures?.[0] ?? stored.temperature ?? 0 };
    const chain = config.translate ?? null;
    const M = config.maxLoops;
    const steps = ls.steps(run.id);
    const byTask = new Map<string, LoopStepRow[]>();
    for (const s of steps) {
        const k = `${s.template_id}#${s.instance_idx}`;
        if (!byTask.has(k)) byTask.set(k, []);
        byTask.get(k)!.push(s);
    }
    const tasks: LoopTaskReport[] = ls.tasks(run.id).map((t) => {
        const ss = byTask.get(`${t.template_id}#${t.instance_idx}`) ?? [];
        let passed = 0;
        while (passed < ss.length && ss[passed]!.category === "passed") passed++;
        const failed = ss[passed];
        // A translation loop counts full passes along its chain; its similarity is not measured (s = 1).
        const sustained = chain ? sustainedLoops(passed, chain) : passed;
        const finished = failed !== undefined || passed >= (chain ? stepsFor(chain, M) : M);
        const boundary = failed && passed > 0 && !chain ? ss[passed - 1]!.similarity : null;
        return {
            template: t.template_id,
            instance: t.instance_idx,
            params: JSON.parse(t.params_json),
            sustained,
            firstFailure: failed ? failed.loop : null,
            failureCategory: failed ? failed.category : null,
            boundarySimilarity: boundary,
            finished,
            loops: ss.map((s, i) => {
                const prev = i > 0 ? ss[i - 1]!.code : null;
                const d = i > 0 ? lineDiff(prev ?? "", s.code ?? "") : undefined;
                return {
                    loop: s.loop,
                    question: s.question,
                    category: s.category,
                    detail: s.detail,
                    code: s.code,
                    similarity: s.similarity,
                    drift: s.drift,
                    ...(d ? { diff: d, ...diffStat(d) } : {})
                };
            })
        };
    });
    // Harness outcomes (truncated, judge_error) are not the model's fault: reported apart, as in runs.
    const scored = tasks.filter((t) => t.finished && !(t.failureCategory !== null && isHarness(t.failureCategory)));
    const asl = averageSustainableLoops(scored.map((t) => ({ sustained: t.sustained, boundarySimilarity: t.boundarySimilarity })), M);
    const templates = [...new Set(tasks.map((t) => t.template))];
    const firstJudged = tasks.flatMap((t) => (t.loops[0] && !isHarness(t.loops[0].category) ? [t.loops[0].category] : []));
    const perLoop = Array.from({ length: chain ? stepsFor(chain, M) : M }, (_, j) => {
        const at = steps.filter((s) => s.loop === j + 1);
        return {
            loop: j + 1,
            reached: at.length,
            passed: at.filter((s) => s.category === "passed").length,
            meanSimilarity: mean(at.flatMap((s) => (s.similarity === null ? [] : [s.similarity]))),
            meanDrift: mean(at.flatMap((s) => (s.drift === null ? [] : [s.drift])))
        };
    });
    return {
        runId: run.id,
        status: run.status,
        model: run.model,
        quantization: run.quantization,
        backend: run.backend,
        summariser: run.summariser,
        maxLoops: M,
        temperature: config.temperature,
        embedModel: config.embedModel ?? null,
        translate: chain,
        asl,
        perTemplate: templates.map((template) => ({
            template,
            asl: averageSustainableLoops(scored.filter((t) => t.template === template).map((t) => ({ sustained: t.sustained, boundarySimilarity: t.boundarySimilarity })), M)
        })),
        firstLoopPassRate: firstJudged.length === 0 ? null : firstJudged.filter((c) => c === "passed").length / firstJudged.length,
        firstLoopTasks: firstJudged.length,
        perLoop,
        unfinished: tasks.filter((t) => !t.finished).length,
        harness: tasks.filter((t) => t.failureCategory !== null && isHarness(t.failureCategory)).length,
        tasks
    };
}

const f3 = (x: number | null | undefined): string => (x === null || x === undefined ? "—" : x.toFixed(3));
/** pass@loop1 with the tasks it covers, e.g. "0.750 (4 of 5)". */
const firstLoopCell = (run: LoopRunReport): string => `${f3(run.firstLoopPassRate)} (${run.firstLoopTasks} of ${run.tasks.length})`;
const FIRST_LOOP_NOTE = "pass@loop1: share of tasks whose first loop passed, over the tasks whose first loop was judged (a first loop not run yet or ended by truncated/judge_error is left out).";

/** Plain-text report: a comparison table, then per run ASL per template, the loop histogram and failures. */
export function renderLoopText(r: LoopReport, opts: { diffs?: boolean } = {}): string {
    const out: string[] = [];
    out.push("EvaLOOP self-consistency (SPEC §7): code → summary → code until the oracle fails or M loops");
    out.push("");
    const runRows = r.runs.map((run) => [run.runId, run.model, run.quantization ?? "—", run.maxLoops, run.asl.tasks, firstLoopCell(run), f3(run.asl.meanSustained), f3(run.asl.asl)]);
    out.push(renderTable([{ head: "run", ellipsis: "middle" }, "model", "quant", "M", "tasks", "pass@loop1", "mean l", "ASL"], runRows));
    out.push(wrapText(FIRST_LOOP_NOTE));
    for (const run of r.runs) {
        out.push("");
        out.push(wrapLines(`== ${run.runId}  ${safeTerminalLine(run.model)}  (${run.backend}, ${run.status}${run.summariser ? `, summariser ${safeTerminalLine(run.summariser)}` : ""}, t=${run.temperature})`));
        if (run.translate) out.push(wrapText(`translation loop: ${run.translate.join(" → ")} (s = 1); "loop" below means step: 1 is the first answer, then one per translation`));
        out.push(`ASL ${f3(run.asl.asl)} over ${run.asl.tasks} tasks, M = ${run.maxLoops}${run.embedModel ? "; s from embeddings" : "; s = 1 (no embedding model)"}`);
        if (run.unfinished) out.push(`${run.unfinished} task(s) unfinished (resume the run): left out of ASL`);
        if (run.harness) out.push(`${run.harness} task(s) ended by a harness outcome (truncated, judge_error): left out of ASL`);
        out.push("sustained loops l: " + run.asl.sustainedCounts.map((n, i) => `${i}:${n}`).join(" "));
        out.push("per template:");
        out.push(indent(renderTable(["template", "ASL", "tasks", "mean l"], run.perTemplate.map((t) => [t.template, f3(t.asl.asl), t.asl.tasks, f3(t.asl.meanSustained)]))));
        out.push("per loop:");
        const loopRows = run.perLoop.filter((l) => l.reached > 0).map((l) => [l.loop, l.reached, l.passed, f3(l.meanSimilarity), f3(l.meanDrift)]);
        out.push(indent(renderTable(["loop", "reached", "passed", "mean similarity to next prompt", "mean drift from the question"], loopRows)));
        out.push("tasks (first failing loop, verdict):");
        for (const t of run.tasks) {
            out.push(`  ${t.template} #${t.instance}  l=${t.sustained}  ${t.firstFailure === null ? (t.finished ? "sustained all loops" : "unfinished") : `failed at loop ${t.firstFailure}: ${t.failureCategory}`}`);
            if (opts.diffs)
                for (const l of t.loops)
                    if (l.diff && (l.added || l.removed)) {
                        out.push(`    loop ${l.loop - 1} → ${l.loop}: +${l.added} −${l.removed}`);
                        for (const d of l.diff) if (d[0] !== " ") out.push("      " + safeTerminalText(d));
                    }
        }
    }
    return out.join("\n") + "\n";
}

/** JSON report (the full structure, diffs included). */
export function renderLoopJson(r: LoopReport): string {
    return JSON.stringify(r, null, 2) + "\n";
}


// The page's own classes; the shell (report/page.ts) holds the shared sheet and the policy.
export const LOOP_CSS = `
.bar{background:#4a7;height:.8em}.cat.ok{color:#070}.cat.bad{color:#b00}
.q{color:#555;font-size:.9em;margin:.2em 0}pre.diff{background:#f6f6f6;padding:.4em;font-size:.85em}
.add{color:#070}.del{color:#b00}.ctx{color:#666}
small.why{color:#5b6475;font-size:11px}
`;

/** Markup joined with newlines, as the page lays out rows, loops and diff lines. */
const lines = (xs: SafeHtml[]): SafeHtml[] => xs.flatMap((x, i) => (i === 0 ? [x] : [raw("\n"), x]));

/**
 * A self-contained HTML page: comparison table, ASL per template, per-loop figures and each task's loops with diffs.
 * Built with `html` (issue #9): the model's summaries, its code in the diffs, verdicts, template ids,
 * model names and run ids are escaped by default.
 */
export function renderLoopHtml(r: LoopReport): string {
    return renderPage({ title: "eddy — EvaLOOP report", css: LOOP_CSS, body: html`<main>${loopHtmlBody(r)}</main>` });
}

/** A value, or "—" with why there is none (shown beside it, so a reader need not guess). */
const orWhy = (text: string, why: string): SafeHtml | string => (text === "—" ? html`—<small class="why"> ${why}</small>` : text);

/** Why a similarity or drift is not measured in a run. */
const unmeasured = (run: LoopRunReport): string => (run.translate ? "not measured in a translation loop (s = 1)" : run.embedModel ? "no next prompt: the loop failed, or was the last" : "no embedding model given (--embed-model)");

/** The loop report's content, inside any page: `eddy loop report`'s file and `eddy view`'s loop page draw the same. */
export function loopHtmlBody(r: LoopReport): SafeHtml {
    const rows = lines(
        r.runs.map(
            (run) =>
                html`<tr><td>${run.runId}</td><td>${run.model}</td><td>${run.quantization ?? "none"}</td><td>${run.maxLoops}</td><td>${run.asl.tasks}</td><td>${run.firstLoopPassRate === null ? orWhy("—", `no first loop judged yet (0 of ${run.tasks.length})`) : firstLoopCell(run)}</td><td>${orWhy(f3(run.asl.meanSustained), "no finished task")}</td><td class="asl">${f3(run.asl.asl)}</td></tr>`
        )
    );
    const maxAsl = Math.max(...r.runs.map((x) => x.maxLoops), 1);
    const sections = lines(
        r.runs.map((run) => {
            const bars = lines(
                run.perTemplate.map(
                    (t) =>
                        html`<tr><td>${t.template}</td><td>${t.asl.tasks}</td><td>${orWhy(f3(t.asl.meanSustained), "no finished task")}</td><td>${f3(t.asl.asl)}</td><td><div class="bar" style="width:${((t.asl.asl / maxAsl) * 200).toFixed(1)}px"></div></td></tr>`
                )
            );
            const loops = lines(
                run.perLoop
                    .filter((l) => l.reached > 0)
                    .map((l) => html`<tr><td>${l.loop}</td><td>${l.reached}</td><td>${l.passed}</td><td>${orWhy(f3(l.meanSimilarity), unmeasured(run))}</td><td>${orWhy(f3(l.meanDrift), unmeasured(run))}</td></tr>`)
            );
            const tasks = lines(
                run.tasks.map((t) => {
                    const body = lines(
                        t.loops.map((l) => {
                            const diff = l.diff ? html`<pre class="diff">${lines(l.diff.map((d) => html`<span class="${d[0] === "+" ? "add" : d[0] === "-" ? "del" : "ctx"}">${d}</span>`))}</pre>` : "";
                            return html`<li><b>loop ${l.loop}</b> <span class="cat ${l.category === "passed" ? "ok" : "bad"}">${l.category}</span> sim ${orWhy(f3(l.similarity), unmeasured(run))}<div class="q">${l.question}</div>${diff}</li>`;
                        })
                    );
                    const end = t.firstFailure === null ? (t.finished ? "sustained all loops" : "unfinished") : `failed at loop ${t.firstFailure} (${t.failureCategory ?? ""})`;
                    return html`<details class="task"><summary>${t.template} #${t.instance} — l = ${t.sustained}, ${end}</summary><ol>${body}</ol></details>`;
                })
            );
            return html`<section class="run" id="${run.runId}">
<h2>${run.model} <small>${run.runId} · ${run.backend} · ${run.status}</small></h2>
${run.translate ? html`<p class="translate">Translation loop: ${run.translate.join(" → ")} (s = 1); loops below are steps (1: the first answer, then one per translation).</p>` : ""}
<p>ASL <b class="asl">${f3(run.asl.asl)}</b> over ${run.asl.tasks} tasks, M = ${run.maxLoops}; ${run.embedModel ? "s from embeddings" : "s = 1 (no embedding model)"}.
Sustained loops: ${run.asl.sustainedCounts.map((n, i) => `${i}:${n}`).join(" ")}${run.unfinished ? `; ${run.unfinished} unfinished` : ""}${run.harness ? `; ${run.harness} ended by a harness outcome (left out)` : ""}</p>
<p class="note">Sustained loops "l:n": n tasks sustained exactly l loops before their code first failed (0: the first answer failed).</p>
<h3>ASL per template</h3>
<table class="per-template"><thead><tr><th>template</th><th>tasks</th><th>mean l</th><th>ASL</th><th>ASL (bar)</th></tr></thead><tbody>
${bars}
</tbody></table>
<h3>Per loop (summary drift)</h3>
<p class="note">reached: tasks that got to this loop; passed: of those, whose code passed. Similarity to next prompt: mean cosine similarity of this loop's question and the summary that became the next one; drift from the question: of the next one and the original question (both by the embedding model). A "—" says why it is not measured.</p>
<table class="per-loop"><thead><tr><th>loop</th><th>reached</th><th>passed</th><th>similarity to next prompt</th><th>drift from the question</th></tr></thead><tbody>
${loops}
</tbody></table>
<h3>Tasks</h3>
${tasks}
</section>`;
        })
    );
    return html`
<h1>EvaLOOP self-consistency</h1>
<p>Code → natural-language summary → code, until the oracle fails or M loops (SPEC §7). ASL = Σ n<sub>i</sub>·i²·s<sub>i</sub> / (M·T).</p>
<p class="note"><b>M</b>: the most loops a task is given; <b>tasks</b> (T): instances looped, finished ones only; <b>pass@loop1</b>: ${FIRST_LOOP_NOTE.replace(/^pass@loop1: /, "")} <b>mean l</b>: mean loops sustained before the first failure; <b>ASL</b> (average sustainable loops): weights a task sustaining i loops by i², and by s<sub>i</sub>, the similarity at the failure boundary (1 where not measured); higher is better.</p>
<table id="loop-runs"><thead><tr><th>run</th><th>model</th><th>quant</th><th>M</th><th>tasks</th><th>pass@loop1</th><th>mean l</th><th>ASL</th></tr></thead><tbody>
${rows}
</tbody></table>
${sections}
`;
}

/** The loop report's formats, each with its renderer (`eddy loop report` and `eddy report` on a loop run). */
export const LOOP_RENDERERS = {
    text: (r: LoopReport, opts: { diffs?: boolean } = {}) => renderLoopText(r, opts),
    json: (r: LoopReport) => renderLoopJson(r),
    html: (r: LoopReport) => renderLoopHtml(r)
} as const satisfies Record<string, (r: LoopReport, opts?: { diffs?: boolean }) => string>;
export type LoopReportFormat = keyof typeof LOOP_RENDERERS;
export const LOOP_REPORT_FORMATS = Object.keys(LOOP_RENDERERS) as LoopReportFormat[];

/** The loop report in one of its formats. */
export function renderLoopReport(r: LoopReport, format: LoopReportFormat, opts: { diffs?: boolean } = {}): string {
    return LOOP_RENDERERS[format](r, opts);
}
