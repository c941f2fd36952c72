import { buildAgreement } from "../../report/agreement.js";
import { agreementHtml } from "../../report/agreementRender.js";
import { studyContext } from "../../report/loadStudy.js";
import { html, raw } from "../../report/safeHtml.js";
import { loadOutcomes } from "../../store/outcomes.js";
import { readMutateStudy } from "../../store/mutateStudies.js";
import { NotFound, type PageContext, type PageResult } from "../context.js";
import { table, viewerPage } from "../layout.js";
import { loopsUrl, loopUrl, runsUrl, runUrl } from "../urls.js";

/**
 * The other studies as views: the static report of a run, its agreement with a peer's published
 * verdicts, its prompt-mutation study, loop runs and determinism audits. Each is drawn by the renderer
 * its own command uses (one data path), inside the viewer's page; the loaded modules are imported on use.
 */

function requireRun(ctx: PageContext) {
    const run = ctx.store.getRun(ctx.params[0]!);
    if (!run) throw new NotFound(`no run '${ctx.params[0]}'`);
    return run;
}

/** `/run/:id/report`: `eddy report --format html` of the run, from the same report data and page shell. */
export async function reportPage(ctx: PageContext): Promise<PageResult> {
    const run = requireRun(ctx);
    const { info } = ctx.runs.get(run.id);
    const outcomes = loadOutcomes(ctx.store, [run.id]);
    if (outcomes.length === 0) return { html: viewerPage(`Report ${run.id}`, [["runs", runsUrl()], [run.id, runUrl(run.id)], ["report"]], html`<section><p class="muted">No judged answers in this run yet.</p></section>`) };
    const { planned, determinism } = studyContext(ctx.store, [info]);
    const agreement = buildAgreement(ctx.store, [run.id]);
    const { renderReport } = await import("../../report/renderReport.js");
    return { html: await renderReport(outcomes, [info], "html", { planned, determinism, ...(agreement ? { agreement } : {}) }) };
}

/** `/run/:id/agreement`: eddy's verdicts beside the published ones (Turbulence, EvalPlus imports). */
export function agreementPage(ctx: PageContext): PageResult {
    const run = requireRun(ctx);
    const a = buildAgreement(ctx.store, [run.id]);
    const body = a ? raw(agreementHtml(a)) : html`<section><p class="muted">Run ${run.id} has no published verdicts (they come with 'eddy import turbulence-results' and EvalPlus imports).</p></section>`;
    return { html: viewerPage(`Agreement: ${run.id}`, [["runs", runsUrl()], [run.id, runUrl(run.id)], ["agreement"]], body) };
}

/** `/run/:id/mutate`: the prompt-mutation study evaluated by this run, as `eddy mutate report` draws it. */
export async function mutatePage(ctx: PageContext): Promise<PageResult> {
    const run = requireRun(ctx);
    if (!readMutateStudy(ctx.store, run.id)) throw new NotFound(`run ${run.id} is not a prompt-mutation study`);
    const { buildMutateReport, mutateHtmlBody, MUTATE_CSS } = await import("../../mutate/report.js");
    return { html: viewerPage(`Prompt sensitivity: ${run.id}`, [["runs", runsUrl()], [run.id, runUrl(run.id)], ["prompt sensitivity"]], html`<section>${mutateHtmlBody(buildMutateReport(ctx.store, [run.id]))}</section>`, MUTATE_CSS) };
}

/** `/loops`: the EvaLOOP runs. */
export function loopsPage(ctx: PageContext): PageResult {
    const loops = ctx.store.loops.present() ? ctx.store.loops.listRuns() : [];
    const body = html`<section><h2>Loop runs</h2>${
        loops.length
            ? table(
                  ["run", "created", "status", "model", "quantisation", "backend"],
                  loops.map((l) => [html`<a href="${loopUrl(l.id)}">${l.id}</a>`, l.created.replace("T", " ").slice(0, 19), l.status, l.model, l.quantization ?? "–", l.backend])
              )
            : html`<p class="muted">No loop runs (start one with 'eddy loop run').</p>`
    }</section>`;
    return { html: viewerPage("Loop runs", [["runs", runsUrl()], ["loops"]], body) };
}

/** `/loop/:id`: one loop run as `eddy loop report --format html` draws it. */
export async function loopPage(ctx: PageContext): Promise<PageResult> {
    const id = ctx.params[0]!;
    if (!ctx.store.loops.present() || !ctx.store.loops.listRuns().some((l) => l.id === id)) throw new NotFound(`no loop run '${id}'`);
    const { buildLoopReport, loopHtmlBody, LOOP_CSS } = await import("../../loop/report.js");
    return { html: viewerPage(`Loop run ${id}`, [["runs", runsUrl()], ["loops", loopsUrl()], [id]], loopHtmlBody(buildLoopReport(ctx.store, [id])), LOOP_CSS) };
}

/** `/audits`: the latest determinism audit of each model file and mode. */
export function auditsPage(ctx: PageContext): PageResult {
    let audits: ReturnType<typeof ctx.store.audits.latest> = [];
    try {
        audits = ctx.store.audits.latest();
    } catch {
        // a database from before audits (opened read-only, never migrated)
    }
    const body = html`<section><h2>Determinism audits</h2><p class="note">The latest 'eddy audit determinism' of each model file and decoding mode: whether its responses depend on the session and the batching.</p>${
        audits.length
            ? table(
                  ["model", "sha256", "mode", "created", "identical", "the audit as recorded"],
                  audits.map((a) => [
                      a.model,
                      a.model_sha256.slice(0, 16),
                      a.mode,
                      a.created.replace("T", " ").slice(0, 19),
                      a.identical === 1 ? html`<span class="good">yes</span>` : html`<span class="bad">no</span>`,
                      html`<details class="more"><summary>sessions, comparisons, first divergences</summary><pre>${pretty(a.result_json)}</pre></details>`
                  ])
              )
            : html`<p class="muted">No determinism audits in this database.</p>`
    }</section>`;
    return { html: viewerPage("Determinism audits", [["runs", runsUrl()], ["audits"]], body) };
}

/** Stored JSON, indented (as stored when it does not parse). */
function pretty(json: string): string {
    try {
        return JSON.stringify(JSON.parse(json), null, 2);
    } catch {
        return json;
    }
}
