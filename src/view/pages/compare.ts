import { fix, pval } from "../../report/format.js";
import { html, type SafeHtml } from "../../report/safeHtml.js";
import { scoresIn } from "../../report/scoreTable.js";
import { pairedComparisons, type InstanceRef, type PairedRow } from "../../scores/compare.js";
import { CATEGORY_LABELS, isHarness, NEIGHBOURHOOD_CATEGORIES, type NeighbourhoodScore } from "../../scores/neighbourhood.js";
import type { AnswerDetail, ViewConfiguration } from "../../store/viewQueries.js";
import { EddyError } from "../../util/errors.js";
import { NotFound, type PageContext, type PageResult } from "../context.js";
import { failingCall } from "../failure.js";
import { num, scoreDefinitions, sortHeader, table, verdictBadge, verdictClass, verdictKey, verdictLegend, verdictMeaning, verdictSymbol, viewerPage, type Head } from "../layout.js";
import { paramsText } from "../params.js";
import type { RunData } from "../runData.js";
import { compareUrl, instanceUrl, runsUrl, templateUrl } from "../urls.js";

/** Flips shown per page, each with both answers' code. */
export const FLIPS_PAGE = 20;

/** The per-template table's columns to sort by: the template, each score under A and B and its difference, each category. */
const TEMPLATE_SORTS = ["template", ...scoresIn("scores").flatMap((k) => [`${k.name}A`, `${k.name}B`, `d${k.name}`]), "catA", "catB"];

/** What the URL asks of the page: which flips (lost or gained in B), their page, and the per-template table's sort. */
export interface CompareState {
    flips: "lost" | "gained";
    page: number;
    sort: string;
    dir: "asc" | "desc";
}

export function compareState(q: URLSearchParams): CompareState {
    const flips = q.get("flips") || "lost";
    if (flips !== "lost" && flips !== "gained") throw new EddyError(`'flips' must be lost or gained, not '${flips.slice(0, 40)}'`, 400);
    const p = q.get("page") || "1";
    if (!/^\d{1,7}$/.test(p) || Number(p) < 1) throw new EddyError(`'page' must be a page number (1, 2, 3…), not '${p.slice(0, 40)}'`, 400);
    const sort = q.get("sort") || "template";
    if (!TEMPLATE_SORTS.includes(sort)) throw new EddyError(`'sort' must be one of ${TEMPLATE_SORTS.join(", ")}, not '${sort.slice(0, 40)}'`, 400);
    const dir = q.get("dir") || (sort === "template" ? "asc" : "desc");
    if (dir !== "asc" && dir !== "desc") throw new EddyError(`'dir' must be asc or desc, not '${dir.slice(0, 40)}'`, 400);
    return { flips, page: Number(p), sort, dir };
}

const COMPARE_CSS = `
article.flip{border-top:1px solid var(--line);padding:10px 0}
article.flip h3{margin:4px 0 8px}
.pair{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:14px}
.side{border:1px solid var(--line);border-radius:6px;padding:8px 10px;min-width:0}
.side.failing{border-color:#c62828;background:#fffafa}.side.passing{border-color:#2e7d32}
.side h4{margin:0 0 6px;font-size:13px}
.side pre.code{white-space:pre-wrap;word-break:break-word;max-height:360px}
.strip{display:flex;gap:2px;margin:4px 0}.strip a{display:block;width:18px;height:18px;border-radius:3px;color:#fff;font:700 11px/18px ui-monospace,monospace;text-align:center;text-decoration:none}
.strip a.v-none,.strip a.v-missing,.strip a.v-unjudged{color:var(--fg)}.strip a.shown{outline:2px solid #1d2330;outline-offset:1px}
.tabs{display:flex;gap:16px;margin:8px 0}.tabs a.on{font-weight:700;color:var(--fg);text-decoration:none}
`;

/**
 * `/compare?a=<config>&b=<config>`: two configurations side by side (quantisations of one model above
 * all): the instances that flip between "passed in every round" and not, exact McNemar on instances
 * and on responses (src/stats via scores/compare); for every flip both answers' code side by side with
 * their verdicts and the failing input (paged); the per-template deltas, sortable.
 */
export function comparePage(ctx: PageContext): PageResult {
    const all = ctx.store.view.configurations();
    const a = pick(all, ctx.url.searchParams.get("a"));
    const b = pick(all, ctx.url.searchParams.get("b"));
    const state = compareState(ctx.url.searchParams);
    const select = (name: string, current: ViewConfiguration | undefined) =>
        html`<label>${name.toUpperCase()}<select name="${name}">${all.map((c) => html`<option value="${c.id}"${c.id === current?.id ? html` selected` : ""}>${c.runId} · ${c.label}${c.quantization ? ` · ${c.quantization}` : ""}</option>`)}</select></label>`;
    const form = html`<form class="filters" method="get" action="/compare">${select("a", a ?? all[0])}${select("b", b ?? all[1] ?? all[0])}<button type="submit">compare</button></form>`;
    const crumbs: [string, string?][] = [["runs", runsUrl()], ["compare"]];
    if (!a || !b) return { html: viewerPage("Compare two configurations", crumbs, html`<section><h2>Compare two configurations</h2>${form}</section>`) };

    const paired = pairedOf(ctx.runs.get(a.runId), a, ctx.runs.get(b.runId), b);
    const scoresOf = (c: ViewConfiguration) => new Map(ctx.runs.get(c.runId).scores.filter((s) => s.config === c.label).map((s) => [s.template, s]));
    const sa = scoresOf(a);
    const sb = scoresOf(b);
    const link = (more: Partial<CompareState>) => {
        const s = { ...state, ...more };
        return compareUrl(a.id, b.id, { flips: s.flips === "lost" ? undefined : s.flips, page: s.page > 1 ? s.page : undefined, sort: s.sort === "template" ? undefined : s.sort, dir: s.dir === (s.sort === "template" ? "asc" : "desc") ? undefined : s.dir });
    };

    const body = html`<section><h2>Compare</h2>${form}<dl class="kv"><dt>A</dt><dd>${a.runId} · ${a.label} · ${a.quantization ?? "–"}</dd><dt>B</dt><dd>${b.runId} · ${b.label} · ${b.quantization ?? "–"}</dd></dl></section>
<section id="mcnemar"><h2>Paired instances (exact McNemar)</h2><p class="note">Instances both configurations answered (same template, index and parameters). An instance flips when it passed in every judged round under one and not under the other; the test asks whether the flips lean one way more than chance would (two-sided, exact).</p>${
        paired
            ? table(
                  ["shared instances", "all rounds passed: lost in B / gained in B", "p", "responses: lost / gained", "p"],
                  [[num(paired.instances), num(`${paired.allPassed.b} / ${paired.allPassed.c}`), num(pval(paired.allPassed.p)), num(`${paired.perResponse.b} / ${paired.perResponse.c}`), num(pval(paired.perResponse.p))]]
              )
            : html`<p class="muted">The two configurations share no judged instance (same template, index and parameters).</p>`
    }</section>
${paired ? flipsSection(ctx, a, b, paired.lostInB, paired.gainedInB, state, link) : ""}
<section id="deltas"><h2>Per template</h2><p class="note">Each template's scores under A and B and the difference (Δ = B − A). Click a column's name to sort by it.</p>${perTemplate(a, b, sa, sb, state, link)}${scoreDefinitions(scoresIn("scores"))}</section>`;
    return { html: viewerPage(`Compare ${a.label} with ${b.label}`, crumbs, body, COMPARE_CSS) };
}

function flipsSection(ctx: PageContext, a: ViewConfiguration, b: ViewConfiguration, lost: readonly InstanceRef[], gained: readonly InstanceRef[], state: CompareState, link: (s: Partial<CompareState>) => string): SafeHtml {
    const list = state.flips === "lost" ? lost : gained;
    const pages = Math.max(1, Math.ceil(list.length / FLIPS_PAGE));
    if (state.page > pages) throw new NotFound(`no page ${state.page} of flips: ${list.length} flip${list.length === 1 ? "" : "s"} on ${pages} page${pages === 1 ? "" : "s"}`);
    const shown = list.slice((state.page - 1) * FLIPS_PAGE, state.page * FLIPS_PAGE);
    const present = new Set<string>();
    const articles = shown.map((i) => {
        const inst = ctx.store.view.instance(a.runId, i.template, i.instance);
        const answersA = ctx.store.view.instanceAnswers(a.id, i.template, i.instance);
        const answersB = ctx.store.view.instanceAnswers(b.id, i.template, i.instance);
        for (const x of [...answersA, ...answersB]) present.add(verdictKey(x.category, x.missing));
        // The failing side's first model failure, and the other side's answer in the same round.
        const failingSide = state.flips === "lost" ? answersB : answersA;
        const failing = failingSide.find((x) => !x.missing && x.category !== null && x.category !== "passed" && !isHarness(x.category)) ?? failingSide.find((x) => x.category !== "passed");
        const round = failing?.round ?? 0;
        const other = (state.flips === "lost" ? answersA : answersB).find((x) => x.round === round) ?? (state.flips === "lost" ? answersA : answersB)[0];
        const [shownA, shownB] = state.flips === "lost" ? [other, failing] : [failing, other];
        const params = paramsText(inst?.bindings, i.params);
        return html`<article class="flip" id="flip-${i.template}-${i.instance}" data-template="${i.template}" data-instance="${i.instance}"><h3><a href="${templateUrl(a.runId, i.template)}">${i.template}</a> #${i.instance} <small>${params}</small></h3><div class="pair">${sideHtml("A", a, answersA, shownA)}${sideHtml("B", b, answersB, shownB)}</div></article>`;
    });
    const tab = (k: "lost" | "gained", label: string, n: number) => html`<a class="${state.flips === k ? "on" : ""}" href="${link({ flips: k, page: 1 })}#flips">${label} (${n})</a>`;
    const pager =
        pages > 1
            ? html`<p class="pager">${state.page > 1 ? html`<a rel="prev" href="${link({ page: state.page - 1 })}#flips">← previous</a>` : ""}<span class="muted">page ${state.page} of ${pages}, flips ${(state.page - 1) * FLIPS_PAGE + 1}–${(state.page - 1) * FLIPS_PAGE + shown.length} of ${list.length}</span>${state.page < pages ? html`<a rel="next" href="${link({ page: state.page + 1 })}#flips">next →</a>` : ""}</p>`
            : "";
    return html`<section id="flips"><h2>Flips</h2><p class="note">${state.flips === "lost" ? "Passed in every round under A, not under B" : "Passed in every round under B, not under A"}: each with the failing side's first failing round beside the other side's answer in the same round, the verdicts, the failing input and both codes. The squares are every round's verdict (a letter as well as a colour; the outlined one is shown); each opens that answer.</p><p class="tabs">${tab("lost", "Lost in B", lost.length)}${tab("gained", "Gained in B", gained.length)}</p>${
        shown.length ? html`${verdictLegend(present)}${articles}${pager}` : html`<p class="muted">none</p>`
    }</section>`;
}

function sideHtml(tag: "A" | "B", c: ViewConfiguration, answers: readonly AnswerDetail[], shown: AnswerDetail | undefined): SafeHtml {
    const passed = answers.filter((x) => x.category === "passed").length;
    const counted = answers.filter((x) => !x.missing && x.category !== null && !isHarness(x.category)).length;
    const strip = html`<div class="strip" aria-label="rounds">${answers.map((x) => {
        const k = verdictKey(x.category, x.missing);
        return html`<a class="${verdictClass(x.category, x.missing)}${x === shown ? " shown" : ""}" href="${instanceUrl(c.runId, c.id, x.template, x.instance, x.round)}" title="round ${x.round}: ${k} (${verdictMeaning(k)})" aria-label="round ${x.round}: ${k}">${verdictSymbol(k)}</a>`;
    })}</div>`;
    if (!shown) return html`<div class="side" data-side="${tag}"><h4>${tag} · ${c.label}</h4><p class="muted">no answer stored for this instance</p></div>`;
    const call = shown.category && shown.category !== "passed" ? failingCall(shown.detail) : undefined;
    const ok = shown.category === "passed";
    return html`<div class="side ${ok ? "passing" : "failing"}" data-side="${tag}"><h4>${tag} · ${c.label}${c.quantization ? ` · ${c.quantization}` : ""} <small>${passed} of ${counted} rounds passed</small></h4>${strip}<p>round ${shown.round}: <span class="category">${verdictBadge(shown.category, shown.missing)}</span></p>${
        call
            ? html`<dl class="kv failing"><dt>test</dt><dd>${call.label}</dd><dt>failing input</dt><dd class="input">${call.input}</dd><dt>expected</dt><dd class="expected">${call.expected}</dd><dt>got</dt><dd class="got">${call.got}</dd></dl>`
            : shown.detail
              ? ok
                  ? html`<p class="muted">${shown.detail}</p>`
                  : html`<pre class="detail">${shown.detail}</pre>`
              : ""
    }${shown.code === null ? html`<p class="muted">no code extracted (the response is on the <a href="${instanceUrl(c.runId, c.id, shown.template, shown.instance, shown.round)}">answer's page</a>)</p>` : html`<pre class="code">${shown.code}</pre>`}<p><a href="${instanceUrl(c.runId, c.id, shown.template, shown.instance, shown.round)}">the whole answer: prompt, response, detail</a></p></div>`;
}

function perTemplate(a: ViewConfiguration, b: ViewConfiguration, sa: Map<string, NeighbourhoodScore>, sb: Map<string, NeighbourhoodScore>, state: CompareState, link: (s: Partial<CompareState>) => string): SafeHtml {
    const cols = scoresIn("scores");
    const templates = [...new Set([...sa.keys(), ...sb.keys()])];
    const catRank = (s: NeighbourhoodScore | undefined) => (s ? NEIGHBOURHOOD_CATEGORIES.indexOf(s.category) : NaN);
    const value = (t: string): number | string => {
        if (state.sort === "template") return t;
        if (state.sort === "catA") return -catRank(sa.get(t));
        if (state.sort === "catB") return -catRank(sb.get(t));
        const k = cols.find((c) => state.sort.endsWith(c.name) && state.sort.length === c.name.length + 1)!;
        const va = sa.get(t) ? k.get(sa.get(t)!) : NaN;
        const vb = sb.get(t) ? k.get(sb.get(t)!) : NaN;
        return state.sort.startsWith("d") ? vb - va : state.sort.endsWith("A") ? va : vb;
    };
    const sign = state.dir === "asc" ? 1 : -1;
    templates.sort((x, y) => {
        const p = value(x);
        const q = value(y);
        const np = typeof p === "number" && Number.isNaN(p);
        const nq = typeof q === "number" && Number.isNaN(q);
        if (np || nq) return np === nq ? x.localeCompare(y) : np ? 1 : -1;
        return sign * (typeof p === "number" && typeof q === "number" ? p - q : String(p).localeCompare(String(q))) || x.localeCompare(y);
    });
    const href = (sort: string, dir: "asc" | "desc") => `${link({ sort, dir })}#deltas`;
    const sortable = (label: string, k: string): Head => sortHeader(label, k, state, href, k === "template" ? "asc" : "desc");
    return table(
        [sortable("template", "template"), ...cols.flatMap((k) => [sortable(`${k.label} A`, `${k.name}A`), sortable(`${k.label} B`, `${k.name}B`), sortable(`Δ${k.label}`, `d${k.name}`)]), sortable("category A", "catA"), sortable("category B", "catB")],
        templates.map((t) => {
            const x = sa.get(t);
            const y = sb.get(t);
            return [
                html`<a href="${templateUrl(x ? a.runId : b.runId, t)}">${t}</a>`,
                ...cols.flatMap((k) => {
                    const va = x ? k.get(x) : NaN;
                    const vb = y ? k.get(y) : NaN;
                    return [num(fix(va, k.digits)), num(fix(vb, k.digits)), num(Number.isNaN(va - vb) ? "–" : `${vb - va >= 0 ? "+" : ""}${fix(vb - va, k.digits)}`)];
                }),
                x ? html`<span class="badge ${x.category}">${CATEGORY_LABELS[x.category]}</span>` : "–",
                y ? html`<span class="badge ${y.category}">${CATEGORY_LABELS[y.category]}</span>` : "–"
            ];
        }),
        { id: "per-template" }
    );
}

/** Paired comparisons found, per the two runs' data (replaced when a run changes) and the two configurations. */
const pairedMemo = new WeakMap<RunData, WeakMap<RunData, Map<string, PairedRow | undefined>>>();

/**
 * The paired comparison of two configurations (scores/compare.ts): each side's judged answers, relabelled "A"/"B"
 * so two runs' equal labels stay apart, every flip kept (they are paged); kept until either run changes.
 */
function pairedOf(da: RunData, a: ViewConfiguration, db: RunData, b: ViewConfiguration): PairedRow | undefined {
    let inner = pairedMemo.get(da);
    if (!inner) pairedMemo.set(da, (inner = new WeakMap()));
    let byPair = inner.get(db);
    if (!byPair) inner.set(db, (byPair = new Map()));
    const key = `${a.id}|${b.id}`;
    if (byPair.has(key)) return byPair.get(key);
    const side = (d: RunData, c: ViewConfiguration, tag: "A" | "B") => d.outcomes.filter((o) => o.config === c.label).map((o) => ({ ...o, config: tag }));
    const row = pairedComparisons([...side(da, a, "A"), ...side(db, b, "B")], ["A", "B"], Number.POSITIVE_INFINITY)[0];
    byPair.set(key, row);
    return row;
}

function pick(all: readonly ViewConfiguration[], v: string | null): ViewConfiguration | undefined {
    if (v === null) return undefined;
    const c = all.find((x) => String(x.id) === v);
    if (!c) throw new NotFound(`no configuration ${v}`);
    return c;
}
