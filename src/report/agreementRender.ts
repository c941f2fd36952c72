import { openStore } from "../store/Store.js";
import { buildAgreement, causeKinds, type AgreementReport, type CauseKind } from "./agreement.js";
import { fix, pct, tuple } from "./format.js";
import { COMPARED_SCORES } from "./scoreTable.js";
import { html, type SafeHtml } from "./safeHtml.js";
import type { Section } from "./text.js";

const CAUSE_LABELS: Record<CauseKind, string> = {
    their_harness: "their harness (timeout, crash, or their test passes it on re-run)",
    their_inconsistent: "their harness: inconsistent verdicts for identical code",
    their_test: "their test is wrong here",
    eddy_harness: "eddy's harness (truncated, judge_error, a run-dependent limit)",
    extraction: "extraction difference",
    oracle: "oracle difference",
    their_defect: "a defect of their version, since fixed",
    their_rules: "their version's own rule (a lower time limit): they were right by it",
    dataset: "another version of the dataset",
    unknown: "unknown (the evidence says what was found)"
};

/** EvalPlus's labels where they differ: its harness's failures are timeouts and what its sandbox disables. */
const EVALPLUS_LABELS: Partial<Record<CauseKind, string>> = {
    their_harness: "their harness (a timeout under their wall-clock limit, what their sandbox disables)",
    eddy_harness: "eddy's harness (truncated, judge_error, a run-dependent limit)"
};

const label = (source: string, k: CauseKind): string => (source === "EvalPlus" ? (EVALPLUS_LABELS[k] ?? CAUSE_LABELS[k]) : CAUSE_LABELS[k]);

/** Template ids stay whole: they are what a reader looks up. */
const TEMPLATE = { head: "template", fixed: true } as const;

/** How many disagreements the text and Markdown reports list (JSON and HTML list all). */
const LISTED = 50;

/**
 * The agreement tables, drawn by the text and Markdown reports from the report data's `agreement`
 * section (and by the HTML report through {@link agreementHtml}): never spliced into rendered output.
 */
export function agreementSections(a: AgreementReport, listed = LISTED, evidenceAs: "column" | "note" = "note"): Section[] {
    const who = a.source === "turbulence" ? "Turbulence" : a.source;
    const out: Section[] = [
        {
            title: `Agreement with ${who}'s published verdicts`,
            head: ["responses", "agree", "rate", "both correct", "both wrong", "only eddy correct", `only ${who} correct`, "missing", "eddy harness"],
            rows: [[String(a.responses), String(a.agree), pct(a.rate), String(a.matrix.bothCorrect), String(a.matrix.bothWrong), String(a.matrix.eddyOnly), String(a.matrix.publishedOnly), String(a.excluded.missing), String(a.excluded.eddyHarness)]],
            note: "Responses eddy judged as a harness outcome or has no answer for are left out of the comparison."
        },
        {
            title: `Scores both ways (means over templates)`,
            head: ["verdicts", ...COMPARED_SCORES],
            rows: [
                ["eddy", ...COMPARED_SCORES.map((k) => fix(a.scores.eddy[k]))],
                [who, ...COMPARED_SCORES.map((k) => fix(a.scores.published[k]))]
            ]
        },
        {
            title: "Agreement per template",
            head: [TEMPLATE, "responses", "agree", "rate", ...COMPARED_SCORES.flatMap((k) => [`${k} eddy`, `${k} ${who}`])],
            rows: a.templates.map((t) => [t.template, String(t.responses), String(t.agree), pct(t.rate), ...COMPARED_SCORES.flatMap((k) => [fix(t.eddy[k]), fix(t.published[k])])])
        },
        {
            title: "Causes of disagreement",
            head: ["cause", "responses"],
            rows: causeKinds(a.source).map((k) => [label(a.source, k), String(a.causes[k] ?? 0)]),
            note: [
                a.source === "EvalPlus"
                    ? "eddy's harness outcomes are counted here but not in the comparison above. Where the verdicts differ, the answer and the canonical solution were run in eddy's sandbox on the input that decided (the one EvalPlus failed it on, or eddy's failing test): each cause rests on what that showed, read by the rules of the EvalPlus version that judged."
                    : "eddy's harness outcomes are counted here but not in the comparison above. Where the verdicts differ, the published test was re-run in eddy's sandbox (seeded) on the response and on the model solution.",
                ...(a.notes ?? [])
            ].join("\n")
        }
    ];
    if (a.disagreements.length) {
        const shown = a.disagreements.slice(0, listed);
        const evidence = evidenceAs === "column" && shown.some((d) => d.evidence?.length);
        const notes = evidenceAs === "note" ? shown.filter((d) => d.evidence?.length).map((d) => `${d.template} #${d.instance} round ${d.round}: ${d.explanation}. Evidence: ${d.evidence.join("; ")}.`) : [];
        out.push({
            title: `Disagreements${a.disagreements.length > listed ? ` (first ${listed} of ${a.disagreements.length}; JSON and HTML list all)` : ""}`,
            head: [TEMPLATE, "instance", "round", "eddy", who, "cause", "why", ...(evidence ? ["evidence"] : []), "where"],
            rows: shown.map((d) => [d.template, `#${d.instance} ${tuple(d.params)}`, String(d.round), d.eddy, `${d.published} (${d.publishedStage})`, label(a.source, d.cause), d.explanation, ...(evidence ? [(d.evidence ?? []).join("; ")] : []), d.location]),
            ...(notes.length ? { note: notes.join("\n") } : {})
        });
    }
    return out;
}

const table = (head: string[], rows: string[][]): SafeHtml =>
    html`<div class="scroll"><table><thead><tr>${head.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${rows.map(
        (r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`
    )}</tbody></table></div>`;

/** The agreement as one HTML section; every value escaped by `html` (details and locations come from imported files and model output). */
export function agreementHtml(a: AgreementReport): string {
    const who = a.source === "turbulence" ? "Turbulence" : a.source;
    return html`<section id="agreement"><h2>Agreement with ${who}'s published verdicts</h2>${agreementSections(a, Number.POSITIVE_INFINITY, "column").map(
        (s) => html`<h3>${s.title}</h3>${table(s.head.map((h) => (typeof h === "string" ? h : h.head)), s.rows)}${s.note ? s.note.split("\n").map((line) => html`<p class="note">${line}</p>`) : ""}`
    )}</section>`.value;
}

/** The agreement of the runs in the database at `dbPath` with their published verdicts; undefined when none has any. */
export function loadAgreement(dbPath: string, runIds: readonly string[]): AgreementReport | undefined {
    const store = openStore(dbPath, { readonly: true });
    try {
        return buildAgreement(store, runIds);
    } finally {
        store.close();
    }
}
