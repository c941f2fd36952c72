import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import type { Interval } from "./wilson.js";

/** Options for {@link bootstrapInterval}. */
export interface BootstrapOptions {
    /** Seed of the resampling generator: same seed, same interval. */
    seed?: number;
    /** Number of resamples (default 2000). */
    resamples?: number;
    /** Confidence level (default 0.95). */
    level?: number;
}

/**
 * Seeded nonparametric percentile bootstrap interval of `statistic` over `values`.
 * Resampling is a loop over pure-rand draws; the percentile step is the textbook one
 * (type-7 quantiles of the resampled statistics).
 */
export function bootstrapInterval(values: readonly number[], statistic: (sample: readonly number[]) => number, opts: BootstrapOptions = {}): Interval {
    const n = values.length;
    const sample = new Array<number>(n);
    return percentileBootstrap(n, opts, (rng) => {
        for (let i = 0; i < n; i++) sample[i] = values[uniformInt(rng, 0, n - 1)]!;
        return statistic(sample);
    });
}

/** The resampling generator: pure-rand's xoroshiro128plus, advanced in place by `uniformInt`. */
type Rng = ReturnType<typeof xoroshiro128plus>;

/**
 * The loop both intervals share: seed the generator, compute `resample(rng)` (one resample's statistic,
 * drawing its n values from `rng`) `resamples` times, and take the percentile interval of those statistics.
 */
function percentileBootstrap(n: number, opts: BootstrapOptions, resample: (rng: Rng) => number): Interval {
    if (n === 0) return { lo: NaN, hi: NaN };
    const resamples = opts.resamples ?? 2000;
    const level = opts.level ?? 0.95;
    const rng = xoroshiro128plus(opts.seed ?? 0x5eed);
    const stats = new Float64Array(resamples);
    for (let b = 0; b < resamples; b++) stats[b] = resample(rng);
    stats.sort();
    const alpha = (1 - level) / 2;
    return { lo: quantileSorted(stats, alpha), hi: quantileSorted(stats, 1 - alpha) };
}

/** Type-7 (R default, linear interpolation) quantile of an ascending array. */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
    const n = sorted.length;
    if (n === 0) return NaN;
    const h = (n - 1) * q;
    const lo = Math.floor(h);
    const hi = Math.min(n - 1, lo + 1);
    return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/**
 * {@link bootstrapInterval} of the mean, summing draws directly instead of building each resample
 * (the same draws, so the same interval as `bootstrapInterval(values, mean, opts)`, a few times faster).
 */
export function bootstrapMeanInterval(values: readonly number[], opts: BootstrapOptions = {}): Interval {
    const n = values.length;
    return percentileBootstrap(n, opts, (rng) => {
        let sum = 0;
        for (let i = 0; i < n; i++) sum += values[uniformInt(rng, 0, n - 1)]!;
        return sum / n;
    });
}
