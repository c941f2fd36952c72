import { fix, interval, pct, pval } from "../../report/format.js";
import { scoreDelta, scoreValue } from "../../report/scoreTable.js";
import { html, type SafeHtml } from "../../report/safeHtml.js";
import { renderTable, wrap } from "../../report/terminalTable.js";
import type { QuantFileReport, QuantReport } from "../study/types.js";
import { fileLabel, kl, mib } from "./labels.js";

/**
 * The recommendation table of a quantisation study: per file and cache type, bits per weight, size, pass@1 and
 * AS/CPS/CCS with intervals, McNemar against the reference, flips, KL and top-1 agreement, tokens per CPU-second,
 * and whether it is not significantly worse. Built once here ({@link recommendationTable}); the terminal
 * ({@link recommendationText}), the HTML report and the viewer ({@link recommendationHtml}) only draw it.
 */

/** The column groups: the terminal draws each as a table of its own (100 columns), HTML as one table under group heads. */
export const RECOMMENDATION_GROUPS = [
    { key: "quality", title: "Quality against the reference (same instances, rounds and seeds)", short: "quality" },
    { key: "consistency", title: "Every instance solved at least once (CPS) and in every round (CCS)", short: "CPS and CCS" },
    { key: "evidence", title: "Evidence: McNemar against the reference (p per instance / per response), flips", short: "evidence" },
    { key: "cost", title: "Cost and drift", short: "cost and drift" }
] as const;
export type RecommendationGroup = (typeof RECOMMENDATION_GROUPS)[number]["key"];

/** One cell: its value, an interval or remark drawn beside it (muted in HTML), and a tone. */
export interface RecommendationCell {
    text: string;
    note?: string;
    tone?: "good" | "bad" | "muted";
    /** What the cell counts, for a renderer that links it (the viewer links flips to the flipped answers). */
    links?: "flips";
}

/** A column: its head, its group, and the cell of a configuration. */
export interface RecommendationColumn {
    key: string;
    head: string;
    group: RecommendationGroup;
    /** Right-aligned in HTML. */
    numeric: boolean;
    cell: (f: QuantFileReport) => RecommendationCell;
}

/** A row: the configuration, its label, and whether it is the reference or the configuration to ship. */
export interface RecommendationRow {
    file: QuantFileReport;
    label: string;
    reference: boolean;
    recommended: boolean;
    cells: Record<string, RecommendationCell>;
}

export interface RecommendationTable {
    columns: readonly RecommendationColumn[];
    rows: RecommendationRow[];
    /** What the table's marks mean, one sentence each. */
    notes: string[];
}

const plain = (text: string): RecommendationCell => ({ text });

/** A score's delta against the reference, with its paired bootstrap interval (none on the reference's own row). */
const delta = (f: QuantFileReport, k: "AS" | "CPS" | "CCS"): RecommendationCell =>
    f.reference || Number.isNaN(f.scores[k].delta) ? { text: "–" } : { text: scoreDelta(k, f.scores[k].delta), note: interval(f.scores[k].ci) };

/** Every column, in order. */
export const RECOMMENDATION_COLUMNS: readonly RecommendationColumn[] = [
    { key: "pass1", head: "pass@1 [95% CI]", group: "quality", numeric: true, cell: (f) => ({ text: scoreValue("pass@1", f.pass_at_1.value), note: interval(f.pass_at_1.ci) }) },
    { key: "as", head: "AS", group: "quality", numeric: true, cell: (f) => plain(scoreValue("AS", f.scores.AS.candidate)) },
    { key: "das", head: "ΔAS [95% CI]", group: "quality", numeric: true, cell: (f) => delta(f, "AS") },
    {
        key: "notWorse",
        head: "not worse",
        group: "quality",
        numeric: false,
        cell: (f) => (f.not_worse === null ? { text: "n/a", tone: "muted" } : f.not_worse ? { text: "yes", tone: "good" } : { text: "NO", tone: "bad" })
    },
    { key: "cps", head: "CPS", group: "consistency", numeric: true, cell: (f) => plain(scoreValue("CPS", f.scores.CPS.candidate)) },
    { key: "dcps", head: "ΔCPS [95% CI]", group: "consistency", numeric: true, cell: (f) => delta(f, "CPS") },
    { key: "ccs", head: "CCS", group: "consistency", numeric: true, cell: (f) => plain(scoreValue("CCS", f.scores.CCS.candidate)) },
    { key: "dccs", head: "ΔCCS [95% CI]", group: "consistency", numeric: true, cell: (f) => delta(f, "CCS") },
    { key: "compared", head: "compared", group: "evidence", numeric: true, cell: (f) => plain(String(f.instances)) },
    // No p where nothing was compared: p = 1 would read as evidence.
    { key: "mcnemar", head: "McNemar p", group: "evidence", numeric: true, cell: (f) => plain(f.reference || f.instances === 0 ? "–" : `${pval(f.mcnemar.instance.p)} / ${pval(f.mcnemar.response.p)}`) },
    { key: "flipsResp", head: "lost/gained resp", group: "evidence", numeric: true, cell: (f) => ({ text: `${f.flip_counts.responses.lost}/${f.flip_counts.responses.gained}`, links: "flips" }) },
    { key: "flipsInst", head: "lost/gained inst", group: "evidence", numeric: true, cell: (f) => ({ text: `${f.flip_counts.instances.lost}/${f.flip_counts.instances.gained}`, links: "flips" }) },
    { key: "bpw", head: "bits/weight", group: "cost", numeric: true, cell: (f) => plain(f.bits_per_weight == null ? "–" : f.bits_per_weight.toFixed(2)) },
    { key: "size", head: "size", group: "cost", numeric: true, cell: (f) => plain(mib(f.size_bytes)) },
    { key: "top1", head: "top-1 agree", group: "cost", numeric: true, cell: (f) => plain(f.top1_agreement == null ? "–" : pct(f.top1_agreement)) },
    { key: "kl", head: "KL mean", group: "cost", numeric: true, cell: (f) => plain(kl(f.kl_mean)) },
    { key: "tpcs", head: "tok/CPU-s", group: "cost", numeric: true, cell: (f) => plain(f.tokens_per_cpu_second == null ? "–" : fix(f.tokens_per_cpu_second, f.tokens_per_cpu_second < 10 ? 2 : 0)) }
];

/** The study's recommendation table. */
export function recommendationTable(r: QuantReport): RecommendationTable {
    const rows = r.files.map((f) => ({
        file: f,
        label: fileLabel(f),
        reference: f.reference,
        recommended: r.verdict.configuration === f.model,
        cells: Object.fromEntries(RECOMMENDATION_COLUMNS.map((c) => [c.key, c.cell(f)]))
    }));
    return {
        columns: RECOMMENDATION_COLUMNS,
        rows,
        notes: [
            "not worse: no score interval wholly below 0 and no significant excess of losses (McNemar, α = 0.05); n/a: undecided (nothing compared, or too few reference passes for a loss to be significant).",
            "Intervals: Wilson for pass@1, paired percentile bootstrap over instances for the deltas. Pairs with a truncated or judge_error verdict on either side are left out. McNemar p: exact, per instance (all rounds passed) / per response.",
            "tok/CPU-s: tokens generated per CPU-second of the inference process (every thread) over this study's generation, on this machine; answers taken from the response cache cost none and are not counted.",
            "KL: mean KL(reference ‖ configuration) of next-token distributions by teacher forcing, nats; top-1: how often both pick the same next token."
        ]
    };
}

/** The row's label as the terminal shows it: `(ref)` on the reference, `(ship)` on the configuration to ship. */
const textLabel = (row: RecommendationRow): string => row.label + (row.reference ? " (ref)" : "") + (row.recommended && !row.reference ? " (ship)" : "");

/** The table in the terminal: one table per column group, each headed by the configuration, then the notes. */
export function recommendationText(t: RecommendationTable, width = 100): string {
    const out: string[] = [];
    for (const g of RECOMMENDATION_GROUPS) {
        const cols = t.columns.filter((c) => c.group === g.key);
        const rows = t.rows.map((row) => [textLabel(row), ...cols.map((c) => cellText(row.cells[c.key]!))]);
        // The configuration is never shortened: it is what the row is about.
        out.push("", wrap(g.title, width), renderTable([{ head: "configuration", fixed: true }, ...cols.map((c) => c.head)], rows, { width }));
    }
    out.push("", ...t.notes.map((n) => wrap(n, width)));
    return out.join("\n");
}

const cellText = (c: RecommendationCell): string => (c.note ? `${c.text} ${c.note}` : c.text);

/** What a renderer of HTML may link: a configuration's flips (the viewer: to its flipped answers). */
export interface RecommendationLinks {
    flips?: (f: QuantFileReport) => string | undefined;
}

/** The table as HTML (the report and the viewer): one table, group heads over its columns; every value escaped. */
export function recommendationHtml(t: RecommendationTable, links: RecommendationLinks = {}): SafeHtml {
    const groups = RECOMMENDATION_GROUPS.map((g) => ({ g, n: t.columns.filter((c) => c.group === g.key).length }));
    const cols = RECOMMENDATION_GROUPS.flatMap((g) => t.columns.filter((c) => c.group === g.key));
    const td = (row: RecommendationRow, c: RecommendationColumn): SafeHtml => {
        const cell = row.cells[c.key]!;
        const href = cell.links === "flips" && !row.reference ? links.flips?.(row.file) : undefined;
        const value = cell.tone ? html`<span class="${cell.tone}">${cell.text}</span>` : cell.text;
        const shown = href ? html`<a href="${href}">${value}</a>` : value;
        return html`<td class="${c.numeric ? "n" : ""}" data-col="${c.key}">${shown}${cell.note ? html` <span class="muted">${cell.note}</span>` : ""}</td>`;
    };
    const rows = t.rows.map(
        (row) =>
            html`<tr class="${row.recommended ? "recommended" : ""}" data-config="${row.file.model}"><th scope="row">${row.label}${row.reference ? html` <span class="muted">(reference)</span>` : ""}${row.recommended ? html` <b class="good">ship</b>` : ""}</th>${cols.map((c) => td(row, c))}</tr>`
    );
    return html`<div class="scroll"><table class="recommendation"><thead><tr><th></th>${groups.map(({ g, n }) => html`<th colspan="${n}" class="group">${g.short}</th>`)}</tr>
<tr><th>configuration</th>${cols.map((c) => html`<th>${c.head}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div>
${t.notes.map((n) => html`<p class="muted">${n}</p>`)}`;
}
