import type { Category } from "../judge/types.js";
import type { ConfigSummary, GroupSummary, TemplateSummary } from "../scores/aggregates.js";
import type { Comparison } from "../scores/compare.js";
import type { Discontinuity } from "../scores/discontinuities.js";
import type { NeighbourhoodScore } from "../scores/neighbourhood.js";
import type { ParamValue } from "../templates/types.js";

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
}

/** A neighbourhood's scores without its per-instance rows (what JSON/CSV/tables carry). */
export type NeighbourhoodRow = Omit<NeighbourhoodScore, "instances" | "runId">;

/** One run in the report: its metadata and, per template and configuration, the scores. */
export interface ReportRun extends ReportRunMeta {
    configs: string[];
    /** One row per template × configuration of this run: AS, CPS, CCS, category and the rest. */
    templates: NeighbourhoodRow[];
}

/** A failing response offered in the HTML drill-down. */
export interface DrilldownRow {
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
    configs: ConfigSummary[];
    groups: GroupSummary[];
    templates: TemplateSummary[];
    discontinuities: Discontinuity[];
    comparison: Comparison;
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
}
