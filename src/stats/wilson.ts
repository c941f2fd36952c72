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
