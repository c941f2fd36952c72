import { fix } from "../../report/format.js";
import { recordedLanguage } from "../../languages/languages.js";
import { html } from "../../report/safeHtml.js";
import { judgedOf, runState } from "../../vocabulary.js";
import type { PageContext, PageResult } from "../context.js";
import { num, table, viewerPage } from "../layout.js";
import { answersUrl, leaderboardUrl, runUrl } from "../urls.js";

/** `/runs`: every run with its configurations (model, quantisation, temperature, wrapper, language). */
export function runsPage(ctx: PageContext): PageResult {
    const runs = ctx.store.view.runs();
    const configs = ctx.store.view.configurations();
    const body = html`<section><h2>Runs</h2><p class="note">${ctx.store.path} · read-only · reload to see answers written since.</p>${
        runs.length === 0
            ? html`<p class="muted">No runs in this database yet.</p>`
            : table(
                  ["run", "created", "status", "backend", "language", "configurations (model · quantisation · t · wrapper)", "answers", "judged"],
                  runs.map((r) => [
                      html`<a href="${runUrl(r.id)}">${r.id}</a>`,
                      r.created.replace("T", " ").slice(0, 19),
                      runState(r.status, r.answerCounts.missing, { short: true }),
                      r.backend,
                      recordedLanguage(r.config.language),
                      html`${configs
                          .filter((c) => c.runId === r.id)
                          .map((c) => html`<div>${c.model} · ${c.quantization ?? "–"} · t=${fix(c.temperature, 2)} · ${c.wrapper}</div>`)}`,
                      num(r.answers),
                      html`<a href="${answersUrl({ run: r.id })}">${judgedOf(r.answerCounts)}</a>`
                  ]),
                  { id: "runs" }
              )
    }</section>`;
    return { html: viewerPage("Runs", [["leaderboard", leaderboardUrl()], ["runs"]], body) };
}
