import type { Category } from "../judge/types.js";
import type { ParamValue } from "../templates/types.js";
import { isHarness, type NeighbourhoodScore } from "./neighbourhood.js";
import { findPatterns, type PatternFinding } from "./patterns.js";
import type { Outcome } from "./types.js";

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
 * code and the tuple patterns that set them apart.
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
        const rates = counted.map((i) => i.c / i.n).sort((a, b) => a - b);
        const median = medianSorted(rates);
        if (median < 0.5) continue;
        const anomalies: AnomalousInstance[] = [];
        const normal: ParamValue[][] = [];
        for (const i of counted) {
            const rate = i.c / i.n;
            const kind = i.c === 0 ? "never_solved" : rate <= median - 0.5 ? "fewer_rounds" : null;
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
            medianPassRate: median,
            instances: anomalies,
            patterns: findPatterns(
                anomalies.map((a) => a.params),
                normal
            )
        });
    }
    return out;
}

function medianSorted(v: readonly number[]): number {
    const m = v.length >> 1;
    return v.length % 2 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
}
