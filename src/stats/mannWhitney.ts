import normalCdf from "@stdlib/stats-base-dists-normal-cdf";
import { averageRanks } from "./ranks.js";

/** Result of a two-sided Mann–Whitney U test. */
export interface MannWhitneyResult {
    /** U statistic of the first sample: #{x > y} + ½ #{x = y}. */
    u: number;
    /** Two-sided p-value. */
    p: number;
    /** "exact" (permutation distribution, no ties, both samples < 50) or "normal" (tie- and continuity-corrected). */
    method: "exact" | "normal";
}

/** Largest sample size for which the exact null distribution is used (as R's wilcox.test). */
const EXACT_LIMIT = 50;

/**
 * Two-sided Mann–Whitney U test (Wilcoxon rank-sum).
 * Hand-written because no maintained JS package offers the exact small-sample distribution
 * together with the tie-corrected normal approximation; it follows R's wilcox.test / SciPy's
 * mannwhitneyu, and the tests compare against SciPy's outputs.
 */
export function mannWhitneyU(x: readonly number[], y: readonly number[]): MannWhitneyResult {
    const n1 = x.length;
    const n2 = y.length;
    if (n1 === 0 || n2 === 0) return { u: NaN, p: NaN, method: "normal" };
    const { ranks, ties } = averageRanks([...x, ...y]);
    let r1 = 0;
    for (let i = 0; i < n1; i++) r1 += ranks[i]!;
    const u = r1 - (n1 * (n1 + 1)) / 2;
    const mu = (n1 * n2) / 2;
    if (ties.length === 0 && n1 < EXACT_LIMIT && n2 < EXACT_LIMIT) {
        const pmf = exactUDistribution(n1, n2);
        let lower = 0;
        let upper = 0;
        for (let k = 0; k < pmf.length; k++) {
            if (k <= u) lower += pmf[k]!;
            if (k >= u) upper += pmf[k]!;
        }
        return { u, p: Math.min(1, 2 * Math.min(lower, upper)), method: "exact" };
    }
    const n = n1 + n2;
    const tieTerm = ties.reduce((s, t) => s + (t * t * t - t), 0) / (n * (n - 1));
    const variance = ((n1 * n2) / 12) * (n + 1 - tieTerm);
    if (variance <= 0) return { u, p: 1, method: "normal" };
    const z = Math.max(0, Math.abs(u - mu) - 0.5) / Math.sqrt(variance);
    return { u, p: Math.min(1, 2 * normalCdf(-z, 0, 1)), method: "normal" };
}

/**
 * Null distribution of U for sample sizes (n1, n2) without ties, as probabilities indexed by U.
 * Recurrence on the last element of the pooled order:
 * P_{a,b}(u) = a/(a+b)·P_{a−1,b}(u−b) + b/(a+b)·P_{a,b−1}(u); probabilities, not counts, so nothing overflows.
 */
export function exactUDistribution(n1: number, n2: number): Float64Array {
    const key = `${n1},${n2}`;
    const cached = EXACT_CACHE.get(key);
    if (cached) return cached;
    const d = computeExact(n1, n2);
    EXACT_CACHE.set(key, d);
    return d;
}

// Comparisons test many configuration pairs of the same sizes; each distribution is computed once.
const EXACT_CACHE = new Map<string, Float64Array>();

function computeExact(n1: number, n2: number): Float64Array {
    // prev[a] holds P_{a,b-1}; cur[a] builds P_{a,b}.
    let prev: Float64Array[] = [];
    for (let a = 0; a <= n1; a++) prev.push(Float64Array.of(1)); // b = 0: U is always 0
    for (let b = 1; b <= n2; b++) {
        const cur: Float64Array[] = [Float64Array.of(1)]; // a = 0
        for (let a = 1; a <= n1; a++) {
            const out = new Float64Array(a * b + 1);
            const wA = a / (a + b);
            const wB = b / (a + b);
            const fromA = cur[a - 1]!; // P_{a-1,b}: the largest pooled value is from x, adding b to U
            const fromB = prev[a]!; // P_{a,b-1}
            for (let k = 0; k < fromA.length; k++) out[k + b]! += wA * fromA[k]!;
            for (let k = 0; k < fromB.length; k++) out[k]! += wB * fromB[k]!;
            cur.push(out);
        }
        prev = cur;
    }
    return prev[n1]!;
}
