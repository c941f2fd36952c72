import { CATEGORY_LABELS, isHarness, NEIGHBOURHOOD_CATEGORIES, type NeighbourhoodScore } from "../scores/neighbourhood.js";
import { groupBy } from "../scores/aggregates.js";
import { judgedOf, type Outcome } from "../vocabulary.js";
import { boxPlotSpec, categoryBarsSpec, deltaHeatmapSpec, renderSvg, stripSpec, verdictBarsSpec } from "./charts.js";
import { fix, pct, pval, runStatus, tuple } from "./format.js";
import { renderPage } from "./page.js";
import { html, raw, type HtmlValue, type SafeHtml } from "./safeHtml.js";
import { tamperingMore } from "./tampering.js";
import { judged, judgePythonCell, magnitude, notDefaultLanguage, undefinedWhy, TAMPERING_NOTE, unsandboxed, UNSANDBOXED_NOTE } from "./text.js";
import { agreementHtml } from "./agreementRender.js";
import { formatScore, formatScoreWithInterval, SCORES, scoresIn } from "./scoreTable.js";
import { instanceUrl } from "../view/urls.js";
import { viewerConfigKey, type DrilldownRow, type ReportData, type ViewerLinks } from "./types.js";

// The report's own classes; the page shell (page.ts) holds the shared sheet and the policy.
export const REPORT_CSS = `
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:11.5px;color:#fff;white-space:nowrap}
.perfect_success{background:#2e7d32}.stochastic_failure{background:#b58900}.inconsistent_generalisation{background:#ef6c00}.perfect_failure{background:#c62828}.incomplete{background:#6d6f78}.no_data{background:#bdbdbd}
details.template{border:1px solid var(--line);border-radius:6px;margin:8px 0;background:#fff}
details.template>summary{cursor:pointer;padding:8px 12px;font-weight:600;display:flex;gap:10px;align-items:center;flex-wrap:wrap}
details.template>summary .muted{font-weight:400}
details.template[open]>summary{border-bottom:1px solid var(--line);background:#fafbfc}
details.template .body{padding:8px 14px 14px}
details.response{border-left:3px solid #c62828;margin:6px 0;padding:2px 10px;background:#fdf7f7}
details.response>summary{cursor:pointer;font-size:12.5px}
details.more{margin:6px 0}details.more>summary{cursor:pointer;color:var(--accent);font-size:12.5px}
pre.detail{background:#fff3f3;color:#5a1a1a}
.sig{font-weight:700;color:#c62828}
ul.tampering{margin:0;padding-left:18px}
`;

/** Self-contained HTML in the page shell: inline CSS and inline SVG charts; no script, nothing fetched. Every value is escaped by `html`. */
export async function renderHtml(d: ReportData, scores: readonly NeighbourhoodScore[], outcomes: readonly Outcome[], drilldownPerTemplate = 12, viewer?: ViewerLinks): Promise<string> {
    // Each answer shown links to the viewer's page of it when the report is told where one serves the store.
    const inViewer = (runId: string, config: string, template: string, instance: number, round: number): HtmlValue => {
        const id = viewer?.configIds.get(viewerConfigKey(runId, config));
        return viewer && id !== undefined ? html` <a class="viewer" href="${viewer.url.replace(/\/+$/, "")}${instanceUrl(runId, id, template, instance, round)}">open in eddy view</a>` : "";
    };
    const parts: SafeHtml[] = [];
    const cmp = d.comparison;
    const multi = cmp.configs.length > 1;
    const tampered = d.configs.filter((c) => c.tampering.count > 0);
    const svg = async (spec: Parameters<typeof renderSvg>[0]) => raw(await renderSvg(spec));
    parts.push(html`<header><h1>${d.title}</h1><p>eddy ${d.eddyVersion} · generated ${d.generated} · ${d.configs.length} configuration(s) · ${d.templates.length} template(s)</p></header>`);
    parts.push(html`<nav><a href="#overview">Overview</a>${tampered.length ? html`<a href="#tampering">Suspected tampering</a>` : ""}<a href="#charts">Scores</a>${multi ? html`<a href="#compare">Comparison</a>` : ""}<a href="#groups">Groups</a><a href="#discontinuities">Discontinuities</a><a href="#templates">Templates</a>${d.agreement ? html`<a href="#agreement">Agreement</a>` : ""}</nav><main>`);

    // Overview
    parts.push(html`<section id="overview"><h2>Runs</h2>`);
    const lang = d.runs.some(notDefaultLanguage);
    parts.push(
        table(
            ["run", "created", "status", "judged", "backend", ...(lang ? ["language"] : []), "isolation", "judge Python", "configurations"],
            d.runs.map((r) => [r.id, r.created ?? "", runStatus(r), n(judgedOf(r.answers)), r.backend ?? "", ...(lang ? [r.language] : []), r.isolationLevel ?? "", judgePythonCell(r), r.configs.join(", ")])
        )
    );
    if (d.runs.some(unsandboxed)) parts.push(html`<p class="note"><b>${UNSANDBOXED_NOTE}</b></p>`);
    parts.push(
        html`<h2>Configurations</h2><p class="note">Means over templates. <b>mode</b>: how responses were decoded (<code>reproducible</code>, the default, or the opt-in <code>fast</code> mode, whose responses may differ between runs). <b>judged</b>: answers with a model verdict (not truncated, judge_error or missing), of the answers planned. <b>instances</b>: instances with a judged answer, of all instances. RLPR = run-level pass rate (= AS), PSR = perfect stability rate (= CCS), AV = average variance (SPEC §4). <code>truncated</code> and <code>judge_error</code> are harness outcomes: counted here, left out of every score. <b>missing</b>: planned answers (instances × R) with no outcome: absent from a replay file, or not generated or judged yet.</p>`
    );
    parts.push(
        table(
            ["config", "mode", "determinism audit", "templates", "judged", "instances", ...SCORES.map((k) => html`<abbr title="${k.description} (${k.read})">${k.label}</abbr>`), "truncated", "judge_error", "missing"],
            d.configs.map((c) => [c.config, c.mode, c.determinism, n(c.templates), n(judgedOf(c.answers)), n(judged(c.coverage.judged, c.coverage.total)), ...SCORES.map((k) => n(formatScore(k, c))), n(c.harness.truncated), n(c.harness.judge_error), n(c.harness.missing)]),
            true
        )
    );
    const notes = d.configs.filter((c) => c.passAtKNote || c.uncategorised || c.nodes);
    if (notes.length)
        parts.push(
            html`<ul class="note">${notes.map((c) => html`<li>${c.config}: ${c.uncategorised ? `${c.uncategorised} template(s) without a category (under 90% of instances judged). ` : ""}${c.passAtKNote ?? ""}${c.nodes ? ` ${c.nodes}.` : ""}</li>`)}</ul>`
        );
    if (tampered.length) {
        parts.push(html`<h3 id="tampering">Suspected tampering with the judge</h3><p class="note"><b>${TAMPERING_NOTE}</b></p>`);
        parts.push(
            table(
                ["config", "suspected", "answers (template #instance · round: detail)"],
                tampered.map((c) => [
                    c.config,
                    n(c.tampering.count),
                    html`<ul class="tampering">${c.tampering.listed.map((r) => html`<li><a href="#t-${r.template}">${r.template}</a> #${r.instance} · round ${r.round}: <code>${r.detail}</code>${inViewer(c.runId, c.config, r.template, r.instance, r.round)}</li>`)}${tamperingMore(c.tampering) ? html`<li class="muted">${tamperingMore(c.tampering)}</li>` : ""}</ul>`
                ])
            )
        );
    }
    parts.push(html`</section>`);

    // Charts
    parts.push(html`<section id="charts"><h2>AS, CPS and CCS per configuration</h2><p class="note">Each box is the distribution of the score over templates.</p>`);
    parts.push(html`<div class="chart" data-chart="boxplot">${await svg(boxPlotSpec(scores))}</div>`);
    parts.push(html`<h3>Neighbourhood categories</h3><div class="chart" data-chart="categories">${await svg(categoryBarsSpec(d.configs.map((c) => ({ label: c.config, categories: c.categories }))))}</div>`);
    parts.push(html`<h3>Verdicts of judged responses</h3><div class="chart" data-chart="verdicts">${await svg(verdictBarsSpec(d.configs))}</div>`);
    parts.push(html`</section>`);

    // Comparison
    if (multi) {
        parts.push(html`<section id="compare"><h2>Comparison</h2><p class="note">Cliff's δ of the row configuration against the column configuration over templates (δ &gt; 0: row higher); <b>*</b> marks a two-sided Mann–Whitney U p &lt; ${cmp.alpha}.</p>`);
        parts.push(html`<div class="chart" data-chart="heatmap">${await svg(deltaHeatmapSpec(cmp))}</div>`);
        if (cmp.temperature.length) {
            parts.push(html`<h3>Temperature effect (t = 0 against the other temperature)</h3>`);
            parts.push(
                table(
                    ["model", "other t", "score", "significant?", "p", "δ", "magnitude"],
                    cmp.temperature.map((r) => [r.model + (r.quantization ? ` ${r.quantization}` : ""), n(r.temperature), r.score, Number.isNaN(r.p) ? undefinedWhy("–", r.why) : r.significant ? html`<span class="sig">yes</span>` : "no", n(undefinedWhy(pval(r.p), r.why)), n(undefinedWhy(fix(r.delta), r.why)), undefinedWhy(magnitude(r), r.why)])
                )
            );
        }
        parts.push(html`<h3>Pairwise tests</h3>`);
        parts.push(table(["score", "A", "B", "U", "p", "δ", "magnitude"], cmp.pairwise.map((r) => [r.score, r.a, r.b, n(undefinedWhy(fix(r.u, 1), r.why)), n(undefinedWhy(pval(r.p), r.why) + (r.significant ? " *" : "")), n(undefinedWhy(fix(r.delta), r.why)), undefinedWhy(magnitude(r), r.why)]), true));
        parts.push(html`<h3>Normality (Shapiro–Wilk)</h3>`);
        parts.push(table(["score", "config", "n", "W", "p"], cmp.normality.map((r) => [r.score, r.config, n(r.n), n(undefinedWhy(fix(r.w), r.why)), n(undefinedWhy(pval(r.p), r.why))]), true));
        if (cmp.paired.length) {
            parts.push(html`<h3>Paired instances (exact McNemar)</h3>`);
            parts.push(
                table(
                    ["A", "B", "instances", "all R passed: lost / gained in B", "p", "responses: lost / gained", "p", "flips"],
                    cmp.paired.map((p) => [
                        p.a,
                        p.b,
                        n(p.instances),
                        n(`${p.allPassed.b} / ${p.allPassed.c}`),
                        n(pval(p.allPassed.p)),
                        n(`${p.perResponse.b} / ${p.perResponse.c}`),
                        n(pval(p.perResponse.p)),
                        p.lostInB.length + p.gainedInB.length
                            ? html`<details class="more"><summary>show</summary>lost: ${flipLinks(p.lostInB)}<br>gained: ${flipLinks(p.gainedInB)}</details>`
                            : "–"
                    ])
                )
            );
        }
        parts.push(html`</section>`);
    }

    // Groups
    const cats = NEIGHBOURHOOD_CATEGORIES.filter((k) => (k !== "no_data" && k !== "incomplete") || d.configs.some((c) => c.categories.shares[k] > 0));
    const all = d.groups.filter((g) => g.config === "all");
    const groupRow = (g: (typeof d.groups)[number]): Cell[] => [g.kind, g.name, g.config, n(g.categories.n), n(fix(g.AS)), ...cats.map((k) => n(pct(g.categories.shares[k])))];
    parts.push(html`<section id="groups"><h2>Problem groups and subgroups</h2><p class="note">Share of (configuration × template) neighbourhoods in each category, all configurations together.</p>`);
    parts.push(html`<div class="chart" data-chart="groups">${await svg(categoryBarsSpec(all.map((g) => ({ label: g.kind === "group" ? g.name : `${g.name} (subgroup)`, categories: g.categories })), "share of neighbourhoods"))}</div>`);
    parts.push(table(["", "name", "config", "n", "AS", ...cats.map((k) => CATEGORY_LABELS[k])], all.map(groupRow), true));
    if (multi) parts.push(html`<details class="more"><summary>per configuration</summary>${table(["", "name", "config", "n", "AS", ...cats.map((k) => CATEGORY_LABELS[k])], d.groups.filter((g) => g.config !== "all").map(groupRow), true)}</details>`);
    parts.push(html`</section>`);

    // Discontinuities
    parts.push(
        html`<section id="discontinuities"><h2>Discontinuities</h2><p class="note">Instances never solved, or solved in at least half the rounds fewer than the median instance (compared exactly, as fractions), inside neighbourhoods whose median instance passes at least half its rounds; patterns are tuple relations held by at least half the failing tuples and at least twice as common among them as among the rest.</p>`
    );
    if (d.discontinuities.length === 0) parts.push(html`<p class="muted">None found.</p>`);
    else
        parts.push(
            table(
                ["template", "config", "anomalous instances", "tuples (passed/rounds)", "patterns"],
                d.discontinuities.map((x) => [
                    html`<a href="#t-${x.template}">${x.template}</a>`,
                    x.config,
                    n(x.instances.length),
                    x.instances.slice(0, 6).map((i) => `${tuple(i.params)} ${i.passed}/${i.rounds}`).join("  ") + (x.instances.length > 6 ? ` … +${x.instances.length - 6}` : ""),
                    x.patterns.map((p) => `${p.label}: ${p.failing[0]}/${p.failing[1]} failing vs ${p.others[0]}/${p.others[1]} others`).join("; ") || "–"
                ])
            )
        );
    parts.push(html`</section>`);

    // Templates with strips and drill-down
    parts.push(html`<section id="templates"><h2>Templates</h2><p class="note">Open a template for its parameter strip (one cell per instance and configuration, darker = more rounds failed) and its failing responses with verdict details.</p>`);
    const scoresByTemplate = groupBy(scores, (s) => s.template);
    const modeOf = new Map(d.configs.map((c) => [c.config, c.mode]));
    const drill = drilldown(outcomes, scores, drilldownPerTemplate);
    for (const t of d.templates) {
        const list = scoresByTemplate.get(t.template) ?? [];
        const badges = list.map((s) => html`<span class="badge ${s.category}" title="${s.config}">${short(s.config)}: ${fix(s.AS, 2)}</span> `);
        parts.push(html`<details class="template" id="t-${t.template}"><summary>${t.template} <span class="muted">${t.group} · ${t.subgroups.join(", ")}</span> ${badges}</summary><div class="body">`);
        parts.push(
            table(
                ["config", "mode", "instances", "R", ...scoresIn("scores").map((c) => c.label), "category", ...scoresIn("stability").map((c) => (c.interval ? `${c.label} [95% CI]` : c.label)), "pass@k", "harness"],
                list.map((s) => [
                    s.config,
                    modeOf.get(s.config) ?? "reproducible",
                    n(judged(s.M, s.Mtotal)),
                    n(s.R),
                    ...scoresIn("scores").map((c) => n(formatScore(c, s))),
                    html`<span class="badge ${s.category}">${CATEGORY_LABELS[s.category]}</span>`,
                    ...scoresIn("stability").map((c) => n(formatScoreWithInterval(c, s, c.digits - 1))),
                    html`${Object.entries(s.passAtK).map(([k, v]) => `@${k} ${fix(v, 2)}`).join(" ")}${s.passAtKNote ? html` <span class="muted" title="${s.passAtKNote}">(k ≤ ${Object.keys(s.passAtK).length})</span>` : ""}`,
                    n(s.harness.truncated + s.harness.judge_error + s.harness.missing ? `${s.harness.truncated} trunc, ${s.harness.judge_error} judge, ${s.harness.missing} missing` : "–")
                ])
            )
        );
        parts.push(html`<div class="chart" data-chart="strip">${await svg(stripSpec(list))}</div>`);
        const rows = drill.get(t.template) ?? { shown: [], total: 0 };
        parts.push(html`<h3>Failing responses <span class="muted">(${rows.shown.length} of ${rows.total} shown)</span></h3>`);
        if (rows.shown.length === 0) parts.push(html`<p class="muted">No failing response.</p>`);
        for (const r of rows.shown)
            parts.push(
                html`<details class="response"><summary>${short(r.config)} · instance ${r.instance} ${tuple(r.params)} · round ${r.round} · <b>${r.category}</b>${inViewer(r.runId, r.config, t.template, r.instance, r.round)}</summary><pre class="detail">${r.detail || "(no detail)"}</pre><pre class="code">${r.code ?? r.response.slice(0, 2000)}</pre></details>`
            );
        parts.push(html`</div></details>`);
    }
    parts.push(html`</section>`);
    if (d.agreement) parts.push(raw(agreementHtml(d.agreement)));
    parts.push(html`</main>`);
    return renderPage({ title: d.title, css: REPORT_CSS, body: raw(parts.join("\n")) });
}

/**
 * Failing responses per template, capped: first the never-solved instances of each configuration,
 * then the rest, one response per (configuration, instance) before any second one.
 */
function drilldown(outcomes: readonly Outcome[], scores: readonly NeighbourhoodScore[], cap: number): Map<string, { shown: DrilldownRow[]; total: number }> {
    const neverSolved = new Set<string>();
    for (const s of scores) for (const i of s.instances) if (i.n > 0 && i.c === 0) neverSolved.add(`${s.config}\u0000${s.template}\u0000${i.instance}`);
    const out = new Map<string, { shown: DrilldownRow[]; total: number }>();
    for (const [template, list] of groupBy(
        outcomes.filter((o) => o.category !== "passed"),
        (o) => o.template
    )) {
        // Round-robin over (configuration, instance): never-solved instances first, each one's first failure
        // before any second one, harness outcomes last.
        const occurrences = new Map<string, number>();
        const ranked = list
            .map((o) => {
                const key = `${o.config}\u0000${o.template}\u0000${o.instance}`;
                const k = occurrences.get(key) ?? 0;
                if (!isHarness(o.category)) occurrences.set(key, k + 1);
                return { o, harness: isHarness(o.category) ? 1 : 0, never: neverSolved.has(key) ? 0 : 1, k };
            })
            .sort((a, b) => a.harness - b.harness || a.never - b.never || a.k - b.k || a.o.instance - b.o.instance);
        out.set(template, {
            total: list.length,
            shown: ranked.slice(0, cap).map(({ o }) => ({ runId: o.runId, config: o.config, instance: o.instance, params: o.params, round: o.round, category: o.category, detail: o.detail, code: o.code, response: o.response }))
        });
    }
    return out;
}

/** Instances that flip, each linked to its template's section further down the page. */
function flipLinks(list: readonly { template: string; instance: number; params: Parameters<typeof tuple>[0] }[]): HtmlValue {
    if (list.length === 0) return "–";
    return list.map((i, k) => html`${k ? ", " : ""}<a href="#t-${i.template}">${i.template}</a>#${i.instance} ${tuple(i.params)}`);
}

/** A table cell: text or markup, or a right-aligned number. */
type Cell = HtmlValue | { num: string };

function table(head: readonly HtmlValue[], rows: readonly (readonly Cell[])[], scroll = false): SafeHtml {
    const cell = (c: Cell) => (c !== null && typeof c === "object" && "num" in c ? html`<td class="n">${c.num}</td>` : html`<td>${c as HtmlValue}</td>`);
    const t = html`<table><thead><tr>${head.map((x) => html`<th>${x}</th>`)}</tr></thead><tbody>${rows.map((r) => html`<tr>${r.map(cell)}</tr>`)}</tbody></table>`;
    return scroll ? html`<div class="scroll">${t}</div>` : t;
}

/** A numeric (right-aligned) cell. */
function n(v: string | number): { num: string } {
    return { num: String(v) };
}

function short(config: string): string {
    return config.length > 40 ? config.slice(0, 39) + "…" : config;
}
