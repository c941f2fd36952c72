import type { AnswerCounts, Category, Outcome, ParamValue } from "../vocabulary.js";
import type { ConfigSummary, GroupSummary, TemplateSummary } from "../scores/aggregates.js";
import type { Comparison } from "../scores/compare.js";
import type { Discontinuity } from "../scores/discontinuities.js";
import type { NeighbourhoodScore, PlannedNeighbourhood } from "../scores/neighbourhood.js";
import type { TamperingSummary } from "./tampering.js";
import type { AgreementReport } from "./agreement.js";
import type { JudgeEnvironment } from "../judge/types.js";

/** Output formats of `eddy report`. */
export const REPORT_FORMATS = ["text", "html", "json", "csv", "md"] as const;
/** One of {@link REPORT_FORMATS}. */
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** What a report shows about a run; the store's RunInfo fits it. */
export interface ReportRunMeta {
    id: string;
    created?: string;
    status?: string;
    backend?: string;
    seed?: number;
    eddyVersion?: string;
    isolationLevel?: string | null;
    /** The judge's isolation as the run recorded it (runs.isolation_json; read for the judge's Python environment). */
    isolation?: unknown;
    /** The study configuration as stored (read for the decoding mode of old runs). */
    config?: Record<string, unknown>;
    /** Configurations with their backend metadata (read for the decoding mode). */
    configurations?: readonly { label: string; metadata: Record<string, unknown> | null; modelSha256?: string | null }[];
    /** Its answers as the store counts them (src/store/outcomes.ts runAnswers); absent: counted from the scores. */
    answers?: AnswerCounts;
}

/** The latest `eddy audit determinism` of a model file in one mode. */
export interface DeterminismSummary {
    identical: boolean;
    /** Largest share of responses that differed from the first session (0 when identical). */
    differingShare: number;
    created: string;
}

/**
 * Key of the determinism lookup: model file sha256, decoding mode and lockstep group size. A lockstep
 * run (G > 1) and a run with one context per query (G = 1, and every reproducible run from before
 * lockstep groups) are both "reproducible" but batch differently, so neither's audit speaks for the other.
 */
export function determinismKey(sha256: string, mode: string, groupSize?: number): string {
    const g = mode === "reproducible" && (groupSize ?? 1) > 1 ? `\u0000G=${groupSize}` : "";
    return `${sha256}\u0000${mode}${g}`;
}

/** How a configuration's responses were decoded: `reproducible` (the default) or `fast` (opt-in). */
export type DecodingMode = "reproducible" | "fast";

/** A configuration's summary with the decoding mode its scores come from. */
export type ReportConfig = ConfigSummary & {
    mode: DecodingMode;
    /** The model's latest determinism audit in this mode, in words ("identical", "differs in 12.5% of responses", "not audited"). */
    determinism: string;
    /** Answers the judge suspects of tampering with its harness (verdict detail `tampering: …`); count 0 when none. */
    tampering: TamperingSummary;
    /** Set when a queued configuration's answers came from nodes whose result-changing settings differ (llama.cpp build, GPU…), in words. */
    nodes: string | null;
};

/** A neighbourhood's scores without its per-instance rows (what JSON/CSV/tables carry). */
export type NeighbourhoodRow = Omit<NeighbourhoodScore, "instances" | "runId"> & { mode: DecodingMode };

/** One run in the report: its metadata and, per template and configuration, the scores. */
export interface ReportRun extends Omit<ReportRunMeta, "config" | "configurations" | "isolation"> {
    /** The judge's Python and the third-party packages it offered answers, as the run recorded them (null: not recorded, a run before eddy recorded it). */
    judgePython: JudgeEnvironment | null;
    /** The language its questions were asked and answers judged in ("python" for runs before languages). */
    language: string;
    configs: string[];
    /** Its answers: planned, judged, passed, harness outcomes, missing (src/vocabulary.ts). */
    answers: AnswerCounts;
    /** Planned answers of this run with no outcome, over its configurations and templates (= answers.missing). */
    missing: number;
    /** One row per template × configuration of this run: AS, CPS, CCS, category and the rest. */
    templates: NeighbourhoodRow[];
}

/** A failing response offered in the HTML drill-down. */
export interface DrilldownRow {
    runId: string;
    config: string;
    instance: number;
    params: ParamValue[];
    round: number;
    category: Category;
    detail: string;
    code: string | null;
    response: string;
}

/** Everything a report renders, computed once from outcomes. */
export interface ReportData {
    title: string;
    generated: string;
    eddyVersion: string;
    runs: ReportRun[];
    configs: ReportConfig[];
    groups: GroupSummary[];
    templates: TemplateSummary[];
    discontinuities: Discontinuity[];
    comparison: Comparison;
    /** eddy's verdicts beside a peer's published ones (Turbulence, EvalPlus), when the runs have them. */
    agreement?: AgreementReport;
}

/** Options for {@link renderReport}. */
export interface ReportOptions {
    /** Report title. */
    title?: string;
    /** Failing responses kept per template in the HTML drill-down (default 12). */
    drilldownPerTemplate?: number;
    /** Seed for bootstrap intervals (default 1). */
    seed?: number;
    /** Fixed generation time (ISO), for reproducible output. */
    generated?: string;
    /** Instances each run planned per template (see ScoreOptions.planned): the coverage denominator. */
    planned?: ReadonlyMap<string, PlannedNeighbourhood>;
    /** Latest determinism audits (see loadStudy): shown beside the mode. */
    determinism?: ReadonlyMap<string, DeterminismSummary>;
    /**
     * The neighbourhoods' scores, already computed from these outcomes with these options (the viewer
     * keeps those of unchanged neighbourhoods): used as they are instead of scoring again.
     */
    scores?: readonly NeighbourhoodScore[];
    /**
     * The same outcomes grouped per neighbourhood, each group the same array while it is unchanged (the viewer's:
     * what is derived from one, its discontinuity and its paired counts, is then not derived again); key: configuration
     * label and template (scores/neighbourhood.ts groupByNeighbourhood).
     */
    parts?: ReadonlyMap<string, readonly Outcome[]>;
    /** The agreement with a peer's published verdicts (see agreementRender.loadAgreement): a section of the report. */
    agreement?: AgreementReport;
    /** The HTML report links each answer it shows to `eddy view` at this address (see {@link ViewerLinks}). */
    viewer?: ViewerLinks;
    /** Text tables: width to fit (default: the terminal's, else 100). */
    width?: number;
    /** Text tables: every value in full, no fitting. */
    wide?: boolean;
}

/**
 * Where a running `eddy view` serves the store a report was made from: its address (`http://127.0.0.1:7733`,
 * or "" for links within the viewer itself) and each configuration's id there, by run and label
 * ({@link viewerConfigKey}); an answer whose configuration is not named is not linked.
 */
export interface ViewerLinks {
    url: string;
    configIds: ReadonlyMap<string, number>;
}

/** Key of {@link ViewerLinks.configIds}. */
export function viewerConfigKey(runId: string, config: string): string {
    return `${runId}\u0000${config}`;
}
