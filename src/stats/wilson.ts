import quantile from "@stdlib/stats-base-dists-normal-quantile";

/** A two-sided confidence interval. */
export interface Interval {
    lo: number;
    hi: number;
}

/**
 * Wilson score interval for a binomial proportion (successes of n) at `level` (default 95%).
 * Three lines of closed form; no maintained JS package exposes it on its own.
 */
export function wilsonInterval(successes: number, n: number, level = 0.95): Interval {
    if (n <= 0) return { lo: 0, hi: 1 };
    const z = quantile(1 - (1 - level) / 2, 0, 1);
    const p = successes / n;
    const z2 = z * z;
    const denom = 1 + z2 / n;
    const centre = (p + z2 / (2 * n)) / denom;
    const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
    // The bounds are exactly 0 and 1 at the extremes; floating point would leave ±1e-17.
    return { lo: successes <= 0 ? 0 : Math.max(0, centre - half), hi: successes >= n ? 1 : Math.min(1, centre + half) };
}

/**
 * A 95% interval for a mean of per-instance rates p_i = c_i/n_i when the n_i differ (RLPR with
 * excluded rounds): Wilson's interval at an effective sample size (Korn & Graubard 1998; the
 * variant Dean & Pagano 2015 found best for clustered binary data). The instances are the units:
 * Var(mean) is estimated from the spread of the p_i, n_eff = p̂(1 − p̂)/Var(mean), capped at the
 * number of responses (no design gives more information than its observations), and the interval
 * is Wilson(p̂·n_eff, n_eff). Wilson(RLPR·N, N) would treat N unequally weighted responses as
 * independent draws of one proportion, which they are not.
 */
export function instanceRateInterval(instances: readonly { c: number; n: number }[], level = 0.95): Interval {
    const judged = instances.filter((i) => i.n > 0);
    const M = judged.length;
    if (M === 0) return { lo: NaN, hi: NaN };
    const N = judged.reduce((s, i) => s + i.n, 0);
    // One instance: its rate is a plain binomial proportion of its n rounds.
    if (M === 1) return wilsonInterval(judged[0]!.c, judged[0]!.n, level);
    const rates = judged.map((i) => i.c / i.n);
    const mean = rates.reduce((s, p) => s + p, 0) / M;
    const s2 = rates.reduce((s, p) => s + (p - mean) ** 2, 0) / (M - 1);
    const varianceOfMean = s2 / M;
    // Every instance at the same rate (or p̂ at 0 or 1): no spread to estimate from; fall back to N.
    const nEff = varianceOfMean > 0 && mean > 0 && mean < 1 ? Math.min(N, (mean * (1 - mean)) / varianceOfMean) : N;
    return wilsonInterval(mean * nEff, nEff, level);
}
