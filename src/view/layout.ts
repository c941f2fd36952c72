import { REPORT_CSS } from "../report/html.js";
import { renderPage } from "../report/page.js";
import { html, type HtmlValue, type SafeHtml } from "../report/safeHtml.js";
import { answersUrl, auditsUrl, compareUrl, loopsUrl, runsUrl } from "./urls.js";

/**
 * The viewer's pages in the report's page shell (report/page.ts): the same policy (nothing loads,
 * nothing runs; forms submit only to the viewer), the same sheet and category badges, plus the
 * viewer's own classes. Every value is escaped by `html`.
 */

/** Colours of verdict categories in grids and badges; harness outcomes grey, no verdict white. */
const VERDICT_COLOURS: Record<string, string> = {
    passed: "#2e7d32",
    assertion_error: "#c62828",
    fuzzing_failure: "#ef6c00",
    runtime_error: "#ad1457",
    resource_exhaustion: "#5d4037",
    syntax_error: "#6a1b9a",
    static_error: "#4527a0",
    no_function: "#283593",
    wrong_function_name: "#1565c0",
    wrong_arg_count: "#00838f",
    truncated: "#9e9e9e",
    judge_error: "#616161"
};

const VIEW_CSS = `
.crumbs{font-size:13px;color:#c5cad6;margin:4px 0 0}.crumbs a{color:#fff}
${Object.entries(VERDICT_COLOURS)
    .map(([k, c]) => `.v-${k}{background:${c}}`)
    .join("")}
.v-none{background:#fff;border:1px solid #bbb}
.verdict{display:inline-block;padding:1px 8px;border-radius:10px;font-size:11.5px;color:#fff;white-space:nowrap}
.verdict.v-none{color:var(--fg)}
table.grid{border-collapse:separate;border-spacing:2px}
table.grid td,table.grid th{border:0;padding:0 4px;font-size:11.5px}
table.grid td.cell{padding:0}
table.grid td.cell a{display:block;width:16px;height:16px;border-radius:3px}
table.grid td.params{font-family:ui-monospace,monospace;white-space:nowrap;max-width:260px;overflow:hidden;text-overflow:ellipsis}
.legend span{margin-right:10px;font-size:12px}.legend i{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:4px;vertical-align:-1px}
form.filters{display:flex;flex-wrap:wrap;gap:8px 14px;align-items:end;margin:6px 0 12px}
form.filters label{display:flex;flex-direction:column;font-size:12px;color:var(--muted)}
form.filters input[type=search]{min-width:240px}
pre.response{max-height:480px;white-space:pre-wrap;word-break:break-word}
pre.prompt{background:#f3f4f7;color:var(--fg);white-space:pre-wrap;word-break:break-word}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:6px 0;font-size:13px}dl.kv dt{color:var(--muted)}dl.kv dd{margin:0;font-family:ui-monospace,monospace;word-break:break-word}
section.round{border-left:4px solid var(--line)}
.pager{display:flex;gap:16px;margin:10px 0}
#configs td:first-child{white-space:nowrap}
td.detail{max-width:520px;font-family:ui-monospace,monospace;font-size:11.5px;word-break:break-word}
`;

/** A crumb of the path shown under the title: a link, or the current page's name. */
export type Crumb = [label: string, href?: string];

/** A complete viewer page; `css`: rules of a report drawn inside it (the loop and sensitivity reports'). */
export function viewerPage(title: string, crumbs: readonly Crumb[], body: HtmlValue, css = ""): string {
    const trail = crumbs.map(([label, href], i) => html`${i ? " › " : ""}${href ? html`<a href="${href}">${label}</a>` : label}`);
    const page = html`<header><h1>${title}</h1><p class="crumbs">${trail}</p></header>
<nav><a href="${runsUrl()}">Runs</a><a href="${answersUrl({})}">Answers</a><a href="${compareUrl()}">Compare</a><a href="${loopsUrl()}">Loops</a><a href="${auditsUrl()}">Determinism audits</a></nav>
<main>${body}</main>`;
    return renderPage({ title: `eddy view: ${title}`, css: REPORT_CSS + VIEW_CSS + css, body: page, served: true });
}

/** A verdict category as a coloured badge ("no verdict" when none yet). */
export function verdictBadge(category: string | null, missing = false): SafeHtml {
    const k = missing ? "missing" : (category ?? "unjudged");
    return html`<span class="verdict ${VERDICT_COLOURS[k] ? `v-${k}` : "v-none"}">${k}</span>`;
}

/** The class that colours a grid cell. */
export function verdictClass(category: string | null, missing = false): string {
    return !missing && category && VERDICT_COLOURS[category] ? `v-${category}` : "v-none";
}

/** The legend of verdict colours. */
export function verdictLegend(): SafeHtml {
    return html`<p class="legend">${Object.entries(VERDICT_COLOURS).map(([k, c]) => html`<span><i style="background:${c}"></i>${k}</span>`)}<span><i class="v-none"></i>missing or not judged yet</span></p>`;
}

/** A simple table; `num` cells are right-aligned. */
export type Cell = HtmlValue | { num: string | number };

export function table(head: readonly HtmlValue[], rows: readonly (readonly Cell[])[], attrs: { id?: string } = {}): SafeHtml {
    const cell = (c: Cell) => (c !== null && typeof c === "object" && "num" in c ? html`<td class="n">${String(c.num)}</td>` : html`<td>${c as HtmlValue}</td>`);
    return html`<div class="scroll"><table${attrs.id ? html` id="${attrs.id}"` : ""}><thead><tr>${head.map((x) => html`<th>${x}</th>`)}</tr></thead><tbody>${rows.map((r) => html`<tr>${r.map(cell)}</tr>`)}</tbody></table></div>`;
}

/** A right-aligned number cell. */
export const num = (v: string | number): { num: string | number } => ({ num: v });
