import { REPORT_CSS } from "../report/html.js";
import { renderPage } from "../report/page.js";
import { html, SafeHtml, type HtmlValue } from "../report/safeHtml.js";
import { SCORES, type ScoreColumn } from "../report/scoreTable.js";
import { CATEGORY_LABELS } from "../scores/neighbourhood.js";
import { answersUrl, auditsUrl, compareUrl, leaderboardUrl, loopsUrl, quantStudiesUrl, runsUrl } from "./urls.js";

/**
 * The viewer's pages in the report's page shell (report/page.ts): the same policy (nothing loads,
 * nothing runs; forms submit only to the viewer), the same sheet and category badges, plus the
 * viewer's own classes. Every value is escaped by `html`.
 */

/**
 * How each verdict is drawn: a colour, and a symbol that says the same without colour (grid cells
 * carry it as text; the legend maps it back). Model failures are warm hues, harness outcomes grey.
 */
const VERDICTS: Record<string, { colour: string; symbol: string; meaning: string }> = {
    passed: { colour: "#2e7d32", symbol: "✓", meaning: "passed every fixed test and agreed with the model solution on every random input" },
    assertion_error: { colour: "#c62828", symbol: "A", meaning: "a fixed test failed" },
    fuzzing_failure: { colour: "#e65100", symbol: "F", meaning: "disagreed with the model solution on a random input" },
    runtime_error: { colour: "#ad1457", symbol: "R", meaning: "raised an exception" },
    resource_exhaustion: { colour: "#6d4c41", symbol: "L", meaning: "hit the time or memory limit" },
    syntax_error: { colour: "#6a1b9a", symbol: "S", meaning: "does not parse" },
    static_error: { colour: "#4527a0", symbol: "N", meaning: "a static error, such as an undefined name" },
    no_function: { colour: "#283593", symbol: "∅", meaning: "no code, or no function, in the answer" },
    wrong_function_name: { colour: "#1565c0", symbol: "W", meaning: "the function has another name than asked" },
    wrong_arg_count: { colour: "#00838f", symbol: "#", meaning: "the function takes another number of arguments" },
    truncated: { colour: "#8d8d8d", symbol: "T", meaning: "generation hit its token limit (harness outcome: left out of every score)" },
    judge_error: { colour: "#5f5f5f", symbol: "J", meaning: "the harness failed (left out of every score, never a model failure)" }
};
/** Cells that have no verdict: a missing answer, an answer not judged yet, a round not generated yet. */
const NO_VERDICT: Record<string, { symbol: string; meaning: string }> = {
    missing: { symbol: "?", meaning: "missing: no answer in the replay file" },
    unjudged: { symbol: "·", meaning: "answered, not judged yet" },
    none: { symbol: "", meaning: "empty: not generated yet" }
};

/** The symbol of a verdict (or of no verdict: `missing`, `unjudged`, `none`). */
export function verdictSymbol(k: string): string {
    return VERDICTS[k]?.symbol ?? NO_VERDICT[k]?.symbol ?? "?";
}

/** What a verdict means, in a few words. */
export function verdictMeaning(k: string): string {
    return VERDICTS[k]?.meaning ?? NO_VERDICT[k]?.meaning ?? k;
}

/** What the four neighbourhood categories mean (SPEC §3). */
export const CATEGORY_MEANING: Record<string, string> = {
    perfect_success: "AS = 1: every instance passed in every round",
    stochastic_failure: "0 < AS < 1 and CPS = 1: every instance passed at least once, some not in every round",
    inconsistent_generalisation: "AS > 0 and CPS < 1: some instances solved, some never",
    perfect_failure: "AS = 0: no instance ever solved"
};

const VIEW_CSS = `
.crumbs{font-size:13px;color:#c5cad6;margin:4px 0 0}.crumbs a{color:#fff}
${Object.entries(VERDICTS)
    .map(([k, v]) => `.v-${k}{background:${v.colour}}`)
    .join("")}
.v-none{background:#fff;border:1px solid #bbb}.v-missing,.v-unjudged{background:#fff;border:1px dashed #777}
.verdict{display:inline-block;padding:1px 8px;border-radius:10px;font-size:11.5px;color:#fff;white-space:nowrap}
.verdict.v-none,.verdict.v-missing,.verdict.v-unjudged{color:var(--fg)}
table.grid{border-collapse:separate;border-spacing:2px}
table.grid td,table.grid th{border:0;padding:0 4px;font-size:11.5px}
table.grid td.cell{padding:0}
table.grid td.cell a,.legend i{display:block;width:18px;height:18px;line-height:18px;border-radius:3px;text-align:center;color:#fff;font:700 11px/18px ui-monospace,monospace;text-decoration:none;font-style:normal}
table.grid td.cell a.v-none,table.grid td.cell a.v-missing,table.grid td.cell a.v-unjudged,.legend i.v-none,.legend i.v-missing,.legend i.v-unjudged{color:var(--fg)}
table.grid td.param{font-family:ui-monospace,monospace;white-space:nowrap;max-width:160px;overflow:hidden;text-overflow:ellipsis}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;margin:6px 0;padding:0;list-style:none;font-size:12px}.legend li{display:flex;gap:6px;align-items:center}.legend i{display:inline-block}
dl.defs{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:6px 0;font-size:12.5px}dl.defs dt{font-weight:600}dl.defs dd{margin:0;color:var(--muted)}
form.filters{display:flex;flex-wrap:wrap;gap:8px 14px;align-items:end;margin:6px 0 12px}
form.filters label{display:flex;flex-direction:column;font-size:12px;color:var(--muted)}
form.filters input[type=search]{min-width:240px}
pre.response{max-height:480px;white-space:pre-wrap;word-break:break-word}
pre.prompt{background:#f3f4f7;color:var(--fg);white-space:pre-wrap;word-break:break-word}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:6px 0;font-size:13px}dl.kv dt{color:var(--muted)}dl.kv dd{margin:0;font-family:ui-monospace,monospace;word-break:break-word}
section.round{border-left:4px solid var(--line)}
.pager{display:flex;gap:16px;margin:10px 0}
#configs td:first-child>a{white-space:nowrap}
td.detail{max-width:520px;font-family:ui-monospace,monospace;font-size:11.5px;word-break:break-word}
th a.sort{color:inherit;text-decoration:none}th a.sort:hover{text-decoration:underline}th.sorted{background:#eef2fb}
`;

/** A crumb of the path shown under the title: a link, or the current page's name. */
export type Crumb = [label: string, href?: string];

/** A complete viewer page; `css`: rules of a report drawn inside it (the loop and sensitivity reports'), and of the page itself. */
export function viewerPage(title: string, crumbs: readonly Crumb[], body: HtmlValue, css = ""): string {
    const trail = crumbs.map(([label, href], i) => html`${i ? " › " : ""}${href ? html`<a href="${href}">${label}</a>` : label}`);
    const page = html`<header><h1>${title}</h1><p class="crumbs">${trail}</p></header>
<nav><a href="${leaderboardUrl()}">Leaderboard</a><a href="${runsUrl()}">Runs</a><a href="${answersUrl({})}">Answers</a><a href="${compareUrl()}">Compare</a><a href="${quantStudiesUrl()}">Quantisation</a><a href="${loopsUrl()}">Loops</a><a href="${auditsUrl()}">Determinism audits</a></nav>
<main>${body}</main>`;
    return renderPage({ title: `eddy view: ${title}`, css: REPORT_CSS + VIEW_CSS + css, body: page, served: true });
}

/** The key a verdict is drawn by: its category, `missing`, or `unjudged` (an answer without a verdict yet). */
export function verdictKey(category: string | null, missing = false): string {
    return missing ? "missing" : (category ?? "unjudged");
}

/** The class that colours a verdict's badge or cell. */
export function verdictClass(category: string | null, missing = false): string {
    const k = verdictKey(category, missing);
    return VERDICTS[k] ? `v-${k}` : NO_VERDICT[k] ? `v-${k}` : "v-none";
}

/** A verdict category as a coloured badge with its name ("unjudged" when none yet). */
export function verdictBadge(category: string | null, missing = false): SafeHtml {
    const k = verdictKey(category, missing);
    return html`<span class="verdict ${verdictClass(category, missing)}" title="${verdictMeaning(k)}">${k}</span>`;
}

/**
 * The legend of the verdicts on a page (those in `present`, in the judge's order, then those without a
 * verdict): each one's colour with its symbol, its name and what it means.
 */
export function verdictLegend(present: Iterable<string> = [...Object.keys(VERDICTS), ...Object.keys(NO_VERDICT)]): SafeHtml {
    const have = new Set(present);
    const keys = [...Object.keys(VERDICTS), ...Object.keys(NO_VERDICT)].filter((k) => have.has(k));
    return html`<ul class="legend" id="legend">${keys.map(
        (k) => html`<li data-verdict="${k}"><i class="v-${k}">${verdictSymbol(k)}</i><b>${k === "none" ? "empty" : k}</b> <span class="muted">${verdictMeaning(k)}</span></li>`
    )}</ul>`;
}

/** The scores' definitions (the one table of scores, report/scoreTable.ts) as a list on the page, and the four categories. */
export function scoreDefinitions(cols: readonly ScoreColumn[] = SCORES, categories = true): SafeHtml {
    return html`<dl class="defs" id="definitions">${cols.map((k) => html`<dt>${k.label}</dt><dd>${k.description} (${k.read}).</dd>`)}${
        categories ? Object.entries(CATEGORY_MEANING).map(([k, m]) => html`<dt><span class="badge ${k}">${CATEGORY_LABELS[k as keyof typeof CATEGORY_LABELS]}</span></dt><dd>${m}.</dd>`) : ""
    }</dl>`;
}

/** A simple table; `num` cells are right-aligned. */
export type Cell = HtmlValue | { num: string | number } | { td: SafeHtml };
/** A header cell: text or markup inside a plain <th>, or a whole <th> (a sortable one, {@link sortHeader}). */
export type Head = HtmlValue | { th: SafeHtml };

export function table(head: readonly Head[], rows: readonly (readonly Cell[])[], attrs: { id?: string; cls?: string } = {}): SafeHtml {
    const cell = (c: Cell) => {
        if (c !== null && typeof c === "object" && !Array.isArray(c) && !(c instanceof SafeHtml)) return "num" in c ? html`<td class="n">${String(c.num)}</td>` : (c as { td: SafeHtml }).td;
        return html`<td>${c as HtmlValue}</td>`;
    };
    return html`<div class="scroll"><table${attrs.id ? html` id="${attrs.id}"` : ""}${attrs.cls ? html` class="${attrs.cls}"` : ""}><thead><tr>${head.map((x) => (isTh(x) ? x.th : html`<th>${x}</th>`))}</tr></thead><tbody>${rows.map((r) => html`<tr>${r.map(cell)}</tr>`)}</tbody></table></div>`;
}

const isTh = (x: Head): x is { th: SafeHtml } => typeof x === "object" && x !== null && !Array.isArray(x) && !(x instanceof SafeHtml) && "th" in x;

/** A whole cell, its own <td> with attributes. */
export const td = (markup: SafeHtml): { td: SafeHtml } => ({ td: markup });

/** A right-aligned number cell. */
export const num = (v: string | number): { num: string | number } => ({ num: v });

/**
 * A sortable column's header: a link to the same page sorted by `key` (descending first for numbers,
 * the other way when it is already the sort), marked when it is the current one. No script: the page
 * is drawn again, sorted, by the server.
 */
export function sortHeader(label: HtmlValue, key: string, current: { sort: string; dir: "asc" | "desc" }, href: (sort: string, dir: "asc" | "desc") => string, first: "asc" | "desc" = "desc", title?: string): { th: SafeHtml } {
    const on = current.sort === key;
    const next = on ? (current.dir === "asc" ? "desc" : "asc") : first;
    const arrow = on ? (current.dir === "asc" ? " ▲" : " ▼") : "";
    return { th: html`<th${on ? html` class="sorted" aria-sort="${current.dir === "asc" ? "ascending" : "descending"}"` : ""}><a class="sort" data-sort="${key}" href="${href(key, next)}"${title ? html` title="${title}"` : ""}>${label}${arrow}</a></th>` };
}
