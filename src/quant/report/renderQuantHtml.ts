import type { TopLevelSpec } from "vega-lite";
import { renderSvg } from "../../report/charts.js";
import { fix, pct, tuple } from "../../report/format.js";
import { scoreValue } from "../../report/scoreTable.js";
import { renderPage } from "../../report/page.js";
import { html, raw, type SafeHtml } from "../../report/safeHtml.js";
import type { QuantFileReport, QuantReport } from "../study/types.js";
import { paretoFront } from "./pareto.js";
import { fileLabel, kl, mib, qualityPoints } from "./labels.js";
import { recommendationHtml, recommendationTable } from "./recommendationTable.js";

// The page's own classes (the viewer's quant page uses them too); the shell (report/page.ts) holds the shared sheet and the policy.
export const QUANT_CSS = `
.charts{display:flex;gap:24px;flex-wrap:wrap}
details.flip{border-left:3px solid #c62828;padding:2px 10px;background:#fdf7f7}details.flip.gained{border-color:#2e7d32;background:#f5fbf5}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:10px}
table.recommendation th.group{text-align:center;border-bottom:1px solid #c5cad6}table.recommendation tbody th{text-align:left;font-weight:normal;white-space:nowrap}
table.recommendation tr.recommended{background:#eef6ee}
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

const num = (v: number | null, d = 4): string => (v == null ? "–" : fix(v, d));

/** Memory, speeds and the drift's percentiles per configuration: the details behind the recommendation's cost columns. */
export function quantDetailsHtml(r: QuantReport): SafeHtml {
    const rows = r.files.map(
        (f) => html`<tr><td>${fileLabel(f)}</td><td class="n">${mib(f.size_bytes)}</td><td class="n">${mib(f.memory_bytes)}</td><td class="n">${num(f.prompt_tokens_per_s, 0)}</td><td class="n">${num(f.generation_tokens_per_s, 0)}</td><td class="n">${num(f.tokens_per_cpu_second, 1)}</td>
<td class="n">${f.top1_agreement == null ? "–" : pct(f.top1_agreement)}</td><td class="n">${kl(f.kl_mean)}</td><td class="n">${kl(f.kl_p50)}</td><td class="n">${kl(f.kl_p90)}</td><td class="n">${kl(f.kl_p99)}</td><td class="n">${kl(f.kl_max)}</td></tr>`
    );
    return html`<div class="scroll"><table><thead><tr><th>configuration</th><th>size</th><th>memory</th><th>prompt tok/s</th><th>gen tok/s</th><th>tok/CPU-s</th><th>top-1 agreement</th><th>KL mean</th><th>KL p50</th><th>KL p90</th><th>KL p99</th><th>KL max</th></tr></thead><tbody>${rows}</tbody></table></div>
<p class="muted">Drift: teacher forcing on ${r.drift.texts} ${r.drift.source}; KL(reference ‖ configuration) of next-token distributions, nats. Memory: weights plus one evaluation context as llama.cpp accounts them. Speeds: per sequence, from this study's generations; tok/CPU-s: tokens generated per CPU-second of the inference process.</p>`;
}

/** The quality-versus-cost charts (inline SVG, no script), AS and top-1 agreement against file size; a note where a measure has nothing to plot. */
export async function quantCharts(r: QuantReport): Promise<SafeHtml> {
    const charts: SafeHtml[] = [];
    const measures: [string, (f: QuantFileReport) => number | null][] = [
        ["AS", (f) => f.scores.AS.candidate],
        ["top-1 agreement", (f) => f.top1_agreement]
    ];
    // A measure with no finite value (e.g. every response truncated) gets a note, not an empty chart.
    for (const [title, q] of measures)
        charts.push(r.files.some((f) => Number.isFinite(q(f) ?? NaN)) ? raw(await renderSvg(paretoSpec(r, q, title))) : html`<p class="muted">No ${title} to plot.</p>`);
    return html`<div class="charts">${charts.map((c) => html`<div class="chart">${c}</div>`)}</div>`;
}

/** The verdict and the power statement, as the report and the viewer word them (one wording, QuantReport.verdict). */
export function quantVerdictHtml(r: QuantReport): SafeHtml {
    const ship = r.files.find((f) => f.model === r.verdict.configuration);
    return html`<p id="verdict">${ship ? html`<b>${fileLabel(ship)}</b> (${mib(ship.size_bytes)}) — <span class="muted">${ship.file}</span>` : r.verdict.text}</p>${r.power ? html`<p id="power">${r.power.text}</p>` : ""}`;
}

function breakdown(f: QuantFileReport, flipsShown: number): SafeHtml {
    const templates = f.per_template.map(
        (t) => html`<tr><td>${t.template}</td><td class="n">${t.instances}</td><td class="n">${scoreValue("AS", t.AS.reference)} → ${scoreValue("AS", t.AS.candidate)}</td><td class="n">${scoreValue("CCS", t.CCS.reference)} → ${scoreValue("CCS", t.CCS.candidate)}</td><td class="n">${t.lost} / ${t.gained}</td></tr>`
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
    return html`<details id="flips-${anchor(f.model)}"><summary><b>${fileLabel(f)}</b>: ${f.flip_counts.responses.lost} responses lost, ${f.flip_counts.responses.gained} gained</summary>
<h3>Per template</h3><table><thead><tr><th>template</th><th>instances</th><th>AS ref → file</th><th>CCS ref → file</th><th>responses lost / gained</th></tr></thead><tbody>${templates}</tbody></table>
<h3>Verdict changes (reference → file)</h3>${transitions.length ? html`<table><tbody>${transitions}</tbody></table>` : html`<p class="muted">none</p>`}
<h3>Flipped responses</h3>${flips.length ? flips : html`<p class="muted">none</p>`}${more}</details>`;
}

/** One self-contained HTML page in the report shell (inline CSS and SVG, no script) for a quantisation study; every value escaped by `html`. */
export async function renderQuantHtml(r: QuantReport, opts: { flipsPerFile?: number } = {}): Promise<string> {
    const body = html`<header><h1>Quantisation study</h1><p>run ${r.runId} · ${r.files.length} configurations · ${r.study.templates.length} templates × ${r.study.instances} instances × ${r.study.rounds} rounds · seed ${r.study.seed} · t=${r.study.temperature} · wrapper ${r.study.wrapper}</p></header><main>
<section><h2>The configuration to ship</h2>${quantVerdictHtml(r)}</section>
<section><h2>Recommendation</h2>${recommendationHtml(recommendationTable(r), { flips: (f) => `#flips-${anchor(f.model)}` })}</section>
<section><h2>Quality versus cost</h2>${await quantCharts(r)}</section>
<section><h2>Token drift, memory and speed</h2>${quantDetailsHtml(r)}</section>
<section><h2>Flips, per template and per failure category</h2>${r.files.filter((f) => !f.reference).map((f) => breakdown(f, opts.flipsPerFile ?? 50))}</section>
</main>`;
    return renderPage({ title: `eddy quantisation study ${r.runId}`, css: QUANT_CSS, body });
}

/** A configuration's label as an id fragment (letters, digits, - and _ only). */
export function anchor(label: string): string {
    return label.replace(/[^A-Za-z0-9_-]/g, "_");
}
