import { fix, runStatus } from "../../report/format.js";
import { html } from "../../report/safeHtml.js";
import { formatScore, SCORES, scoresIn, type Scored, type ScoreColumn } from "../../report/scoreTable.js";
import { judged, judgePythonCell } from "../../report/text.js";
import { recordedLanguage } from "../../languages/languages.js";
import { CATEGORY_LABELS } from "../../scores/neighbourhood.js";
import { judgedOf } from "../../vocabulary.js";
import { readMutateStudy } from "../../store/mutateStudies.js";
import type { ViewConfiguration } from "../../store/viewQueries.js";
import { NotFound, type PageContext, type PageResult } from "../context.js";
import { num, scoreDefinitions, table, td, viewerPage } from "../layout.js";
import { agreementUrl, answersUrl, compareUrl, mutateUrl, reportUrl, runsUrl, templateUrl } from "../urls.js";

/** The score headers, each explained on hover by the one table of scores. */
export const scoreHead = (cols = SCORES) => cols.map((k) => html`<abbr title="${k.description} (${k.read})">${k.label}</abbr>`);

const RUN_CSS = `
#configs td .settings{display:block;color:var(--muted);font-size:11.5px}
section.config-scores td small{display:block;color:var(--muted);font-size:11px}
#configs th,#configs td,section.config-scores th,section.config-scores td{padding:4px 7px}
`;

/** A score with its 95% interval under it (the value alone where it has none). */
function withInterval(k: ScoreColumn, s: Scored) {
    const i = k.interval?.(s);
    return td(html`<td class="n">${formatScore(k, s)}${i ? html`<small>${fix(i.lo, 2)}–${fix(i.hi, 2)}</small>` : ""}</td>`);
}

/** `/run/:id`: a run's configurations with their scores, then per configuration its neighbourhoods with intervals. */
export function runPage(ctx: PageContext): PageResult {
    const run = ctx.store.getRun(ctx.params[0]!);
    if (!run) throw new NotFound(`no run '${ctx.params[0]}'`);
    const { info, data } = ctx.runs.get(run.id);
    const configs = ctx.store.view.configurations(run.id);
    const byLabel = new Map(configs.map((c) => [c.label, c]));
    const language = recordedLanguage(info.config.language);
    let mutate = false;
    try {
        mutate = readMutateStudy(ctx.store, run.id) !== undefined;
    } catch {
        // a database from before mutation studies (read-only, never migrated): none
    }
    const r = data.runs[0];
    const parts = [
        html`<section id="summary"><h2>Run ${run.id}</h2><dl class="kv"><dt>status</dt><dd>${r ? runStatus(r) : run.status}</dd>${r ? html`<dt>judged</dt><dd>${judgedOf(r.answers)}</dd>` : ""}<dt>created</dt><dd>${run.created}</dd><dt>backend</dt><dd>${run.backend}</dd><dt>seed</dt><dd>${run.seed}</dd><dt>language</dt><dd>${language}</dd><dt>rounds</dt><dd>${String(info.config.rounds ?? "–")}</dd><dt>isolation</dt><dd>${run.isolation_level ?? "–"}</dd><dt>judge Python</dt><dd>${r ? judgePythonCell(r) : "–"}</dd><dt>eddy</dt><dd>${run.eddy_version}</dd></dl>
<p><a href="${answersUrl({ run: run.id })}">all answers</a> · <a href="${answersUrl({ run: run.id, category: "failing" })}">failing answers</a> · <a href="${reportUrl(run.id)}">static report</a> · <a href="${agreementUrl(run.id)}">agreement with published verdicts</a>${mutate ? html` · <a href="${mutateUrl(run.id)}">prompt-mutation study</a>` : ""}</p></section>`,
        html`<section id="configurations"><h2>Configurations</h2><p class="note">Means over templates; the scores' definitions are at the foot of the page. <b>judged</b>: answers with a model verdict, of those planned; <b>instances</b>: instances with a judged answer, of all instances. <b>left out</b>: truncated, judge_error and missing answers (never model failures, in no score).</p>${table(
            ["configuration", "mode", "templates", "judged", "instances", ...scoreHead(), "left out"],
            data.configs.map((c) => {
                const conf = byLabel.get(c.config);
                const settings = [c.model, c.quantization ?? "no quantisation", `t=${c.temperature}`, c.wrapper, language].join(" · ");
                return [
                    html`${conf ? html`<a href="${answersUrl({ config: conf.id })}">${c.config}</a>` : c.config}<span class="settings">${settings}</span>`,
                    html`${c.mode}<span class="settings">audit: ${c.determinism}</span>`,
                    num(c.templates),
                    num(judgedOf(c.answers)),
                    num(judged(c.coverage.judged, c.coverage.total)),
                    ...SCORES.map((k) => num(formatScore(k, c))),
                    td(html`<td class="n" title="truncated, judge_error, missing">${c.harness.truncated} trunc · ${c.harness.judge_error} j_err · ${c.harness.missing} missing</td>`)
                ];
            }),
            { id: "configs" }
        )}${comparePairs(configs).length ? html`<p>Compare: ${comparePairs(configs).map(([a, b]) => html`<a class="compare" href="${compareUrl(a.id, b.id)}">${a.label}${a.quantization ? ` ${a.quantization}` : ""} ↔ ${b.label}${b.quantization ? ` ${b.quantization}` : ""}</a> `)}</p>` : ""}</section>`
    ];
    if (data.configs.length === 0) parts.push(html`<section><p class="muted">No judged answers in this run yet: reload while it runs.</p></section>`);
    const rows = data.runs.flatMap((x) => x.templates);
    const disc = new Set(data.discontinuities.map((d) => `${d.config}\u0000${d.template}`));
    for (const c of data.configs) {
        const conf = byLabel.get(c.config);
        const mine = rows.filter((t) => t.config === c.config);
        parts.push(
            html`<section class="config-scores"><h2>${c.config} <small>${c.mode}</small></h2><p class="note">Per template (neighbourhood): category, AS/CPS/CCS, and the 95% intervals (RLPR Wilson at the effective n, PSR Wilson, AV bootstrap). A template opens its grid of instances × rounds.</p>${table(
                ["template", "group", "instances", "R", "category", ...scoreHead(scoresIn("scores")), ...scoreHead(scoresIn("stability")), "discontinuity", "answers"],
                mine.map((t) => [
                    html`<a href="${templateUrl(run.id, t.template)}">${t.template}</a>`,
                    t.group,
                    num(judged(t.M, t.Mtotal)),
                    num(t.R),
                    html`<span class="badge ${t.category}">${CATEGORY_LABELS[t.category]}</span>`,
                    ...scoresIn("scores").map((k) => num(formatScore(k, t))),
                    ...scoresIn("stability").map((k) => withInterval(k, t)),
                    disc.has(`${c.config}\u0000${t.template}`) ? html`<a href="${templateUrl(run.id, t.template)}#discontinuities">yes</a>` : "–",
                    conf ? html`<a href="${answersUrl({ config: conf.id, template: t.template, category: "failing" })}">failing</a>` : ""
                ])
            )}</section>`
        );
    }
    parts.push(html`<section id="definitions-section"><h2>What the scores and categories mean</h2>${scoreDefinitions()}</section>`);
    return { html: viewerPage(`Run ${run.id}`, [["runs", runsUrl()], [run.id]], parts, RUN_CSS) };
}


/**
 * Pairs of configurations worth comparing first: those that differ only in quantisation (a quantisation
 * study: same model name up to its quantisation suffix, same temperature and wrapper), else every pair
 * up to 6 (the compare page takes any two).
 */
export function comparePairs(configs: readonly ViewConfiguration[]): [ViewConfiguration, ViewConfiguration][] {
    const base = (c: ViewConfiguration) => `${c.quantization ? c.model.replace(new RegExp(`[-_.]?${escapeRegExp(c.quantization)}$`, "i"), "") : c.model}\u0000${c.temperature}\u0000${c.wrapper}`;
    const pairs: [ViewConfiguration, ViewConfiguration][] = [];
    for (let i = 0; i < configs.length; i++) for (let j = i + 1; j < configs.length; j++) pairs.push([configs[i]!, configs[j]!]);
    const quant = pairs.filter(([a, b]) => a.quantization !== b.quantization && base(a) === base(b));
    return (quant.length ? quant : pairs).slice(0, 6);
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
