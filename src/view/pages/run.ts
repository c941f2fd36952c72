import { fix, runStatus } from "../../report/format.js";
import { html } from "../../report/safeHtml.js";
import { formatScore, formatScoreWithInterval, SCORES, scoresIn } from "../../report/scoreTable.js";
import { judged, judgePythonCell } from "../../report/text.js";
import { CATEGORY_LABELS } from "../../scores/neighbourhood.js";
import { readMutateStudy } from "../../store/mutateStudies.js";
import type { ViewConfiguration } from "../../store/viewQueries.js";
import { NotFound, type PageContext, type PageResult } from "../context.js";
import { num, table, viewerPage } from "../layout.js";
import { agreementUrl, answersUrl, compareUrl, mutateUrl, reportUrl, runsUrl, templateUrl } from "../urls.js";

/** The score headers, each explained on hover by the one table of scores. */
export const scoreHead = (cols = SCORES) => cols.map((k) => html`<abbr title="${k.description} (${k.read})">${k.label}</abbr>`);

/** `/run/:id`: a run's configurations with their scores, then per configuration its neighbourhoods with intervals. */
export function runPage(ctx: PageContext): PageResult {
    const run = ctx.store.getRun(ctx.params[0]!);
    if (!run) throw new NotFound(`no run '${ctx.params[0]}'`);
    const { info, data } = ctx.runs.get(run.id);
    const configs = ctx.store.view.configurations(run.id);
    const byLabel = new Map(configs.map((c) => [c.label, c]));
    const language = typeof info.config.language === "string" ? info.config.language : "python";
    let mutate = false;
    try {
        mutate = readMutateStudy(ctx.store, run.id) !== undefined;
    } catch {
        // a database from before mutation studies (read-only, never migrated): none
    }
    const r = data.runs[0];
    const parts = [
        html`<section id="summary"><h2>Run ${run.id}</h2><dl class="kv"><dt>status</dt><dd>${r ? runStatus(r) : run.status}</dd><dt>created</dt><dd>${run.created}</dd><dt>backend</dt><dd>${run.backend}</dd><dt>seed</dt><dd>${run.seed}</dd><dt>language</dt><dd>${language}</dd><dt>rounds</dt><dd>${String(info.config.rounds ?? "–")}</dd><dt>isolation</dt><dd>${run.isolation_level ?? "–"}</dd><dt>judge Python</dt><dd>${r ? judgePythonCell(r) : "–"}</dd><dt>eddy</dt><dd>${run.eddy_version}</dd></dl>
<p><a href="${answersUrl({ run: run.id })}">all answers</a> · <a href="${answersUrl({ run: run.id, category: "failing" })}">failing answers</a> · <a href="${reportUrl(run.id)}">static report</a> · <a href="${agreementUrl(run.id)}">agreement with published verdicts</a>${mutate ? html` · <a href="${mutateUrl(run.id)}">prompt-mutation study</a>` : ""}</p></section>`,
        html`<section id="configurations"><h2>Configurations</h2><p class="note">Means over templates. Hover a score's name for what it measures and how to read it.</p>${table(
            ["config", "model", "quantisation", "t", "wrapper", "language", "mode", "determinism audit", "templates", "judged", ...scoreHead(), "trunc", "j_err", "missing"],
            data.configs.map((c) => {
                const conf = byLabel.get(c.config);
                return [
                    conf ? html`<a href="${answersUrl({ config: conf.id })}">${c.config}</a>` : c.config,
                    c.model,
                    c.quantization ?? "–",
                    num(fix(c.temperature, 2)),
                    c.wrapper,
                    language,
                    c.mode,
                    c.determinism,
                    num(c.templates),
                    num(judged(c.coverage.judged, c.coverage.total)),
                    ...SCORES.map((k) => num(formatScore(k, c))),
                    num(c.harness.truncated),
                    num(c.harness.judge_error),
                    num(c.harness.missing)
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
                ["template", "group", "judged", "R", "category", ...scoreHead(scoresIn("scores")), ...scoreHead(scoresIn("stability")), "discontinuity", "answers"],
                mine.map((t) => [
                    html`<a href="${templateUrl(run.id, t.template)}">${t.template}</a>`,
                    t.group,
                    num(judged(t.M, t.Mtotal)),
                    num(t.R),
                    html`<span class="badge ${t.category}">${CATEGORY_LABELS[t.category]}</span>`,
                    ...scoresIn("scores").map((k) => num(formatScore(k, t))),
                    ...scoresIn("stability").map((k) => num(formatScoreWithInterval(k, t))),
                    disc.has(`${c.config}\u0000${t.template}`) ? html`<a href="${templateUrl(run.id, t.template)}#discontinuities">yes</a>` : "–",
                    conf ? html`<a href="${answersUrl({ config: conf.id, template: t.template, category: "failing" })}">failing</a>` : ""
                ])
            )}</section>`
        );
    }
    return { html: viewerPage(`Run ${run.id}`, [["runs", runsUrl()], [run.id]], parts) };
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
