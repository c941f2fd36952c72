import { buildAgreement } from "../../report/agreement.js";
import { agreementHtml } from "../../report/agreementRender.js";
import { studyContext } from "../../report/loadStudy.js";
import { viewerConfigKey } from "../../report/types.js";
import type { DeterminismAudit, Divergence } from "../../audit/determinism.js";
import { html, raw, type SafeHtml } from "../../report/safeHtml.js";
import { loadOutcomes } from "../../store/outcomes.js";
import { readMutateStudy } from "../../store/mutateStudies.js";
import { NotFound, type PageContext, type PageResult } from "../context.js";
import { num, table, viewerPage } from "../layout.js";
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
    // Each answer the report shows links to its page here.
    const viewer = { url: "", configIds: new Map(ctx.store.view.configurations(run.id).map((c) => [viewerConfigKey(c.runId, c.label), c.id])) };
    return { html: await renderReport(outcomes, [info], "html", { planned, determinism, viewer, ...(agreement ? { agreement } : {}) }) };
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
                  loops.map((l) => [html`<a href="${loopUrl(l.id)}">${l.id}</a>`, l.created.replace("T", " ").slice(0, 19), l.status, l.model, l.quantization ?? "none", l.backend])
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

/** What each session an audit compares varies against the baseline session, in words. */
function variantMeaning(variant: string, mode: string): string {
    if (variant === "repeat") return "the same settings again: a new session, nothing else changed";
    if (variant === "resumed") return "interrupted part-way and resumed: the answers kept, the rest generated again";
    const m = /^(sequences|groups)=(\d+)$/.exec(variant);
    if (m) return m[1] === "groups" ? `${m[2]} lockstep groups decoded at once instead of one` : `${m[2]} ${mode === "fast" ? "sequences in one shared context" : "parallel sequences"} instead of one`;
    return variant;
}

const share = (x: number): string => `${(100 * x).toFixed(1)}%`;

/** `/audits`: the latest determinism audit of each model file and mode, as tables: what was asked, and per session compared what differed. */
export function auditsPage(ctx: PageContext): PageResult {
    let audits: ReturnType<typeof ctx.store.audits.latest> = [];
    try {
        audits = ctx.store.audits.latest();
    } catch {
        // a database from before audits (opened read-only, never migrated)
    }
    const parsed = audits.map((a) => {
        let result: Partial<DeterminismAudit> | undefined;
        try {
            const v = JSON.parse(a.result_json) as unknown;
            if (v !== null && typeof v === "object" && !Array.isArray(v)) result = v as Partial<DeterminismAudit>;
        } catch {
            // shown as unreadable below
        }
        return { a, result };
    });
    const groupOf = (r: Partial<DeterminismAudit> | undefined) => r?.settings?.groupSize;
    const body = html`<section><h2>Determinism audits</h2><p class="note">The latest 'eddy audit determinism' of each model file and decoding mode. An audit asks the same questions in several sessions (the baseline, the same settings again, more answered at once…) and compares the responses byte for byte: <b>identical</b> means a run's responses do not depend on the session or on what is decoded beside them, so a rerun of a study gives the same answers. The leaderboard and run pages show each configuration's audit beside its decoding mode.</p>${
        parsed.length
            ? html`${table(
                  ["model", "file (sha256)", "mode", "audited", "questions asked", "sessions compared", "identical?", "most differing responses"],
                  parsed.map(({ a, result }) => {
                      const st = result?.settings;
                      const g = groupOf(result);
                      const worst = Math.max(0, ...(result?.comparisons ?? []).map((c) => c.responseShare ?? 0));
                      return [
                          a.model,
                          html`<code title="${a.model_sha256}">${a.model_sha256.slice(0, 16)}</code>`,
                          `${a.mode}${g === undefined ? "" : g > 1 ? `, lockstep groups of ${g}` : ", one context per query"}`,
                          a.created.replace("T", " ").slice(0, 19),
                          st ? `${st.templates}: ${st.instances} instance(s) × ${st.rounds} round(s), t=${st.temperature}, seed ${st.seed}, at most ${st.maxTokens} tokens` : html`<span class="muted">— the audit's record could not be read</span>`,
                          num(result?.comparisons?.length ?? "—"),
                          a.identical === 1 ? html`<span class="good">yes</span>` : html`<span class="bad">no</span>`,
                          num(result?.comparisons ? share(worst) : "—")
                      ];
                  }),
                  { id: "audits" }
              )}${parsed.map(({ a, result }) => auditDetail(a, result))}`
            : html`<p class="muted">No determinism audits in this database (run one with 'eddy audit determinism --model &lt;file.gguf&gt;').</p>`
    }</section>`;
    return { html: viewerPage("Determinism audits", [["runs", runsUrl()], ["audits"]], body, ".pair-text{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:8px}.pair-text pre{white-space:pre-wrap;word-break:break-word}") };
}

/** One audit's sessions, each against the baseline: what it varied, how many responses and verdicts differed, where they first diverged. */
function auditDetail(a: { model: string; mode: string; created: string }, r: Partial<DeterminismAudit> | undefined): SafeHtml {
    const title = html`<h3>${a.model} <small>${a.mode} · ${a.created.slice(0, 10)}</small></h3>`;
    if (!r?.comparisons) return html`${title}<p class="muted">— The audit's record could not be read (it is not the JSON 'eddy audit determinism' writes), so its sessions cannot be shown.</p>`;
    const rounds = r.rounds;
    return html`${title}${table(
        ["session", "what it varies against the baseline", "responses that differ", "verdicts that differ", "first divergence"],
        r.comparisons.map((c) => {
            // Read as the audit wrote it; a field of another shape (an older or foreign record) shows as not recorded.
            const count = (x: unknown, of: unknown, sh: unknown) => (typeof x === "number" && typeof of === "number" ? `${x} of ${of}${typeof sh === "number" ? ` (${share(sh)})` : ""}` : typeof sh === "number" ? share(sh) : "— not recorded");
            const d = c.firstDivergence as Partial<Divergence> | null | undefined;
            const variant = typeof c.variant === "string" ? c.variant : "—";
            return [
                variant,
                html`${variant === "—" ? "— not recorded" : variantMeaning(variant, a.mode)}${c.resume ? html`<br><span class="muted">${c.resume.storedBefore} kept at the interruption, ${c.resume.regenerated} of them generated again with their group, ${c.resume.mismatched} differing</span>` : ""}`,
                num(count(c.differingResponses, c.responses, c.responseShare)),
                num(count(c.differingVerdicts, c.responses, c.verdictShare)),
                d && typeof d === "object" && typeof d.query === "string"
                    ? html`<details class="more"><summary>${d.query}, at character ${String(d.charOffset ?? "?")}</summary><div class="pair-text"><pre>${String(d.a ?? "")}</pre><pre>${String(d.b ?? "")}</pre></div></details>`
                    : d
                      ? html`<span class="muted">— recorded in another form: ${typeof d === "string" ? d : JSON.stringify(d)}</span>`
                      : html`<span class="muted">— none: every response identical</span>`
            ];
        }),
        { cls: "audit" }
    )}<p class="note">${
        rounds
            ? `Greedy rounds: ${rounds.differing} of ${rounds.prompts} prompts have rounds that differ within the baseline session${(r.settings?.groupSize ?? 1) > 1 ? " (lockstep: the rounds sit at different places in the batch, so this is reported, not required)" : ""}.`
            : "Rounds within a session: — not compared (sampled decoding: rounds differ by design, each with its own seed)."
    }</p>`;
}
