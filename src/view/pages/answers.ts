import { EddyError } from "../../util/errors.js";
import { recordedLanguage } from "../../languages/languages.js";
import { html, type HtmlValue } from "../../report/safeHtml.js";
import type { AnswerFilter } from "../../store/viewQueries.js";
import type { PageContext, PageResult } from "../context.js";
import { table, verdictBadge, viewerPage } from "../layout.js";
import { paramsText } from "../params.js";
import { answersUrl, instanceUrl, runsUrl } from "../urls.js";

/** Stored bindings, or none when they do not read as an object. */
function parseBindings(json: string): Record<string, unknown> | undefined {
    try {
        const v = JSON.parse(json) as unknown;
        return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
    } catch {
        return undefined;
    }
}

/** Answers per page. */
export const ANSWERS_PAGE = 50;

/** Pages that `total` answers fill. */
const pages = (total: number): number => Math.ceil(total / ANSWERS_PAGE);

/** The longest search text (characters): a substring scan of every response, not a place for a document. */
export const MAX_SEARCH_CHARS = 1000;
/** The longest value of any other filter (an id, a name). */
const MAX_VALUE_CHARS = 200;
/** The highest page number asked for (50 answers a page: 50 million answers). */
const MAX_PAGE = 1_000_000;

/**
 * The filters of the answers list, read from the URL. A value that is not what its filter takes (a configuration
 * or instance that is not a whole number, a temperature that is not a number, a page that is not 1, 2, 3…, a text
 * too long) is a 400 page saying which, never a guess.
 */
export function answerFilter(q: URLSearchParams): AnswerFilter {
    const text = (k: string, max = MAX_VALUE_CHARS) => {
        const v = q.get(k);
        if (v === null || v === "") return undefined;
        if (v.length > max) throw new EddyError(`${k === "q" ? "the search text" : `'${k}'`} is ${v.length} characters long; at most ${max} are taken`, 400);
        return v;
    };
    const number = (k: string, whole: boolean) => {
        const v = text(k);
        if (v === undefined) return undefined;
        const n = Number(v);
        if (!/^-?\d+(\.\d+)?$/.test(v.trim()) || !Number.isFinite(n) || (whole && (!Number.isSafeInteger(n) || n < 0)))
            throw new EddyError(`'${k}' must be ${whole ? "a whole number (0, 1, 2…)" : "a number such as 0.7"}, not '${v.slice(0, 40)}'`, 400);
        return n;
    };
    const f: AnswerFilter = {};
    const put = <K extends keyof AnswerFilter>(k: K, v: AnswerFilter[K] | undefined) => {
        if (v !== undefined) f[k] = v;
    };
    put("run", text("run"));
    put("config", number("config", true));
    put("template", text("template"));
    put("group", text("group"));
    put("category", text("category"));
    put("model", text("model"));
    put("temperature", number("temperature", false));
    put("language", text("language"));
    put("instance", number("instance", true));
    put("q", text("q", MAX_SEARCH_CHARS));
    return f;
}

/** The page asked for, counted from 1 as it is shown (`?page=2` is "page 2"); absent: 1. */
export function answersPageNumber(q: URLSearchParams): number {
    const v = q.get("page");
    if (v === null || v === "") return 1;
    if (!/^\d{1,7}$/.test(v) || Number(v) < 1 || Number(v) > MAX_PAGE) throw new EddyError(`'page' must be a page number from 1 to ${MAX_PAGE.toLocaleString("en")}, not '${v.slice(0, 40)}'`, 400);
    return Number(v);
}

/** `/answers`: answers filtered by run, configuration, template, group, verdict, model, temperature and language, and searched in responses and details. */
export function answersPage(ctx: PageContext): PageResult {
    const f = answerFilter(ctx.url.searchParams);
    const shownPage = answersPageNumber(ctx.url.searchParams);
    const page = shownPage - 1;
    const { rows, more } = ctx.store.view.answers(f, page * ANSWERS_PAGE, ANSWERS_PAGE);
    // The total: known without counting on the last page; counted when the page asked for is past the end.
    const total = more ? undefined : rows.length > 0 || page === 0 ? page * ANSWERS_PAGE + rows.length : ctx.store.view.countAnswers(f);
    const facets = ctx.store.view.facets();
    const runs = ctx.store.view.runs();
    const languages = [...new Set(runs.map((r) => recordedLanguage(r.config.language)))].sort();
    const select = (name: keyof AnswerFilter, label: string, values: readonly (string | number)[], extra: [string, string][] = []) => {
        const current = f[name] === undefined ? "" : String(f[name]);
        return html`<label>${label}<select name="${name}"><option value="">any</option>${extra.map(([v, l]) => html`<option value="${v}"${v === current ? html` selected` : ""}>${l}</option>`)}${values.map(
            (v) => html`<option value="${String(v)}"${String(v) === current ? html` selected` : ""}>${String(v)}</option>`
        )}</select></label>`;
    };
    const hidden: HtmlValue[] = [];
    if (f.config !== undefined) hidden.push(html`<input type="hidden" name="config" value="${f.config}">`);
    if (f.instance !== undefined) hidden.push(html`<input type="hidden" name="instance" value="${f.instance}">`);
    const form = html`<form class="filters" method="get" action="/answers">${hidden}${select("run", "run", runs.map((r) => r.id))}${select("template", "template", facets.templates)}${select("group", "group", facets.groups)}${select("category", "verdict", facets.categories, [
        ["failing", "failing (any model failure)"],
        ["missing", "missing"]
    ])}${select("model", "model", facets.models)}${select("temperature", "temperature", facets.temperatures)}${select("language", "language", languages)}<label>search responses and details<input type="search" name="q" value="${f.q ?? ""}" placeholder="text"></label><button type="submit">filter</button> <a href="/answers">clear</a></form>`;
    const base = Object.fromEntries(Object.entries(f).map(([k, v]) => [k, v as string | number]));
    const list = rows.length
        ? table(
              ["answer", "run", "config", "template", "group", "instance", "round", "verdict", "detail"],
              rows.map((r) => [
                  html`<a class="answer" href="${instanceUrl(r.runId, r.configId, r.template, r.instance, r.round)}">${r.id}</a>`,
                  r.runId,
                  r.config,
                  r.template,
                  r.group,
                  html`#${r.instance} ${paramsText(parseBindings(r.bindings), JSON.parse(r.params) as unknown[])}`,
                  { num: r.round },
                  verdictBadge(r.category, r.missing),
                  html`<span class="detail">${r.detail}</span>`
              ]),
              { id: "answers" }
          )
        : total !== undefined && total > 0
          ? html`<p class="muted" id="no-answers">No answers on page ${shownPage}: ${total} ${total === 1 ? "answer matches" : "answers match"}, on ${pages(total)} ${pages(total) === 1 ? "page" : "pages"}; <a href="${answersUrl({ ...base, page: pages(total) > 1 ? pages(total) : undefined })}">the last page</a>.</p>`
          : html`<p class="muted" id="no-answers">No answer matches.</p>`;
    const of = total === undefined ? "" : ` of ${total}`;
    const pageOf = total === undefined ? "" : ` of ${Math.max(1, pages(total))}`;
    const pager = html`<p class="pager">${page > 0 && rows.length ? html`<a rel="prev" href="${answersUrl({ ...base, page: shownPage - 1 > 1 ? shownPage - 1 : undefined })}">← previous</a>` : ""}<span class="muted">page ${shownPage}${pageOf}${rows.length ? `, answers ${page * ANSWERS_PAGE + 1}–${page * ANSWERS_PAGE + rows.length}${of}` : ""}</span>${more ? html`<a rel="next" href="${answersUrl({ ...base, page: shownPage + 1 })}">next →</a>` : ""}</p>`;
    return { status: rows.length === 0 && page > 0 ? 404 : 200, html: viewerPage("Answers", [["runs", runsUrl()], ["answers"]], html`<section><h2>Answers</h2>${form}${list}${pager}</section>`) };
}
