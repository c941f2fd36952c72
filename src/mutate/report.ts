import { renderPage } from "../report/page.js";
import { indent, renderPairs, renderTable } from "../report/terminalTable.js";
import { html, raw, type SafeHtml } from "../report/safeHtml.js";
import { summariseConfigs } from "../scores/aggregates.js";
import { plannedKey, scoreNeighbourhoods, type PlannedNeighbourhood } from "../scores/neighbourhood.js";
import type { Store } from "../store/Store.js";
import { loadOutcomes, requireRun } from "../store/outcomes.js";
import { commandLine, dbWords } from "../util/commandLine.js";
import { EddyError } from "../util/errors.js";
import { safeTerminalLine } from "../util/safeText.js";
import { wrapLines } from "../util/textWidth.js";
import { judgedOf, type Outcome } from "../vocabulary.js";
import { kendallW, maxPerformanceImprovement, topK, topKIoU, zScore, type KendallW } from "./sensitivity.js";
import { readMutateStudy } from "../store/mutateStudies.js";
import type { MutateStudyRow } from "./study.js";

/** One model configuration (model × quantisation × temperature) across the wrapper variants. */
export interface ConfigSensitivity {
    config: string;
    /** AS per wrapper (the one AS of `eddy report`; harness outcomes left out), wrappers in report order; null: no judged response. */
    values: (number | null)[];
    /** Wrappers with no judged response: shown as "—" and left out of Z, MPI, W and IoU. */
    unjudged: string[];
    z: number | null;
    mpi: number | null;
    /** Best variant and its AS. */
    best: { wrapper: string; value: number } | null;
    perTemplate: { template: string; values: (number | null)[]; z: number | null; mpi: number | null }[];
    /**
     * What the AS values rest on, over every variant: instances judged of those planned (variants ×
     * templates × instances), and the answers left out of every score (truncated, judge_error, missing).
     */
    answers: { judged: number; total: number; responses: number; truncated: number; judge_error: number; missing: number };
}

export interface MutateReport {
    generated: string;
    runs: string[];
    /** Original first, then the kept variants. */
    wrappers: { id: string; operations: string[]; similarity: number | null }[];
    rejected: { id: string; operations: string[]; similarity: number }[];
    embedModel: string | null;
    minSimilarity: number | null;
    configs: ConfigSensitivity[];
    /** Ranking agreement of the configurations across the variants (judges = variants); null with fewer than two configurations. */
    kendall: KendallW | null;
    kendallPerTemplate: { template: string; kendall: KendallW }[];
    /** Mean IoU of top-k variant sets over configuration pairs, and each pair's value. */
    iou: { k: number; mean: number | null; pairs: { a: string; b: string; iou: number }[] }[];
}

/**
 * The wrappers with a judged response, as indices, and their values. A variant without one has no
 * AS: it is left out of Z, MPI, W and IoU (as every other report leaves out what was not judged),
 * never counted as 0, which would rank an all-truncated variant last.
 */
function judgedValues(xs: readonly (number | null)[], among: readonly number[] = xs.map((_, i) => i)): { index: number[]; value: number[] } {
    const index = among.filter((i) => xs[i] !== null && xs[i] !== undefined);
    return { index, value: index.map((i) => xs[i]!) };
}

/** Z and MPI over the judged variants; undefined (null) when the original itself has no judged response. */
function zAndMpi(xs: readonly (number | null)[]): { z: number | null; mpi: number | null } {
    if (xs[0] === null || xs[0] === undefined) return { z: null, mpi: null };
    const { value } = judgedValues(xs);
    return { z: zScore(value), mpi: maxPerformanceImprovement(value) };
}

/**
 * AS of each wrapper for one slice of outcomes: the one AS of `eddy report` (per template the mean
 * over judged instances of c_i/n_i, then the mean over templates), so both commands print the same
 * number for the same configuration. null: no judged response.
 */
function asByWrapper(rows: Outcome[], wrappers: string[]): (number | null)[] {
    return wrappers.map((w) => {
        const summary = summariseConfigs(scoreNeighbourhoods(rows.filter((o) => o.wrapper === w), { resamples: 1 }))[0];
        return summary === undefined || Number.isNaN(summary.AS) ? null : summary.AS;
    });
}

/** Sensitivity of one or more mutation-study runs (SPEC §8): Z, MPI per configuration and template, Kendall's W, top-k IoU. */
export function buildMutateReport(store: Store, runIds: string[], opts: { ks?: number[] } = {}): MutateReport {
    const studies: MutateStudyRow[] = runIds.map((id) => {
        const run = requireRun(store, id);
        const s = readMutateStudy<MutateStudyRow["variants"][number]>(store, run.id);
        if (!s) {
            // A plain run (`latest` is the newest run, whatever made it): say so, and name the report that reads it.
            const named = run.id === id ? `run ${id}` : `run ${run.id} ('${id}')`;
            throw new EddyError(`${named} is not a prompt-mutation study ('eddy mutate run --help' says how to start one); its scores are in`, 65, {
                next: commandLine(["report", run.id, ...dbWords(store.path)])
            });
        }
        return s;
    });
    const first = studies[0]!;
    const keptIds = [first.original, ...first.variants.filter((v) => v.kept).map((v) => v.id)];
    const outcomes = loadOutcomes(store, studies.map((s) => s.runId));
    // Compared runs must share the variants: only wrappers every run has are compared.
    const wrappers = keptIds.filter((w) => studies.every((s) => s.original === w || s.variants.some((v) => v.id === w && v.kept)));
    const configKey = (o: Outcome): string => (studies.length > 1 ? `${o.model}${o.quantization ? ` ${o.quantization}` : ""} t=${o.temperature} @${o.runId}` : `${o.model}${o.quantization ? ` ${o.quantization}` : ""} t=${o.temperature}`);
    const byConfig = new Map<string, Outcome[]>();
    for (const o of outcomes) {
        const k = configKey(o);
        if (!byConfig.has(k)) byConfig.set(k, []);
        byConfig.get(k)!.push(o);
    }
    // What each run planned (instances per template, R): the coverage and missing counts' denominators.
    const planned = new Map<string, PlannedNeighbourhood>();
    for (const st of studies) {
        const run = store.getRun(st.runId);
        const rounds = Number((JSON.parse(run?.config_json ?? "{}") as { rounds?: unknown }).rounds ?? 0);
        for (const row of store.instanceCounts(st.runId)) planned.set(plannedKey(st.runId, row.template_id), { instances: row.n, rounds: Number.isFinite(rounds) ? rounds : 0 });
    }
    const answersOf = (rows: Outcome[]): ConfigSensitivity["answers"] => {
        const summaries = summariseConfigs(scoreNeighbourhoods(rows.filter((o) => wrappers.includes(o.wrapper)), { resamples: 1, planned }));
        const sum = (f: (x: (typeof summaries)[number]) => number): number => summaries.reduce((a, x) => a + f(x), 0);
        return {
            judged: sum((x) => x.coverage.judged),
            total: sum((x) => x.coverage.total),
            responses: sum((x) => x.responses),
            truncated: sum((x) => x.harness.truncated),
            judge_error: sum((x) => x.harness.judge_error),
            missing: sum((x) => x.harness.missing)
        };
    };
    const templates = [...new Set(outcomes.map((o) => o.template))].sort();
    const configs: ConfigSensitivity[] = [...byConfig.entries()].map(([config, rows]) => {
        const values = asByWrapper(rows, wrappers);
        const judged = judgedValues(values);
        const bi = topK(judged.value, 1)[0];
        return {
            config,
            values,
            ...zAndMpi(values),
            unjudged: wrappers.filter((_, i) => values[i] === null),
            best: bi === undefined ? null : { wrapper: wrappers[judged.index[bi]!]!, value: judged.value[bi]! },
            perTemplate: templates.map((template) => {
                const tv = asByWrapper(rows.filter((o) => o.template === template), wrappers);
                return { template, values: tv, ...zAndMpi(tv) };
            }),
            answers: answersOf(rows)
        };
    });
    // Kendall's W: each variant (judge) ranks the configurations (objects) by their AS under it; a
    // variant that left some configuration unjudged cannot rank it, so it is not a judge.
    const judges = (pick: (c: ConfigSensitivity) => (number | null)[]) =>
        wrappers.map((_, j) => configs.map((c) => pick(c)[j] ?? null)).filter((row): row is number[] => row.every((x) => x !== null));
    const kendall = configs.length >= 2 ? kendallW(judges((c) => c.values)) : null;
    const kendallPerTemplate =
        configs.length >= 2 ? templates.map((template, ti) => ({ template, kendall: kendallW(judges((c) => c.perTemplate[ti]!.values)) })) : [];
    const ks = (opts.ks ?? [1, 3, 5]).filter((k) => k >= 1 && k <= wrappers.length);
    const iou = ks.map((k) => {
        const pairs: { a: string; b: string; iou: number }[] = [];
        for (let i = 0; i < configs.length; i++)
            for (let j = i + 1; j < configs.length; j++) {
                // Top-k sets over the variants both configurations have a judged response for.
                const a = configs[i]!.values, b = configs[j]!.values;
                const both = judgedValues(b, judgedValues(a).index).index;
                pairs.push({ a: configs[i]!.config, b: configs[j]!.config, iou: topKIoU(both.map((x) => a[x]!), both.map((x) => b[x]!), k) });
            }
        return { k, mean: pairs.length === 0 ? null : pairs.reduce((a, p) => a + p.iou, 0) / pairs.length, pairs };
    });
    return {
        generated: new Date().toISOString(),
        runs: studies.map((s) => s.runId),
        wrappers: wrappers.map((id) => {
            const v = first.variants.find((x) => x.id === id);
            return { id, operations: v?.operations ?? [], similarity: v ? v.similarity : null };
        }),
        rejected: first.variants.filter((v) => !v.kept).map((v) => ({ id: v.id, operations: v.operations, similarity: v.similarity })),
        embedModel: first.embedModel,
        minSimilarity: first.minSimilarity,
        configs,
        kendall,
        kendallPerTemplate,
        iou
    };
}

/** Judged answers of planned ones, in the words of every report (src/vocabulary.ts): `responses` are the judged answers. */
const judgedAnswers = (a: ConfigSensitivity["answers"]): string => judgedOf({ judged: a.responses, planned: a.responses + a.truncated + a.judge_error + a.missing });
const f3 = (x: number | null | undefined): string => (x === null || x === undefined ? "—" : x.toFixed(3));
const pctOrDash = (x: number | null): string => (x === null ? "—" : `${(x * 100).toFixed(1)}%`);
const wLabel = (k: KendallW | null): string => (k === null || k.w === null ? "—" : `${k.w.toFixed(3)} (${k.w >= 0.85 ? "strong" : "weak to moderate"})`);

export function renderMutateText(r: MutateReport): string {
    const out: string[] = [];
    out.push(`Prompt sensitivity (SPEC §8): ${r.wrappers.length - 1} variant(s) of '${r.wrappers[0]?.id}' kept at cosine >= ${r.minSimilarity} (${safeTerminalLine(r.embedModel ?? "—")}); ${r.rejected.length} rejected`);
    out.push("");
    out.push("wrappers:");
    const wrapperPairs = [
        ...r.wrappers.map((w): [string, string] => [w.id, w.similarity === null ? "original" : `cos ${w.similarity.toFixed(3)}  ${w.operations.join(" + ")}`]),
        ...r.rejected.map((w): [string, string] => [w.id, `rejected: cos ${w.similarity.toFixed(3)}  ${w.operations.join(" + ")}`])
    ];
    out.push(...renderPairs(wrapperPairs, { indent: "  " }));
    out.push("");
    out.push(renderTable(["configuration", ...r.wrappers.map((w) => w.id), "Z", "MPI"], r.configs.map((c) => [c.config, ...c.values.map(f3), f3(c.z), pctOrDash(c.mpi)])));
    for (const note of unjudgedNotes(r)) out.push(safeTerminalLine(note));
    out.push("");
    out.push("answers behind these values (all variants):");
    out.push(indent(renderTable(["configuration", "judged", "instances", "trunc", "j_err", "miss"], r.configs.map((c) => [c.config, judgedAnswers(c.answers), `${c.answers.judged} of ${c.answers.total}`, c.answers.truncated, c.answers.judge_error, c.answers.missing]))));
    out.push("judged: answers with a model verdict, of those planned; instances: instances with a judged answer,");
    out.push("of those planned (variants × templates × instances).");
    out.push("trunc / j_err: truncated and judge_error answers, left out of every value; miss: planned answers");
    out.push("with no outcome.");
    out.push("");
    out.push(`Kendall's W across variants: ${wLabel(r.kendall)}`);
    for (const x of r.iou) out.push(`top-${x.k} IoU: mean ${f3(x.mean)}${x.pairs.map((p) => `; ${safeTerminalLine(p.a)} vs ${safeTerminalLine(p.b)} ${p.iou.toFixed(3)}`).join("")}`);
    out.push("");
    out.push("per template (Z / MPI per configuration; W across variants):");
    const templates = r.configs[0]?.perTemplate.map((t) => t.template) ?? [];
    const perTemplate = templates.map((t, i) => [t, ...r.configs.map((c) => `${f3(c.perTemplate[i]!.z)} / ${pctOrDash(c.perTemplate[i]!.mpi)}`), wLabel(r.kendallPerTemplate[i]?.kendall ?? null)]);
    out.push(indent(renderTable(["template", ...r.configs.map((c) => c.config), "W"], perTemplate)));
    // Notes and headings as long as their names: wrapped at 100 columns like every message (tables fit already).
    return wrapLines(out.join("\n")) + "\n";
}

/** One sentence per configuration with unjudged variants: what "—" means and what it was left out of. */
function unjudgedNotes(r: MutateReport): string[] {
    return r.configs
        .filter((c) => c.unjudged.length > 0)
        .map((c) => `— ${c.config}: no judged response under ${c.unjudged.join(", ")} (all truncated or judge errors); left out of Z, MPI, Kendall's W and top-k IoU, not counted as 0`);
}

export function renderMutateJson(r: MutateReport): string {
    return JSON.stringify(r, null, 2) + "\n";
}

// The page's own classes; the shell (report/page.ts) holds the shared sheet and the policy.
export const MUTATE_CSS = `
tr.rejected{color:#999}small.why{color:#5b6475;font-size:11px}
`;

/** Lines of markup joined as the page shows them (one row a line). */
const lines = (xs: SafeHtml[]): SafeHtml[] => xs.flatMap((x, i) => (i === 0 ? [x] : [raw("\n"), x]));

/**
 * A self-contained HTML page: variants, AS per variant with Z and MPI, W, IoU and the per-template breakdown.
 * Built with `html` (issue #9): wrapper ids, operations, configuration labels (model names), template ids
 * and the embedding model's name are escaped by default.
 */
export function renderMutateHtml(r: MutateReport): string {
    return renderPage({ title: "eddy — prompt sensitivity report", css: MUTATE_CSS, body: html`<main>${mutateHtmlBody(r)}</main>` });
}

/** A value, or "—" with why there is none (shown beside it, so a reader need not guess). */
const orWhy = (text: string, why: string): SafeHtml | string => (text === "—" ? html`—<small class="why"> ${why}</small>` : text);

/** Why Z, MPI or W has no value for these AS values (null: the original wrapper not judged; equal values: no spread). */
const zWhy = (values: readonly (number | null)[]): string => (values[0] === null || values[0] === undefined ? "original wrapper not judged" : "σ = 0: every variant scored the same");
const mpiWhy = (values: readonly (number | null)[]): string => (values[0] === null || values[0] === undefined ? "original wrapper not judged" : "original AS is 0: no relative change");
function kendallWhy(r: MutateReport, k: KendallW | null): string {
    if (r.configs.length < 2) return "one configuration: nothing to rank";
    if (k === null || k.judges === 0) return "no variant judged every configuration";
    return "every variant tied every configuration";
}

/** The sensitivity report's content, inside any page: `eddy mutate report`'s file and `eddy view`'s page draw the same. */
export function mutateHtmlBody(r: MutateReport): SafeHtml {
    const max = Math.max(...r.configs.flatMap((c) => c.values.map((v) => v ?? 0)), 1e-9);
    const head = html`<tr><th>configuration</th>${r.wrappers.map((w) => html`<th title="${w.operations.join(" + ")}">${w.id}</th>`)}<th>Z</th><th>MPI</th></tr>`;
    const rows = lines(
        r.configs.map(
            (c) =>
                html`<tr><td>${c.config}</td>${c.values.map((v) => html`<td class="as" style="background:rgba(60,150,90,${((v ?? 0) / max) * 0.6})">${orWhy(f3(v), "no judged response")}</td>`)}<td class="z">${orWhy(f3(c.z), zWhy(c.values))}</td><td>${orWhy(pctOrDash(c.mpi), mpiWhy(c.values))}</td></tr>`
        )
    );
    const variants = lines([
        ...r.wrappers.map((w) => html`<tr><td>${w.id}</td><td>${w.similarity === null ? "original" : w.similarity.toFixed(3)}</td><td>${w.operations.join(" + ") || "none (the original)"}</td><td>kept</td></tr>`),
        ...r.rejected.map((w) => html`<tr class="rejected"><td>${w.id}</td><td>${w.similarity.toFixed(3)}</td><td>${w.operations.join(" + ")}</td><td>rejected (below the similarity threshold)</td></tr>`)
    ]);
    const templates = r.configs[0]?.perTemplate.map((t) => t.template) ?? [];
    const perTemplate = lines(
        templates.map(
            (t, i) =>
                html`<tr><td>${t}</td>${r.configs.map((c) => {
                    const pt = c.perTemplate[i]!;
                    return html`<td>${orWhy(f3(pt.z), zWhy(pt.values))}</td><td>${orWhy(pctOrDash(pt.mpi), mpiWhy(pt.values))}</td>`;
                })}<td>${orWhy(wLabel(r.kendallPerTemplate[i]?.kendall ?? null), kendallWhy(r, r.kendallPerTemplate[i]?.kendall ?? null))}</td></tr>`
        )
    );
    const iou = lines(
        r.iou.map((x) => html`<tr><td>${x.k}</td><td>${orWhy(f3(x.mean), "one configuration: no pair")}</td><td>${x.pairs.length ? x.pairs.map((p, i) => html`${i > 0 ? html`<br>` : ""}${p.a} vs ${p.b}: ${p.iou.toFixed(3)}`) : "—"}</td></tr>`)
    );
    return html`
<h1>Prompt sensitivity</h1>
<p>Semantic-preserving mutations of the wrapper '${r.wrappers[0]?.id ?? ""}' (SPEC §8), kept at cosine similarity ≥ ${r.minSimilarity ?? "(threshold not recorded)"} with ${r.embedModel ?? "(embedding model not recorded)"}. Runs: ${r.runs.join(", ")}.</p>
<h2>Variants</h2>
<p class="note">Each variant rewrites the instruction wrapper around the question (system prompt, delimiters, tags, casing, formatting) without changing the question; cosine: its similarity to the original by the embedding model; a variant below the threshold is rejected and never asked.</p>
<table id="variants"><thead><tr><th>wrapper</th><th>cosine</th><th>operations</th><th>kept?</th></tr></thead><tbody>
${variants}
</tbody></table>
<h2>AS per variant</h2>
<p class="note">Each configuration's AS (accuracy score, as 'eddy report' computes it) under each wrapper. <b>Z</b> = (AS of the original − mean over all wrappers) / σ: how far the original sits from the variants (negative: the original is below them). <b>MPI</b> (maximum performance improvement) = the largest (AS of a variant − AS of the original) / AS of the original. A "—" says why it has no value.</p>
<table id="sensitivity"><thead>${head}</thead><tbody>
${rows}
</tbody></table>
${lines(unjudgedNotes(r).map((n) => html`<p class="note">${n}</p>`))}
<table id="answers"><thead><tr><th>configuration</th><th>judged</th><th>instances</th><th>truncated</th><th>judge_error</th><th>missing</th></tr></thead><tbody>
${lines(r.configs.map((c) => html`<tr><td>${c.config}</td><td>${judgedAnswers(c.answers)}</td><td>${c.answers.judged} of ${c.answers.total}</td><td>${c.answers.truncated}</td><td>${c.answers.judge_error}</td><td>${c.answers.missing}</td></tr>`))}
</tbody></table>
<p class="note">judged: answers with a model verdict, of those planned; instances: instances with a judged answer, of those planned (variants × templates × instances); truncated and judge_error answers are left out of every value; missing: planned answers with no outcome.</p>
<p>Kendall's W across variants: <b id="kendall-w">${orWhy(wLabel(r.kendall), kendallWhy(r, r.kendall))}</b></p>
<p class="note">Kendall's W: how much the variants agree on the order of the configurations (each variant ranks them by AS); 1 is the same order under every variant, 0 no agreement; 0.85 or more is read as strong.</p>
<h2>Top-k IoU between configurations</h2>
<p class="note">For each pair of configurations, the overlap (intersection over union) of their k best variants: 1 when both do best under the same wrappers.</p>
<table id="iou"><thead><tr><th>k</th><th>mean IoU</th><th>pairs</th></tr></thead><tbody>
${iou}
</tbody></table>
<h2>Per template</h2>
<p class="note">Z and MPI per configuration on each template alone, and W across the variants on it.</p>
<table id="per-template"><thead><tr><th>template</th>${r.configs.map((c) => html`<th>Z ${c.config}</th><th>MPI</th>`)}<th>Kendall's W</th></tr></thead><tbody>
${perTemplate}
</tbody></table>
`;
}

/** The mutation report's formats, each with its renderer (`eddy mutate report`). */
export const MUTATE_RENDERERS = {
    text: renderMutateText,
    json: renderMutateJson,
    html: renderMutateHtml
} as const satisfies Record<string, (r: MutateReport) => string>;
export type MutateReportFormat = keyof typeof MUTATE_RENDERERS;
export const MUTATE_REPORT_FORMATS = Object.keys(MUTATE_RENDERERS) as MutateReportFormat[];
