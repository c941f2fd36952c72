import type { Category, Outcome, ParamValue } from "../vocabulary.js";
import { groupByNeighbourhood, isHarness, type NeighbourhoodScore } from "./neighbourhood.js";
import { findPatterns, type PatternFinding } from "./patterns.js";

/** A failing response shown beside an anomalous instance. */
export interface FailingResponse {
    round: number;
    category: Category;
    detail: string;
    code: string | null;
}

/** An instance that breaks an otherwise solved neighbourhood. */
export interface AnomalousInstance {
    instance: number;
    params: ParamValue[];
    /** "never_solved": no counted round passed; "fewer_rounds": passed in at least half the rounds fewer than the neighbourhood's median. */
    kind: "never_solved" | "fewer_rounds";
    passed: number;
    rounds: number;
    failures: FailingResponse[];
}

/** The discontinuities of one neighbourhood under one configuration. */
export interface Discontinuity {
    config: string;
    template: string;
    /** Median per-instance pass rate of the neighbourhood. */
    medianPassRate: number;
    /** The same median as an exact fraction [numerator, denominator]. */
    median: [number, number];
    instances: AnomalousInstance[];
    patterns: PatternFinding[];
}

/** Options for {@link findDiscontinuities}. */
export interface DiscontinuityOptions {
    /** Failing responses kept per anomalous instance (default 2). */
    failuresPerInstance?: number;
    /** The outcomes grouped per neighbourhood, each group the same array while it is unchanged (scores/neighbourhood.ts groupByNeighbourhood). */
    parts?: ReadonlyMap<string, readonly Outcome[]>;
}

/**
 * Instances never solved, or solved in at least half the rounds fewer than the median instance, inside
 * neighbourhoods that are mostly solved (median per-instance pass rate ≥ ½), with their tuples, failing
 * code and the tuple patterns that set them apart. Every comparison is exact, in integers
 * (see {@link isFewerRounds}): a boundary case such as median 5/6 with an instance at 1/3 is found.
 */
export function findDiscontinuities(scores: readonly NeighbourhoodScore[], outcomes: readonly Outcome[], opts: DiscontinuityOptions = {}): Discontinuity[] {
    const keep = opts.failuresPerInstance ?? 2;
    const partOf = opts.parts ?? groupByNeighbourhood(outcomes);
    const out: Discontinuity[] = [];
    for (const s of scores) {
        const d = neighbourhoodDiscontinuity(s, partOf.get(`${s.config}\u0000${s.template}`) ?? [], keep);
        if (d) out.push(d);
    }
    return out;
}

/** Kept per score (a neighbourhood scored again is a new score): the viewer finds only a changed neighbourhood's again. */
const found = new WeakMap<NeighbourhoodScore, { part: readonly Outcome[]; keep: number; d: Discontinuity | undefined }>();

/** One neighbourhood's discontinuity, if it has one: `part` is its answers. */
function neighbourhoodDiscontinuity(s: NeighbourhoodScore, part: readonly Outcome[], keep: number): Discontinuity | undefined {
    const hit = found.get(s);
    if (hit && hit.part === part && hit.keep === keep) return hit.d;
    const d = discontinuityOf(s, part, keep);
    found.set(s, { part, keep, d });
    return d;
}

function discontinuityOf(s: NeighbourhoodScore, part: readonly Outcome[], keep: number): Discontinuity | undefined {
    const counted = s.instances.filter((i) => i.n > 0);
    if (counted.length === 0) return undefined;
    const median = medianRate(counted);
    if (!mostlySolved(median)) return undefined;
    const failing = new Map<number, FailingResponse[]>();
    for (const o of part) {
        if (o.category === "passed" || isHarness(o.category)) continue;
        let l = failing.get(o.instance);
        if (!l) failing.set(o.instance, (l = []));
        if (l.length < keep) l.push({ round: o.round, category: o.category, detail: o.detail, code: o.code });
    }
    const anomalies: AnomalousInstance[] = [];
    const normal: ParamValue[][] = [];
    for (const i of counted) {
        const kind = i.c === 0 ? "never_solved" : isFewerRounds(i, median) ? "fewer_rounds" : null;
        if (!kind) {
            normal.push(i.params);
            continue;
        }
        anomalies.push({ instance: i.instance, params: i.params, kind, passed: i.c, rounds: i.n, failures: failing.get(i.instance) ?? [] });
    }
    if (anomalies.length === 0) return undefined;
    return {
        config: s.config,
        template: s.template,
        medianPassRate: median[0] / median[1],
        median,
        instances: anomalies,
        patterns: findPatterns(
            anomalies.map((a) => a.params),
            normal
        )
    };
}

/** A rate as an exact fraction [numerator, denominator > 0]. */
export type Fraction = [number, number];

/** Median of the per-instance rates c_i / n_i as an exact fraction (the mean of the two middle rates when M is even). */
export function medianRate(instances: readonly { n: number; c: number }[]): Fraction {
    const rates = instances.map((i): Fraction => [i.c, i.n]).sort((a, b) => a[0] * b[1] - b[0] * a[1]);
    const m = rates.length >> 1;
    if (rates.length % 2) return rates[m]!;
    const [a, b] = rates[m - 1]!;
    const [c, d] = rates[m]!;
    return [a * d + c * b, 2 * b * d];
}

/** Median ≥ ½, exactly: 2·num ≥ den. */
export function mostlySolved(median: Fraction): boolean {
    return 2 * median[0] >= median[1];
}

/**
 * "Solved in at least half the rounds fewer than the median instance": c/n ≤ median − ½, compared
 * as 2·c·den ≤ (2·num − den)·n in integers (in floats (2/3 + 1)/2 − ½ comes out a hair below 1/3, and the boundary is missed).
 * Counts stay far below 2^53, so the products are exact.
 */
export function isFewerRounds(i: { n: number; c: number }, median: Fraction): boolean {
    return 2 * i.c * median[1] <= (2 * median[0] - median[1]) * i.n;
}
