import type { Interval } from "../stats/wilson.js";
import type { NeighbourhoodScore } from "./neighbourhood.js";

/**
 * The one table of scores (SPEC §3–§4) that every renderer iterates: text, Markdown, CSV, HTML and
 * `eddy view` list their score columns from here, so a score is added, renamed or explained once.
 * Both a neighbourhood's row and a configuration's summary (means over templates) carry these fields.
 */

/** What a score is read from: a neighbourhood row or a configuration summary. */
export type Scored = Pick<NeighbourhoodScore, "AS" | "CPS" | "CCS" | "RLPR" | "PSR" | "gap" | "AV" | "passAtK"> &
    // A configuration's summary has no intervals of its own: they are a neighbourhood's.
    Partial<Pick<NeighbourhoodScore, "RLPR_CI" | "PSR_CI" | "AV_CI">>;

/** One score: its name (CSV header, JSON field), label, what it measures, how to read it, and its format. */
export interface ScoreColumn {
    name: string;
    label: string;
    description: string;
    /** How to read it: which way is better, what it equals. */
    read: string;
    /** Decimals shown. */
    digits: number;
    /**
     * Where it is shown: `scores` (AS, CPS, CCS: the neighbourhood's category follows them in tables
     * and CSV), `stability` (SPEC §4), `passAtK` (its own table in the text report).
     */
    section: "scores" | "stability" | "passAtK";
    get: (s: Scored) => number;
    /** The 95% interval, for neighbourhood rows that carry one. */
    interval?: (s: Scored) => Interval | undefined;
    /** How a configuration's value is made from its neighbourhoods' (reports and exports say so). */
    aggregate: string;
    /** Compared across configurations as a distribution over neighbourhoods (Mann–Whitney U, Cliff's δ, the charts, agreement). */
    compared: boolean;
    /** Reported as an evaluation result of its own in interchange formats (Every Eval Ever). */
    exported: boolean;
    /** A mean of per-instance contributions (a rate over instances): paired deltas and instance intervals apply. */
    rate: boolean;
}

export const SCORES: readonly ScoreColumn[] = [
    {
        name: "AS",
        label: "AS",
        description: "Accuracy Score: mean over judged instances of the share of rounds passed",
        read: "0–1, higher is better; = RLPR = pass@1",
        digits: 3,
        section: "scores",
        get: (s) => s.AS,
        aggregate: "mean over templates",
        compared: true,
        exported: true,
        rate: true
    },
    {
        name: "CPS",
        label: "CPS",
        description: "Correctness-Potential Score: share of judged instances solved at least once",
        read: "0–1, higher is better; ≥ CCS",
        digits: 3,
        section: "scores",
        get: (s) => s.CPS,
        aggregate: "mean over templates",
        compared: true,
        exported: true,
        rate: true
    },
    {
        name: "CCS",
        label: "CCS",
        description: "Consistent-Correctness Score: share of judged instances solved in every round",
        read: "0–1, higher is better; = PSR",
        digits: 3,
        section: "scores",
        get: (s) => s.CCS,
        aggregate: "mean over templates",
        compared: true,
        exported: true,
        rate: true
    },
    {
        name: "RLPR",
        label: "RLPR",
        description: "Run-level pass rate: mean per-instance pass rate (Wilson 95% at the effective n)",
        read: "0–1, higher is better; = AS",
        digits: 3,
        section: "stability",
        get: (s) => s.RLPR,
        interval: (s) => s.RLPR_CI,
        aggregate: "mean over templates",
        compared: false,
        exported: true,
        rate: true
    },
    {
        name: "PSR",
        label: "PSR",
        description: "Perfect stability rate: share of instances passed in every round (Wilson 95%)",
        read: "0–1, higher is better; = CCS",
        digits: 3,
        section: "stability",
        get: (s) => s.PSR,
        interval: (s) => s.PSR_CI,
        aggregate: "mean over templates",
        compared: false,
        exported: false,
        rate: true
    },
    {
        name: "gap",
        label: "gap",
        description: "RLPR − PSR: how much of the pass rate is not stable",
        read: "0 when every solved instance is solved in every round",
        digits: 3,
        section: "stability",
        get: (s) => s.gap,
        aggregate: "mean over templates",
        compared: false,
        exported: false,
        rate: false
    },
    {
        name: "AV",
        label: "AV",
        description: "Average variance: mean of p(1 − p) over instances (bootstrap 95%)",
        read: "0–0.25, lower is steadier",
        digits: 4,
        section: "stability",
        get: (s) => s.AV,
        interval: (s) => s.AV_CI,
        aggregate: "mean over templates",
        compared: false,
        exported: false,
        rate: false
    },
    {
        name: "pass@1",
        label: "pass@1",
        description: "Unbiased pass@1, mean over judged instances",
        read: "0–1, higher is better; = AS",
        digits: 3,
        section: "passAtK",
        get: (s) => s.passAtK["1"] ?? NaN,
        aggregate: "mean over templates",
        compared: false,
        exported: false,
        rate: false
    }
];

/** A score column by name. */
export function score(name: string): ScoreColumn {
    const c = SCORES.find((x) => x.name === name);
    if (!c) throw new Error(`no score '${name}'`);
    return c;
}

/** The scores of one section, in table order. */
export function scoresIn(section: ScoreColumn["section"]): ScoreColumn[] {
    return SCORES.filter((c) => c.section === section);
}

/** A score compared across configurations (its name). */
export type ComparedScore = "AS" | "CPS" | "CCS";
/** The scores compared across configurations, in table order: those the table marks `compared`. */
export const COMPARED_SCORES: readonly ComparedScore[] = SCORES.filter((c) => c.compared).map((c) => c.name as ComparedScore);

/** The scores interchange formats report as results of their own, in table order. */
export const EXPORTED_SCORES: readonly ScoreColumn[] = SCORES.filter((c) => c.exported);
