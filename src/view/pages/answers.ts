import { tuple } from "../../report/format.js";
import { html, type HtmlValue } from "../../report/safeHtml.js";
import type { AnswerFilter } from "../../store/viewQueries.js";
import type { ParamValue } from "../../vocabulary.js";
import type { PageContext, PageResult } from "../context.js";
import { table, verdictBadge, viewerPage } from "../layout.js";
import { answersUrl, instanceUrl, runsUrl } from "../urls.js";

/** Answers per page. */
export const ANSWERS_PAGE = 50;

/** The filters of the answers list, read from the URL; a number that does not parse is left out. */
export function answerFilter(q: URLSearchParams): AnswerFilter {
    const text = (k: string) => {
        const v = q.get(k);
        return v === null || v === "" ? undefined : v;
    };
    const number = (k: string) => {
        const v = text(k);
        return v !== undefined && Number.isFinite(Number(v)) ? Number(v) : undefined;
    };
    const f: AnswerFilter = {};
    const put = <K extends keyof AnswerFilter>(k: K, v: AnswerFilter[K] | undefined) => {
        if (v !== undefined) f[k] = v;
    };
    put("run", text("run"));
    put("config", number("config"));
    put("template", text("template"));
    put("group", text("group"));
    put("category", text("category"));
    put("model", text("model"));
    put("temperature", number("temperature"));
    put("language", text("language"));
    put("instance", number("instance"));
    put("q", text("q"));
    return f;
}

/** `/answers`: answers filtered by run, configuration, template, group, verdict, model, temperature and language, and searched in responses and details. */
export function answersPage(ctx: PageContext): PageResult {
    const f = answerFilter(ctx.url.searchParams);
    const page = Math.max(0, Math.floor(Number(ctx.url.searchParams.get("page") ?? 0)) || 0);
    const { rows, more } = ctx.store.view.answers(f, page * ANSWERS_PAGE, ANSWERS_PAGE);
    const facets = ctx.store.view.facets();
    const runs = ctx.store.view.runs();
    const languages = [...new Set(runs.map((r) => (typeof r.config.language === "string" ? r.config.language : "python")))].sort();
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
                  html`#${r.instance} ${tuple(JSON.parse(r.params) as ParamValue[])}`,
                  { num: r.round },
                  verdictBadge(r.category, r.missing),
                  html`<span class="detail">${r.detail}</span>`
              ]),
              { id: "answers" }
          )
        : html`<p class="muted" id="no-answers">No answer matches.</p>`;
    const pager = html`<p class="pager">${page > 0 ? html`<a rel="prev" href="${answersUrl({ ...base, page: page - 1 || undefined })}">← previous</a>` : ""}<span class="muted">page ${page + 1}${rows.length ? `, answers ${page * ANSWERS_PAGE + 1}–${page * ANSWERS_PAGE + rows.length}` : ""}</span>${more ? html`<a rel="next" href="${answersUrl({ ...base, page: page + 1 })}">next →</a>` : ""}</p>`;
    return { html: viewerPage("Answers", [["runs", runsUrl()], ["answers"]], html`<section><h2>Answers</h2>${form}${list}${pager}</section>`) };
}
