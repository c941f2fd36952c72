import { tuple } from "../../report/format.js";
import { html, type SafeHtml } from "../../report/safeHtml.js";
import { fileLabel, mib } from "../../quant/report/labels.js";
import { recommendationHtml, recommendationTable } from "../../quant/report/recommendationTable.js";
import { anchor, QUANT_CSS, quantCharts, quantDetailsHtml, quantVerdictHtml } from "../../quant/report/renderQuantHtml.js";
import { quantReportFromStore, readStoredStudy } from "../../quant/study/storedStudy.js";
import type { QuantFileReport, QuantReport } from "../../quant/study/types.js";
import { listQuantStudies } from "../../store/quantStudy.js";
import { NotFound, type PageContext, type PageResult } from "../context.js";
import { table, verdictBadge, viewerPage } from "../layout.js";
import { compareUrl, instanceUrl, quantStudiesUrl, quantUrl, runsUrl, runUrl } from "../urls.js";

/**
 * The quantisation studies `eddy quant` recorded, as views: `/quant` lists them, `/run/:id/quant` draws one from
 * the store as the command printed it (quantReportFromStore: one data path): the configuration to ship with the
 * study's power, the recommendation table the terminal and the HTML report draw (recommendationTable.ts), the
 * quality-versus-cost charts (inline SVG), and every flipped answer linked to its answer pages on both sides.
 */

const PAGE_CSS = `
${QUANT_CSS}
section.flips .where{font-family:ui-monospace,monospace;white-space:nowrap}
section.flips h3{margin:14px 0 4px}
`;

/** `/quant`: every quantisation study in the store, newest first. */
export function quantStudiesPage(ctx: PageContext): PageResult {
    const studies = listQuantStudies(ctx.store);
    const body = html`<section><h2>Quantisation studies</h2><p class="note">Each 'eddy quant' study: one run in which every file (under each KV-cache type, with --kv-cache) is a configuration, compared with the reference.</p>${
        studies.length
            ? table(
                  ["run", "reference", "configurations", "recorded"],
                  studies.map((s) => {
                      const n = readStoredStudy(ctx.store, s.runId)?.files.length;
                      return [html`<a href="${quantUrl(s.runId)}">${s.runId}</a>`, s.reference, n === undefined ? "–" : String(n), s.updated.replace("T", " ").slice(0, 19)];
                  }),
                  { id: "quant-studies" }
              )
            : html`<p class="muted">No quantisation studies in this database (they come with 'eddy quant').</p>`
    }</section>`;
    return { html: viewerPage("Quantisation studies", [["runs", runsUrl()], ["quantisation studies"]], body, PAGE_CSS) };
}

/** `/run/:id/quant`: one quantisation study. */
export async function quantPage(ctx: PageContext): Promise<PageResult> {
    const run = ctx.store.getRun(ctx.params[0]!);
    if (!run) throw new NotFound(`no run '${ctx.params[0]}'`);
    const stored = readStoredStudy(ctx.store, run.id);
    if (!stored) throw new NotFound(`run ${run.id} is not a quantisation study (they come with 'eddy quant')`);
    const r = quantReportFromStore(ctx.store, run.id, stored);
    const configs = new Map(ctx.store.configurations(run.id).map((c) => [c.model, c.id]));
    const ref = r.files.find((f) => f.reference);
    const flipsHref = (f: QuantFileReport): string | undefined => (f.response_flips.length > 0 ? `#flips-${anchor(f.model)}` : undefined);
    const body = html`<section><p>${r.files.length} configurations · ${r.study.templates.length} templates × ${r.study.instances} instances × ${r.study.rounds} rounds · seed ${r.study.seed} · t=${r.study.temperature} · wrapper ${r.study.wrapper} · reference ${ref ? fileLabel(ref) : "?"} <span class="muted">${r.reference}</span></p></section>
<section id="ship"><h2>The configuration to ship</h2>${quantVerdictHtml(r)}</section>
<section id="recommendation"><h2>Recommendation</h2>${recommendationHtml(recommendationTable(r), { flips: flipsHref })}</section>
<section id="pareto"><h2>Quality versus cost</h2>${await quantCharts(r)}</section>
<section class="flips" id="flips"><h2>Flipped answers</h2>${flipsSections(r, run.id, configs)}</section>
<section id="details"><h2>Token drift, memory and speed</h2>${quantDetailsHtml(r)}</section>`;
    return { html: viewerPage(`Quantisation study ${run.id}`, [["quantisation studies", quantStudiesUrl()], [run.id, runUrl(run.id)], ["quantisation study"]], body, PAGE_CSS) };
}

/** Per configuration with flips: each flipped answer, its verdict on both sides, each linked to that side's answer page. */
function flipsSections(r: QuantReport, runId: string, configs: ReadonlyMap<string, number>): SafeHtml {
    const ref = r.files.find((f) => f.reference);
    const refId = ref ? configs.get(ref.model) : undefined;
    const withFlips = r.files.filter((f) => !f.reference && f.response_flips.length > 0);
    if (withFlips.length === 0) return html`<p class="muted">No answer flipped between the reference and any configuration.</p>`;
    return html`${withFlips.map((f) => {
        const id = configs.get(f.model);
        const answer = (config: number | undefined, x: QuantFileReport["response_flips"][number], label: SafeHtml): SafeHtml =>
            config === undefined ? label : html`<a href="${instanceUrl(runId, config, x.template, x.instance, x.round)}">${label}</a>`;
        const rows = f.response_flips.map((x) => [
            html`<span class="${x.direction === "lost" ? "bad" : "good"}">${x.direction}</span>`,
            html`<span class="where">${x.template}#${x.instance} ${tuple(x.params)}</span>`,
            String(x.round),
            answer(refId, x, verdictBadge(x.reference.category)),
            answer(id, x, verdictBadge(x.candidate.category)),
            x.candidate.detail.slice(0, 200)
        ]);
        const compare = refId !== undefined && id !== undefined ? html` · <a href="${compareUrl(refId, id)}">compare side by side</a>` : "";
        return html`<h3 id="flips-${anchor(f.model)}">${fileLabel(f)} <span class="muted">(${mib(f.size_bytes)}): ${f.flip_counts.responses.lost} answers lost, ${f.flip_counts.responses.gained} gained</span>${compare}</h3>
${table(["", "instance", "round", "reference", fileLabel(f), "detail"], rows, { id: `flipped-${anchor(f.model)}` })}`;
    })}`;
}
