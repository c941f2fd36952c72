import { judgedOf, MODEL_CATEGORIES } from "../vocabulary.js";
import { CATEGORY_LABELS, NEIGHBOURHOOD_CATEGORIES, type NeighbourhoodCategory } from "../scores/neighbourhood.js";
import type { Comparison } from "../scores/compare.js";
import { safeTerminalText } from "../util/safeText.js";
import { fix, interval, pct, pval, runStatus, tuple } from "./format.js";
import { tamperingLine, tamperingMore } from "./tampering.js";
import { renderTable, shorten, terminalWidth, wrap, type ColumnSpec } from "./terminalTable.js";
import { agreementSections } from "./agreementRender.js";
import { formatScore, scoreLegend, scoresIn } from "./scoreTable.js";
import type { ReportData, ReportRun } from "./types.js";
import { environmentShort } from "../judge/environment.js";
import { DEFAULT_LANGUAGE } from "../languages/languages.js";

/** A titled table: header row plus body rows of cells. */
export interface Section {
    title: string;
    head: (string | ColumnSpec)[];
    rows: string[][];
    note?: string;
}

/** Short category names for table headers; the note under the table spells them out. */
const SHORT: Record<NeighbourhoodCategory, string> = {
    perfect_success: "success",
    stochastic_failure: "stochastic",
    inconsistent_generalisation: "inconsistent",
    perfect_failure: "failure",
    incomplete: "under 90%",
    no_data: "no data"
};

/** The judge records a level starting NO-SANDBOX when answers ran without namespaces (issue #9: say so plainly). */
/** A run asked in another language than the default: the report then shows each run's. */
export const notDefaultLanguage = (r: { language: string }): boolean => r.language !== DEFAULT_LANGUAGE;
export const unsandboxed = (r: { isolationLevel?: string | null }): boolean => (r.isolationLevel ?? "").startsWith("NO-SANDBOX");
export const UNSANDBOXED_NOTE = "WARNING: answers of a run marked NO-SANDBOX ran WITHOUT a sandbox (no namespaces on that machine): they could read files, oracles included.";

/** What a report says above the list of answers suspected of tampering with the judge's harness. */
export const TAMPERING_NOTE =
    "The judge caught these answers tampering with its harness (verdict detail 'tampering: …'); they count as runtime_error. " +
    "A configuration with any is a finding in itself: read those answers before trusting its scores.";

/** The judge's Python in a runs table: "CPython 3.11.2, numpy 1.24.2", or "not recorded" (a run before eddy recorded it). */
export const judgePythonCell = (r: Pick<ReportRun, "judgePython">): string => (r.judgePython ? environmentShort(r.judgePython) : "not recorded");

/** "Judge Python: CPython 3.11.2, numpy 1.24.2." for the runs (one line when all are alike; else each run's). */
export function judgePythonNote(d: Pick<ReportData, "runs">): string {
    const cells = d.runs.map((r) => judgePythonCell(r));
    if (!cells.length) return "";
    if (new Set(cells).size === 1) return `Judge Python: ${cells[0]}.`;
    return `Judge Python: ${d.runs.map((r, i) => `${r.id}: ${cells[i]}`).join("; ")}.`;
}

/** What "judged" counts, said once under every table that shows it (src/vocabulary.ts). */
export const JUDGED_NOTE = "judged: answers with a model verdict (not truncated, judge_error or missing), of the answers planned.";

/** "M of M_total" instances with a judged answer (a neighbourhood's coverage, shown as "instances"; judged answers are {@link judgedOf}'s). */
export function judged(M: number, total: number): string {
    return `${M} of ${total}`;
}

/** The sections shared by the text and Markdown reports; `full` for long labels (Markdown, --wide). */
function sections(d: ReportData, full: boolean): Section[] {
    const out: Section[] = [];
    // The language column appears once a run is not in Python: comparing languages needs it, Python-only reports stay as they were.
    const lang = d.runs.some(notDefaultLanguage);
    out.push({
        title: "Runs",
        head: [{ head: "run", ellipsis: "middle" }, "created", { head: "status", fixed: true }, { head: "judged", fixed: true }, "backend", ...(lang ? ["language"] : []), "isolation", "configurations"],
        rows: d.runs.map((r) => [r.id, (r.created ?? "").replace("T", " ").slice(0, 16), runStatus(r), judgedOf(r.answers), r.backend ?? "", ...(lang ? [r.language] : []), r.isolationLevel ?? "", r.configs.join("; ")]),
        // The judge's Python under the table (a column would be cut short): once when every run had the same.
        note: [d.runs.some(unsandboxed) ? UNSANDBOXED_NOTE : "", judgePythonNote(d)].filter(Boolean).join(" ")
    });
    out.push({
        title: "Configurations (means over templates)",
        // Instances with a judged answer are in each configuration's table of neighbourhoods (where the 90% rule applies).
        head: [CONFIG, { head: "mode", fixed: true }, "judged", ...scoresIn("scores").map((k) => k.label), "trunc", "j_err", "miss"],
        rows: d.configs.map((c) => [c.config, c.mode, judgedOf(c.answers), ...scoresIn("scores").map((k) => formatScore(k, c)), String(c.harness.truncated), String(c.harness.judge_error), String(c.harness.missing)]),
        note:
            "mode: how responses were decoded (reproducible, the default, or the opt-in fast mode, whose responses may differ between runs). " +
            `${JUDGED_NOTE} trunc / j_err: truncated and judge_error answers, harness outcomes counted apart and excluded from every score. ` +
            "miss: planned answers (instances × R) with no outcome: absent from a replay file, or not generated or judged yet."
    });
    const tampered = d.configs.filter((c) => c.tampering.count > 0);
    if (tampered.length)
        out.push({
            title: "Suspected tampering with the judge (per configuration)",
            head: [CONFIG, "suspected", { head: "answers (template #instance round r: detail)", align: "left" }],
            rows: tampered.map((c) => [c.config, String(c.tampering.count), [...c.tampering.listed.map(tamperingLine), tamperingMore(c.tampering)].filter(Boolean).join("\n")]),
            note: TAMPERING_NOTE
        });
    out.push({
        title: "Decoding (mode, and the latest `eddy audit determinism` of the model file in that mode)",
        head: [CONFIG, { head: "mode", fixed: true }, { head: "determinism audit", align: "left" }],
        rows: d.configs.map((c) => [c.config, c.mode, c.determinism]),
        note: nodesNotes(d)
    });
    out.push({
        title: "Stability (SPEC §4, means over templates)",
        head: [CONFIG, { head: "mode", fixed: true }, ...scoresIn("stability").map((k) => k.label)],
        rows: d.configs.map((c) => [c.config, c.mode, ...scoresIn("stability").map((k) => formatScore(k, c))]),
        note: scoreLegend(scoresIn("stability")).join(" ")
    });
    const ks = shownK(d);
    if (ks.length)
        out.push({
            title: "pass@k (unbiased, means over templates)",
            head: [CONFIG, ...ks.map((k) => `pass@${k}`)],
            rows: d.configs.map((c) => [c.config, ...ks.map((k) => fix(c.passAtK[String(k)]))]),
            note: "pass@1 = AS." + passAtKNotes(d)
        });
    const cats = usedCategories(d);
    out.push({
        title: "Categories (share of templates)",
        head: [CONFIG, "templates", ...cats.map((k) => ({ head: SHORT[k], fixed: true }))],
        rows: d.configs.map((c) => [c.config, String(c.templates), ...cats.map((k) => pct(c.categories.shares[k]))]),
        note: categoryLegend(cats)
    });
    const verdicts = MODEL_CATEGORIES.filter((k) => d.configs.some((c) => (c.verdictShares[k] ?? 0) > 0));
    out.push({
        title: "Verdicts (share of judged responses; harness outcomes counted apart)",
        head: ["verdict", ...d.configs.map((c) => ({ head: c.config, fixed: false, min: 7 }))],
        rows: [
            ...verdicts.map((k) => [k, ...d.configs.map((c) => pct(c.verdictShares[k] ?? 0))]),
            ["truncated", ...d.configs.map((c) => String(c.harness.truncated))],
            ["judge_error", ...d.configs.map((c) => String(c.harness.judge_error))],
            ["missing", ...d.configs.map((c) => String(c.harness.missing))]
        ]
    });
    // One pair of tables per configuration: its label and mode in the title, so rows need neither.
    const rows = d.runs.flatMap((r) => r.templates);
    for (const c of d.configs) {
        const mine = rows.filter((t) => t.config === c.config);
        out.push({
            title: `Neighbourhoods: ${c.config} (${c.mode})`,
            head: ["template", "instances", "R", ...scoresIn("scores").map((k) => k.label), { head: "category", fixed: true }],
            rows: mine.map((t) => [t.template, judged(t.M, t.Mtotal), String(t.R), ...scoresIn("scores").map((k) => formatScore(k, t)), CATEGORY_LABELS[t.category]]),
            note: mine.some((t) => t.M < t.Mtotal) ? "instances: instances with a judged answer, of the neighbourhood's instances; under 90% of them judged, a neighbourhood gets no category." : undefined
        });
        out.push({
            title: `Stability: ${c.config} (95%: RLPR Wilson at effective n, PSR Wilson, AV bootstrap)`,
            head: ["template", "RLPR [95% CI]", "PSR [95% CI]", "AV [95% CI]", "pass@k"],
            rows: mine.map((t) => [t.template, `${fix(t.RLPR)} ${interval(t.RLPR_CI, 2)}`, `${fix(t.PSR)} ${interval(t.PSR_CI, 2)}`, `${fix(t.AV, 3)} ${interval(t.AV_CI, 3)}`, `k ≤ ${Object.keys(t.passAtK).length}`]),
            note: mine.some((t) => t.passAtKNote) ? "pass@k: the k up to which it is computable (every judged instance needs at least k judged rounds)." : undefined
        });
    }
    out.push({
        title: "Problem groups (share of configurations × templates)",
        head: ["group", "AS", ...cats.map((k) => ({ head: SHORT[k], fixed: true }))],
        rows: d.groups
            .filter((g) => g.config === "all")
            .map((g) => [`${g.kind === "subgroup" ? "  ↳ " : ""}${g.name}`, fix(g.AS), ...cats.map((k) => pct(g.categories.shares[k]))])
    });
    if (d.discontinuities.length)
        out.push({
            title: "Discontinuities (instances failing inside mostly solved neighbourhoods)",
            head: ["template", "config", "instances (tuple: passed/rounds)", "patterns"],
            rows: d.discontinuities.map((x) => [
                x.template,
                x.config,
                x.instances
                    .slice(0, 8)
                    .map((i) => `${tuple(i.params)}: ${i.passed}/${i.rounds}`)
                    .join("\n") + (x.instances.length > 8 ? `\n… ${x.instances.length - 8} more` : ""),
                x.patterns.map((p) => `${full ? p.label : p.id} ${p.failing[0]}/${p.failing[1]} vs ${p.others[0]}/${p.others[1]}`).join("\n") || "–"
            ]),
            note: full
                ? undefined
                : "patterns (failing tuples with it vs other tuples with it): eq equal bounds, adj bounds one apart, incl inclusive/exclusive boundary (0 ≤ second − first ≤ 1), zero/neg/one a value 0, < 0, 1, empty/len1 an empty or one-element value."
        });
    out.push(...comparisonSections(d.comparison, { full }));
    if (d.agreement) out.push(...agreementSections(d.agreement));
    return out;
}

/** Categories shown: the four always, "under 90%" and "no data" only when they occur. */
function usedCategories(d: ReportData): NeighbourhoodCategory[] {
    return NEIGHBOURHOOD_CATEGORIES.filter((k) => (k !== "no_data" && k !== "incomplete") || d.configs.some((c) => c.categories.shares[k] > 0));
}

function categoryLegend(cats: readonly NeighbourhoodCategory[]): string {
    return cats.map((k) => `${SHORT[k]} = ${CATEGORY_LABELS[k]}`).join(", ") + ".";
}

/** The config column: labels are what a reader looks up, so they give way last and not below 16 characters. */
const CONFIG: ColumnSpec = { head: "config", min: 16 };

/** The k shown for pass@k: 1, 2, 3, 5, 10, 20, 50, 100 and the largest computable, up to what any configuration has. */
function shownK(d: ReportData): number[] {
    const most = Math.max(0, ...d.configs.map((c) => Object.keys(c.passAtK).length));
    return [...new Set([1, 2, 3, 5, 10, 20, 50, 100, most])].filter((k) => k >= 1 && k <= most).sort((a, b) => a - b);
}

function passAtKNotes(d: ReportData): string {
    const notes = d.configs.filter((c) => c.passAtKNote).map((c) => `${c.config}: ${c.passAtKNote}`);
    return notes.length ? ` ${notes.join("; ")}.` : "";
}

/** Queued configurations whose nodes' result-changing settings differ (their audits hold per node). */
function nodesNotes(d: ReportData): string | undefined {
    const notes = d.configs.filter((c) => c.nodes).map((c) => `${c.config}: ${c.nodes}.`);
    return notes.length ? notes.join(" ") : undefined;
}

/** Tables of a comparison: normality, pairwise tests, temperature effects, McNemar. */
export function comparisonSections(c: Comparison, opts: { full?: boolean } = {}): Section[] {
    const out: Section[] = [];
    if (c.configs.length < 2) return out;
    out.push({
        title: "Normality (Shapiro–Wilk over templates)",
        head: ["score", "config", "n", "W", "p"],
        rows: c.normality.map((r) => [r.score, r.config, String(r.n), undefinedWhy(fix(r.w), r.why), undefinedWhy(pval(r.p), r.why)])
    });
    out.push({
        title: `Pairwise: Mann–Whitney U (two-sided) and Cliff's δ (δ > 0: A higher; * p < ${c.alpha})`,
        head: ["score", "A", "B", "U", "p", "δ", "magnitude"],
        rows: c.pairwise.map((r) => [r.score, r.a, r.b, undefinedWhy(fix(r.u, 1), r.why), undefinedWhy(pval(r.p), r.why) + (r.significant ? " *" : ""), undefinedWhy(fix(r.delta), r.why), undefinedWhy(magnitude(r), r.why)])
    });
    if (c.temperature.length)
        out.push({
            title: "Temperature effect (t = 0 against the other temperature; δ > 0: t = 0 higher)",
            head: ["model", "other t", "score", "significant?", "p", "δ", "magnitude"],
            rows: c.temperature.map((r) => [r.model + (r.quantization ? ` ${r.quantization}` : ""), String(r.temperature), r.score, undefinedWhy(Number.isNaN(r.p) ? "–" : r.significant ? "yes" : "no", r.why), undefinedWhy(pval(r.p), r.why), undefinedWhy(fix(r.delta), r.why), undefinedWhy(magnitude(r), r.why)])
        });
    if (c.paired.length)
        out.push({
            title: "Paired (exact McNemar on shared instances; A→B lost / gained; all R: instances passed in every round, resp.: responses)",
            head: [{ head: "A", min: 16 }, { head: "B", min: 16 }, "instances", "all R: lost/gained, p", "resp.: lost/gained, p", ...(opts.full ? ["lost in B (first)", "gained in B (first)"] : [])],
            rows: c.paired.map((p) => [
                p.a,
                p.b,
                String(p.instances),
                `${p.allPassed.b}/${p.allPassed.c}, p=${pval(p.allPassed.p)}`,
                `${p.perResponse.b}/${p.perResponse.c}, p=${pval(p.perResponse.p)}`,
                ...(opts.full
                    ? [
                          p.lostInB.slice(0, 4).map((i) => `${i.template}#${i.instance} ${tuple(i.params)}`).join("\n") || "–",
                          p.gainedInB.slice(0, 4).map((i) => `${i.template}#${i.instance} ${tuple(i.params)}`).join("\n") || "–"
                      ]
                    : [])
            ]),
            note: opts.full ? undefined : "The instances that flip are listed with --wide, in --json and in the HTML report."
        });
    return out;
}

/** A statistic's cell: a "–" says why the statistic is undefined. */
export function undefinedWhy(cell: string, why: string | undefined): string {
    return cell === "–" && why ? `– (${why})` : cell;
}

/** Magnitude label, "–" when δ is undefined (a configuration without scored templates). */
export function magnitude(r: { delta: number; magnitude: string }): string {
    return Number.isNaN(r.delta) ? "–" : r.magnitude;
}

/** Options of the terminal renderers. */
export interface TextOptions {
    /** Width to fit (default: the terminal's, else 100). */
    width?: number;
    /** Every value in full, no fitting. */
    wide?: boolean;
}

/** Compact terminal tables fitted to the width (no colours, so they paste cleanly). */
export function renderSectionsText(title: string, list: Section[], opts: TextOptions = {}): string {
    const width = opts.width ?? terminalWidth();
    const fit = (s: string) => (opts.wide ? safeTerminalText(s) : wrap(s, width));
    const head = opts.wide ? safeTerminalText(title) : shorten(safeTerminalText(title), width);
    const parts = [head, "=".repeat(Math.min(width, [...head].length)), ""];
    for (const s of list) {
        parts.push(fit(s.title), renderTable(s.head, s.rows, { width, ...(opts.wide ? { wide: true } : {}) }));
        if (s.note) parts.push(fit(s.note));
        parts.push("");
    }
    return parts.join("\n");
}

/** Markdown tables. */
export function renderSectionsMarkdown(title: string, list: Section[]): string {
    // Control characters escaped; pipes, line breaks and HTML-significant characters made inert (Markdown renders inline HTML).
    const cell = (s: string) =>
        safeTerminalText(s)
            .replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c]!)
            .replace(/\|/g, "\\|")
            .replace(/\n/g, "<br>");
    const heads = headTexts(list);
    const parts = [`# ${cell(title)}`, ""];
    for (const s of list) {
        const head = heads.get(s)!;
        parts.push(`## ${cell(s.title)}`, "", `| ${head.map(cell).join(" | ")} |`, `|${head.map(() => " --- ").join("|")}|`);
        for (const r of s.rows) parts.push(`| ${r.map(cell).join(" | ")} |`);
        if (s.note) parts.push("", `_${cell(s.note)}_`);
        parts.push("");
    }
    return parts.join("\n");
}

/** Header texts of each section's columns. */
function headTexts(list: readonly Section[]): Map<Section, string[]> {
    return new Map(list.map((s) => [s, s.head.map((h) => (typeof h === "string" ? h : h.head))]));
}

/** The report as terminal tables. */
export function renderText(d: ReportData, opts: TextOptions = {}): string {
    return renderSectionsText(d.title, sections(d, opts.wide === true), opts);
}

/** The report as Markdown. */
export function renderMarkdown(d: ReportData): string {
    return renderSectionsMarkdown(d.title, sections(d, true));
}
