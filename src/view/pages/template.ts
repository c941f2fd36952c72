import { fix } from "../../report/format.js";
import { html } from "../../report/safeHtml.js";
import { formatScore, formatScoreWithInterval, scoresIn } from "../../report/scoreTable.js";
import { CATEGORY_LABELS } from "../../scores/neighbourhood.js";
import type { GridCell } from "../../store/viewQueries.js";
import { NotFound, type PageContext, type PageResult } from "../context.js";
import { num, scoreDefinitions, table, verdictClass, verdictKey, verdictLegend, verdictMeaning, verdictSymbol, viewerPage } from "../layout.js";
import { namedParams, paramNames, paramsText } from "../params.js";
import { answersUrl, instanceUrl, runsUrl, runUrl } from "../urls.js";
import { scoreHead } from "./run.js";

/**
 * `/run/:id/template/:t`: per configuration, the neighbourhood as a grid of instances × rounds coloured
 * by verdict (each cell links to its answer), its category and scores, and the discontinuities found in it.
 */
export function templatePage(ctx: PageContext): PageResult {
    const run = ctx.store.getRun(ctx.params[0]!);
    if (!run) throw new NotFound(`no run '${ctx.params[0]}'`);
    const template = ctx.params[1]!;
    const tmpl = ctx.store.view.templates(run.id).find((t) => t.id === template);
    if (!tmpl) throw new NotFound(`no template '${template}' in run ${run.id}`);
    const { data, scores } = ctx.runs.get(run.id);
    const configs = ctx.store.view.configurations(run.id);
    const instances = ctx.store.view.instances(run.id, template);
    const cells = ctx.store.view.grid(run.id, template);
    // R as planned (a running study shows empty cells for rounds still to come), or the most rounds stored.
    const planned = Number((JSON.parse(run.config_json) as { rounds?: unknown }).rounds) || 0;
    const rounds = Math.max(planned, 0, ...cells.map((c) => c.round + 1));
    const names = paramNames(instances);
    const byIndex = new Map(instances.map((i) => [i.index, i]));
    // The legend lists what the grids below hold: each verdict present, and the empty cells of rounds not generated yet.
    const present = new Set(cells.map((c) => verdictKey(c.category, c.missing)));
    if (cells.length < configs.length * instances.length * rounds) present.add("none");
    const parts = [
        html`<section><h2>${template} <small>${tmpl.group} · ${tmpl.subgroups.join(", ")}</small></h2><p class="note">${instances.length} instance(s) × ${rounds} round(s) per configuration. One row per instance (its parameters by name), one square per round: its verdict as a letter or sign and as a colour (the legend below lists those on this page); each square opens its answer.</p>${verdictLegend(present)}<p><a href="${answersUrl({ run: run.id, template })}">answers of this template</a> · <a href="#definitions">what the scores and categories mean</a></p></section>`
    ];
    for (const conf of configs) {
        const s = scores.find((x) => x.config === conf.label && x.template === template);
        const mine = new Map<string, GridCell>();
        for (const c of cells) if (c.configId === conf.id) mine.set(`${c.instance}|${c.round}`, c);
        parts.push(
            html`<section class="neighbourhood" data-config="${conf.id}"><h2>${conf.label} ${s ? html`<span class="badge ${s.category}">${CATEGORY_LABELS[s.category]}</span>` : html`<span class="muted">no judged answer yet</span>`}</h2>${
                s
                    ? table(
                          [...scoreHead(scoresIn("scores")), ...scoreHead(scoresIn("stability")), "judged", "harness"],
                          [
                              [
                                  ...scoresIn("scores").map((k) => num(formatScore(k, s))),
                                  ...scoresIn("stability").map((k) => num(formatScoreWithInterval(k, s))),
                                  num(`${s.M} of ${s.Mtotal}`),
                                  num(`${s.harness.truncated} trunc, ${s.harness.judge_error} judge, ${s.harness.missing} missing`)
                              ]
                          ]
                      )
                    : ""
            }<div class="scroll"><table class="grid"><thead><tr><th>#</th>${names ? names.map((n) => html`<th class="param">${n}</th>`) : html`<th>parameters</th>`}${Array.from({ length: rounds }, (_, r) => html`<th title="round ${r}">r${r}</th>`)}<th>passed</th></tr></thead><tbody>${instances.map((i) => {
                const row = Array.from({ length: rounds }, (_, r) => mine.get(`${i.index}|${r}`));
                const passed = row.filter((c) => c?.category === "passed").length;
                const judgedRounds = row.filter((c) => c?.category && c.category !== "truncated" && c.category !== "judge_error").length;
                const values = namedParams(i.bindings, i.params);
                return html`<tr><td><a href="${instanceUrl(run.id, conf.id, template, i.index)}">${i.index}</a></td>${
                    names ? values.map((v) => html`<td class="param" title="${v.name} = ${v.value}">${v.value}</td>`) : html`<td class="param" title="${paramsText(i.bindings, i.params)}">${paramsText(i.bindings, i.params)}</td>`
                }${row.map((c, r) => {
                    const k = c ? verdictKey(c.category, c.missing) : "none";
                    const words = c ? k : "not generated yet";
                    return html`<td class="cell"><a class="${c ? verdictClass(c.category, c.missing) : "v-none"}" href="${instanceUrl(run.id, conf.id, template, i.index, r)}" title="round ${r}: ${words} (${verdictMeaning(k)})" aria-label="instance ${i.index}, round ${r}: ${words}" data-verdict="${c ? (c.missing ? "missing" : (c.category ?? "none")) : "none"}">${verdictSymbol(k)}</a></td>`;
                })}<td class="n">${passed}/${judgedRounds}</td></tr>`;
            })}</tbody></table></div></section>`
        );
    }
    const disc = data.discontinuities.filter((d) => d.template === template);
    const confOf = new Map(configs.map((c) => [c.label, c]));
    parts.push(
        html`<section id="discontinuities"><h2>Discontinuities</h2><p class="note">Instances never solved, or solved in at least half the rounds fewer than the median instance, inside a mostly solved neighbourhood; patterns are tuple relations common among them.</p>${
            disc.length === 0
                ? html`<p class="muted">None found.</p>`
                : disc.map(
                      (d) =>
                          html`<h3>${d.config} <small>median pass rate ${fix(d.medianPassRate, 2)}</small></h3><ul>${d.instances.map((i) => {
                              const conf = confOf.get(d.config);
                              const p = paramsText(byIndex.get(i.instance)?.bindings, i.params);
                              return html`<li>${conf ? html`<a href="${instanceUrl(run.id, conf.id, template, i.instance)}">#${i.instance} ${p}</a>` : html`#${i.instance} ${p}`}: ${i.passed}/${i.rounds} passed (${i.kind.replace("_", " ")})</li>`;
                          })}</ul>${d.patterns.length ? html`<p>patterns: ${d.patterns.map((p) => `${p.label}: ${p.failing[0]}/${p.failing[1]} failing vs ${p.others[0]}/${p.others[1]} others`).join("; ")}</p>` : ""}`
                  )
        }</section>`
    );
    parts.push(html`<section id="definitions-section"><h2>What the scores and categories mean</h2>${scoreDefinitions()}</section>`);
    return { html: viewerPage(template, [["runs", runsUrl()], [run.id, runUrl(run.id)], [template]], parts) };
}
