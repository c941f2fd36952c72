import type { Category, Outcome, ParamValue } from "../vocabulary.js";
import { isHarness, type NeighbourhoodScore } from "./neighbourhood.js";
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
}

/**
 * Instances never solved, or solved in at least half the rounds fewer than the median instance, inside
 * neighbourhoods that are mostly solved (median per-instance pass rate ≥ ½), with their tuples, failing
 * code and the tuple patterns that set them apart. Every comparison is exact, in integers
 * (see {@link isFewerRounds}): a boundary case such as median 5/6 with an instance at 1/3 is found.
 */
export function findDiscontinuities(scores: readonly NeighbourhoodScore[], outcomes: readonly Outcome[], opts: DiscontinuityOptions = {}): Discontinuity[] {
    const keep = opts.failuresPerInstance ?? 2;
    const failing = new Map<string, FailingResponse[]>();
    for (const o of outcomes) {
        if (o.category === "passed" || isHarness(o.category)) continue;
        const key = `${o.config}\u0000${o.template}\u0000${o.instance}`;
        let l = failing.get(key);
        if (!l) failing.set(key, (l = []));
        if (l.length < keep) l.push({ round: o.round, category: o.category, detail: o.detail, code: o.code });
    }
    const out: Discontinuity[] = [];
    for (const s of scores) {
        const counted = s.instances.filter((i) => i.n > 0);
        if (counted.length === 0) continue;
        const median = medianRate(counted);
        if (!mostlySolved(median)) continue;
        const anomalies: AnomalousInstance[] = [];
        const normal: ParamValue[][] = [];
        for (const i of counted) {
            const kind = i.c === 0 ? "never_solved" : isFewerRounds(i, median) ? "fewer_rounds" : null;
            if (!kind) {
                normal.push(i.params);
                continue;
            }
            anomalies.push({
                instance: i.instance,
                params: i.params,
                kind,
                passed: i.c,
                rounds: i.n,
                failures: failing.get(`${s.config}\u0000${s.template}\u0000${i.instance}`) ?? []
            });
        }
        if (anomalies.length === 0) continue;
        out.push({
            config: s.config,
            template: s.template,
            medianPassRate: median[0] / median[1],
            median,
            instances: anomalies,
            patterns: findPatterns(
                anomalies.map((a) => a.params),
                normal
            )
        });
    }
    return out;
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
