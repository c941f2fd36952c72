import type { TopLevelSpec } from "vega-lite";
import { renderSvg } from "../../report/charts.js";
import { fix, interval, pct, pval, tuple } from "../../report/format.js";
import { renderPage } from "../../report/page.js";
import { html, raw, type SafeHtml } from "../../report/safeHtml.js";
import type { QuantFileReport, QuantReport } from "../study/types.js";
import { paretoFront } from "./pareto.js";
import { fileLabel, kl, mib, qualityPoints } from "./renderQuantText.js";

// The page's own classes; the shell (report/page.ts) holds the shared sheet and the policy.
const CSS = `
.charts{display:flex;gap:24px;flex-wrap:wrap}
details.flip{border-left:3px solid #c62828;padding:2px 10px;background:#fdf7f7}details.flip.gained{border-color:#2e7d32;background:#f5fbf5}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:10px}
`;

/** Quality-versus-cost scatter (vega-lite): files by size and a quality measure, Pareto front joined by a line. */
export function paretoSpec(r: QuantReport, quality: (f: QuantFileReport) => number | null, title: string): TopLevelSpec {
    const points = qualityPoints(r, quality).filter((p) => Number.isFinite(p.quality));
    const front = paretoFront(points);
    const values = points.map((p) => ({ file: p.label, size: p.cost, quality: p.quality, front: front.has(p.id) ? "Pareto front" : "dominated" }));
    return {
        title,
        width: 380,
        height: 240,
        data: { values },
        layer: [
            { transform: [{ filter: "datum.front === 'Pareto front'" }], mark: { type: "line", color: "#9fb3d9", strokeDash: [4, 3] }, encoding: { x: { field: "size", type: "quantitative" }, y: { field: "quality", type: "quantitative" } } },
            {
                mark: { type: "point", filled: true, size: 90 },
                encoding: {
                    x: { field: "size", type: "quantitative", title: "file size (MiB)", scale: { zero: false } },
                    y: { field: "quality", type: "quantitative", title, scale: { zero: false } },
                    color: { field: "front", type: "nominal", title: null, scale: { domain: ["Pareto front", "dominated"], range: ["#2457c5", "#b0b6c3"] }, legend: { orient: "bottom" } },
                    tooltip: [{ field: "file" }, { field: "size", format: ".2f" }, { field: "quality", format: ".4f" }]
                }
            },
            { mark: { type: "text", dy: -10, fontSize: 11 }, encoding: { x: { field: "size", type: "quantitative" }, y: { field: "quality", type: "quantitative" }, text: { field: "file" } } }
        ]
    } as TopLevelSpec;
}

const signed = (v: number): string => (Number.isNaN(v) ? "–" : `${v >= 0 ? "+" : ""}${v.toFixed(3)}`);
const num = (v: number | null, d = 4): string => (v == null ? "–" : fix(v, d));

function qualityTable(r: QuantReport): SafeHtml {
    const rows = r.files.map((f) => {
        const s = f.scores;
        const cell = (k: "AS" | "CPS" | "CCS" | "RLPR" | "PSR") => html`<td class="n">${pct(s[k].candidate)}</td><td class="n">${f.reference ? "–" : html`${signed(s[k].delta)} <span class="muted">${interval(s[k].ci)}</span>`}</td>`;
        return html`<tr><td>${fileLabel(f)}${f.reference ? html` <span class="muted">(reference)</span>` : ""}</td><td class="n">${f.bits_per_weight == null ? "–" : f.bits_per_weight.toFixed(2)}</td><td class="n">${f.pass_at_1 ? html`${pct(f.pass_at_1.value)} <span class="muted">${interval(f.pass_at_1.ci)}</span>` : "–"}</td>${cell("AS")}${cell("CPS")}${cell("CCS")}
<td class="n">${f.reference || f.instances === 0 ? "–" : `${pval(f.mcnemar.instance.p)} / ${pval(f.mcnemar.response.p)}`}</td>
<td class="n">${f.flip_counts.instances.lost} / ${f.flip_counts.instances.gained}</td><td class="n">${f.flip_counts.responses.lost} / ${f.flip_counts.responses.gained}</td>
<td>${f.not_worse === null ? html`<span class="muted">n/a</span>` : f.not_worse ? html`<span class="good">yes</span>` : html`<span class="bad">no</span>`}</td></tr>`;
    });
    return html`<table><thead><tr><th>file</th><th>bits/weight</th><th>pass@1 [95% CI]</th><th>AS</th><th>ΔAS [95% CI]</th><th>CPS</th><th>ΔCPS</th><th>CCS</th><th>ΔCCS</th><th>McNemar p (instance / response)</th><th>instances lost / gained</th><th>responses lost / gained</th><th>not worse</th></tr></thead><tbody>${rows}</tbody></table>
<p class="muted">AS is the mean over instances of each instance's share of passed rounds, as in the report; RLPR equals AS and PSR equals CCS on the same data (SPEC §4). Intervals: paired percentile bootstrap over instances. Rounds with a truncated or judge_error verdict on either side are left out of the comparison.</p>`;
}

function costTable(r: QuantReport): SafeHtml {
    const rows = r.files.map(
        (f) => html`<tr><td>${fileLabel(f)}</td><td class="n">${mib(f.size_bytes)}</td><td class="n">${mib(f.memory_bytes)}</td><td class="n">${num(f.prompt_tokens_per_s, 0)}</td><td class="n">${num(f.generation_tokens_per_s, 0)}</td>
<td class="n">${f.top1_agreement == null ? "–" : pct(f.top1_agreement)}</td><td class="n">${kl(f.kl_mean)}</td><td class="n">${kl(f.kl_p50)}</td><td class="n">${kl(f.kl_p90)}</td><td class="n">${kl(f.kl_p99)}</td><td class="n">${kl(f.kl_max)}</td></tr>`
    );
    return html`<table><thead><tr><th>file</th><th>size</th><th>memory</th><th>prompt tok/s</th><th>gen tok/s</th><th>top-1 agreement</th><th>KL mean</th><th>KL p50</th><th>KL p90</th><th>KL p99</th><th>KL max</th></tr></thead><tbody>${rows}</tbody></table>
<p class="muted">Drift: teacher forcing on ${r.drift.texts} ${r.drift.source}; KL(reference ‖ file) of next-token distributions, nats. Memory: weights plus one evaluation context as llama.cpp accounts them. Speeds: per sequence, from this study's generations.</p>`;
}

function breakdown(f: QuantFileReport, flipsShown: number): SafeHtml {
    const templates = f.per_template.map(
        (t) => html`<tr><td>${t.template}</td><td class="n">${t.instances}</td><td class="n">${pct(t.AS.reference)} → ${pct(t.AS.candidate)}</td><td class="n">${pct(t.CCS.reference)} → ${pct(t.CCS.candidate)}</td><td class="n">${t.lost} / ${t.gained}</td></tr>`
    );
    const transitions = Object.entries(f.transitions)
        .filter(([k]) => k.split("→")[0] !== k.split("→")[1])
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => html`<tr><td>${k}</td><td class="n">${v}</td></tr>`);
    const flips = f.response_flips.slice(0, flipsShown).map(
        (x) => html`<details class="flip ${x.direction}"><summary>${x.direction === "lost" ? "lost" : "gained"}: ${x.template}#${x.instance} ${tuple(x.params)} round ${x.round} — ${x.reference.category} → ${x.candidate.category}</summary>
<div class="pair"><div><h3>reference</h3><pre>${x.reference.code ?? "(no code)"}</pre><p class="muted">${x.reference.detail}</p></div><div><h3>${fileLabel(f)}</h3><pre>${x.candidate.code ?? "(no code)"}</pre><p class="muted">${x.candidate.detail}</p></div></div></details>`
    );
    const more = f.response_flips.length > flipsShown ? html`<p class="muted">… ${f.response_flips.length - flipsShown} more in the JSON output.</p>` : "";
    return html`<details><summary><b>${fileLabel(f)}</b>: ${f.flip_counts.responses.lost} responses lost, ${f.flip_counts.responses.gained} gained</summary>
<h3>Per template</h3><table><thead><tr><th>template</th><th>instances</th><th>AS ref → file</th><th>CCS ref → file</th><th>responses lost / gained</th></tr></thead><tbody>${templates}</tbody></table>
<h3>Verdict changes (reference → file)</h3>${transitions.length ? html`<table><tbody>${transitions}</tbody></table>` : html`<p class="muted">none</p>`}
<h3>Flipped responses</h3>${flips.length ? flips : html`<p class="muted">none</p>`}${more}</details>`;
}

/** One self-contained HTML page in the report shell (inline CSS and SVG, no script) for a quantisation study; every value escaped by `html`. */
export async function renderQuantHtml(r: QuantReport, opts: { flipsPerFile?: number } = {}): Promise<string> {
    const charts: SafeHtml[] = [];
    const measures: [string, (f: QuantFileReport) => number | null][] = [
        ["AS", (f) => f.scores.AS.candidate],
        ["top-1 agreement", (f) => f.top1_agreement]
    ];
    // A measure with no finite value (e.g. every response truncated) gets a note, not an empty chart.
    for (const [title, q] of measures)
        charts.push(r.files.some((f) => Number.isFinite(q(f) ?? NaN)) ? raw(await renderSvg(paretoSpec(r, q, title))) : html`<p class="muted">No ${title} to plot.</p>`);
    // The same verdict as the text report (one wording, QuantReport.verdict).
    const cheapest = r.files.find((f) => f.file === r.verdict.file);
    const body = html`<header><h1>Quantisation study</h1><p>run ${r.runId} · ${r.files.length} files · ${r.study.templates.length} templates × ${r.study.instances} instances × ${r.study.rounds} rounds · seed ${r.study.seed} · t=${r.study.temperature} · wrapper ${r.study.wrapper}</p></header><main>
<section><h2>Cheapest file that keeps the scores</h2><p id="verdict">${cheapest ? html`<b>${fileLabel(cheapest)}</b> (${mib(cheapest.size_bytes)}) — <span class="muted">${cheapest.file}</span>` : r.verdict.text}</p>${r.power ? html`<p id="power">${r.power.text}</p>` : ""}</section>
<section><h2>Quality versus cost</h2><div class="charts">${charts.map((c) => html`<div class="chart">${c}</div>`)}</div></section>
<section><h2>Quality against the reference</h2>${qualityTable(r)}</section>
<section><h2>Token drift and cost</h2>${costTable(r)}</section>
<section><h2>Flips, per template and per failure category</h2>${r.files.filter((f) => !f.reference).map((f) => breakdown(f, opts.flipsPerFile ?? 50))}</section>
</main>`;
    return renderPage({ title: `eddy quantisation study ${r.runId}`, css: CSS, body });
}
