import { fix, pval, tuple } from "../../report/format.js";
import { html } from "../../report/safeHtml.js";
import { scoresIn } from "../../report/scoreTable.js";
import { pairedComparisons, type InstanceRef } from "../../scores/compare.js";
import { CATEGORY_LABELS } from "../../scores/neighbourhood.js";
import type { ViewConfiguration } from "../../store/viewQueries.js";
import { NotFound, type PageContext, type PageResult } from "../context.js";
import { num, table, viewerPage } from "../layout.js";
import { instanceUrl, runsUrl, templateUrl } from "../urls.js";

/** Flipping instances listed per direction. */
const FLIPS_SHOWN = 200;

/**
 * `/compare?a=<config>&b=<config>`: two configurations side by side (quantisations of one model above
 * all): the instances that flip between "passed in every round" and not, exact McNemar on instances
 * and on responses (src/stats via scores/compare), per-template deltas, each flip linked to its
 * answers on both sides.
 */
export function comparePage(ctx: PageContext): PageResult {
    const all = ctx.store.view.configurations();
    const a = pick(all, ctx.url.searchParams.get("a"));
    const b = pick(all, ctx.url.searchParams.get("b"));
    const select = (name: string, current: ViewConfiguration | undefined) =>
        html`<label>${name.toUpperCase()}<select name="${name}">${all.map((c) => html`<option value="${c.id}"${c.id === current?.id ? html` selected` : ""}>${c.runId} · ${c.label}${c.quantization ? ` · ${c.quantization}` : ""}</option>`)}</select></label>`;
    const form = html`<form class="filters" method="get" action="/compare">${select("a", a ?? all[0])}${select("b", b ?? all[1] ?? all[0])}<button type="submit">compare</button></form>`;
    const crumbs: [string, string?][] = [["runs", runsUrl()], ["compare"]];
    if (!a || !b) return { html: viewerPage("Compare two configurations", crumbs, html`<section><h2>Compare two configurations</h2>${form}</section>`) };

    // Each side's judged answers, relabelled "A"/"B" so two runs' equal labels stay apart.
    const side = (c: ViewConfiguration, tag: "A" | "B") =>
        ctx.runs
            .get(c.runId)
            .outcomes.filter((o) => o.config === c.label)
            .map((o) => ({ ...o, config: tag }));
    const paired = pairedComparisons([...side(a, "A"), ...side(b, "B")], ["A", "B"], FLIPS_SHOWN)[0];
    const scoresOf = (c: ViewConfiguration) => new Map(ctx.runs.get(c.runId).scores.filter((s) => s.config === c.label).map((s) => [s.template, s]));
    const sa = scoresOf(a);
    const sb = scoresOf(b);
    const templates = [...new Set([...sa.keys(), ...sb.keys()])].sort();
    const flips = (list: readonly InstanceRef[], title: string, id: string) =>
        html`<h3 id="${id}">${title} <small>(${list.length}${list.length >= FLIPS_SHOWN ? "+" : ""})</small></h3>${
            list.length === 0
                ? html`<p class="muted">none</p>`
                : html`<ul class="flips">${list.map(
                      (i) =>
                          html`<li>${i.template} #${i.instance} ${tuple(i.params)}: <a href="${instanceUrl(a.runId, a.id, i.template, i.instance)}">A's answers</a> · <a href="${instanceUrl(b.runId, b.id, i.template, i.instance)}">B's answers</a></li>`
                  )}</ul>`
        }`;
    const body = html`<section><h2>Compare</h2>${form}<dl class="kv"><dt>A</dt><dd>${a.runId} · ${a.label} · ${a.quantization ?? "–"}</dd><dt>B</dt><dd>${b.runId} · ${b.label} · ${b.quantization ?? "–"}</dd></dl></section>
<section id="mcnemar"><h2>Paired instances (exact McNemar)</h2>${
        paired
            ? table(
                  ["shared instances", "all rounds passed: lost in B / gained in B", "p", "responses: lost / gained", "p"],
                  [[num(paired.instances), num(`${paired.allPassed.b} / ${paired.allPassed.c}`), num(pval(paired.allPassed.p)), num(`${paired.perResponse.b} / ${paired.perResponse.c}`), num(pval(paired.perResponse.p))]]
              )
            : html`<p class="muted">The two configurations share no judged instance (same template, index and parameters).</p>`
    }${paired ? flips(paired.lostInB, "Lost in B (every round passed under A, not under B)", "lost") : ""}${paired ? flips(paired.gainedInB, "Gained in B", "gained") : ""}</section>
<section id="deltas"><h2>Per template</h2>${table(
        ["template", ...scoresIn("scores").flatMap((k) => [`${k.label} A`, `${k.label} B`, `Δ${k.label}`]), "category A", "category B"],
        templates.map((t) => {
            const x = sa.get(t);
            const y = sb.get(t);
            return [
                html`<a href="${templateUrl(a.runId, t)}">${t}</a>`,
                ...scoresIn("scores").flatMap((k) => {
                    const va = x ? k.get(x) : NaN;
                    const vb = y ? k.get(y) : NaN;
                    return [num(fix(va, k.digits)), num(fix(vb, k.digits)), num(Number.isNaN(va - vb) ? "–" : `${vb - va >= 0 ? "+" : ""}${fix(vb - va, k.digits)}`)];
                }),
                x ? CATEGORY_LABELS[x.category] : "–",
                y ? CATEGORY_LABELS[y.category] : "–"
            ];
        }),
        { id: "per-template" }
    )}</section>`;
    return { html: viewerPage(`Compare ${a.label} with ${b.label}`, crumbs, body) };
}

function pick(all: readonly ViewConfiguration[], v: string | null): ViewConfiguration | undefined {
    if (v === null) return undefined;
    const c = all.find((x) => String(x.id) === v);
    if (!c) throw new NotFound(`no configuration ${v}`);
    return c;
}
