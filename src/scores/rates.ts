import { SCORES } from "./table.js";

/**
 * The one definition of the per-instance scores (SPEC §3–§4, README "The method in brief"), used by
 * the report (scores/neighbourhood.ts) and the quantisation comparison (quant/compare/scoreDeltas.ts).
 *
 * Each judged instance i (n_i ≥ 1 judged rounds, c_i of them correct) contributes p_i = c_i / n_i to
 * AS and RLPR, [c_i ≥ 1] to CPS and [c_i = n_i] to CCS and PSR; a score is the mean of its
 * contributions over the judged instances. With no harness outcome (n_i = R for every i) this is
 * exactly SPEC's Σ o / (M·R); with some, every judged instance still weighs the same, so AS = RLPR
 * and CCS = PSR hold on any data.
 */

/** One of {@link RATE_SCORES}. */
export type RateScore = "AS" | "CPS" | "CCS" | "RLPR" | "PSR";
/** The scores built from per-instance contributions: those the score table marks `rate`. */
export const RATE_SCORES: readonly RateScore[] = SCORES.filter((c) => c.rate).map((c) => c.name as RateScore);

/** What one instance contributes to each score, from c correct of n ≥ 1 judged rounds. */
export function instanceContribution(n: number, c: number): Record<RateScore, number> {
    if (!(n >= 1) || c < 0 || c > n) throw new RangeError(`an instance needs 0 ≤ c ≤ n and n ≥ 1, got c=${c}, n=${n}`);
    const p = c / n;
    const all = c === n ? 1 : 0;
    return { AS: p, RLPR: p, CPS: c > 0 ? 1 : 0, CCS: all, PSR: all };
}

/** Each score as the mean of the contributions of the instances with n ≥ 1 (NaN when there is none). */
export function scoresOverInstances(instances: readonly { n: number; c: number }[]): Record<RateScore, number> {
    const sum: Record<RateScore, number> = { AS: 0, CPS: 0, CCS: 0, RLPR: 0, PSR: 0 };
    let m = 0;
    for (const i of instances) {
        if (i.n < 1) continue;
        const v = instanceContribution(i.n, i.c);
        for (const k of RATE_SCORES) sum[k] += v[k];
        m++;
    }
    for (const k of RATE_SCORES) sum[k] = m ? sum[k] / m : NaN;
    return sum;
}
