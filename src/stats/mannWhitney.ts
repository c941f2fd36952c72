import normalCdf from "@stdlib/stats-base-dists-normal-cdf";
import { averageRanks } from "./ranks.js";

/** Result of a two-sided Mann–Whitney U test. */
export interface MannWhitneyResult {
    /** U statistic of the first sample: #{x > y} + ½ #{x = y}. */
    u: number;
    /** Two-sided p-value. */
    p: number;
    /** "exact" (the permutation distribution, given the ties if any; both samples < 50) or "normal" (tie- and continuity-corrected). */
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
export function mannWhitneyU(x: readonly number[], y: readonly number[], opts: { method?: "auto" | "asymptotic" } = {}): MannWhitneyResult {
    const n1 = x.length;
    const n2 = y.length;
    if (n1 === 0 || n2 === 0) return { u: NaN, p: NaN, method: "normal" };
    const { ranks, ties } = averageRanks([...x, ...y]);
    let r1 = 0;
    for (let i = 0; i < n1; i++) r1 += ranks[i]!;
    const u = r1 - (n1 * (n1 + 1)) / 2;
    const mu = (n1 * n2) / 2;
    const small = opts.method !== "asymptotic" && n1 < EXACT_LIMIT && n2 < EXACT_LIMIT;
    if (ties.length > 0 && small) {
        // Ties at small n: the exact permutation distribution of U given the tied ranks (every way of choosing
        // which n1 of the pooled values are x's equally likely), as a permutation test computes it.
        const { lower, upper } = exactTiedTails(ranks, n1, r1);
        return { u, p: Math.min(1, 2 * Math.min(lower, upper)), method: "exact" };
    }
    if (ties.length === 0 && small) {
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

/**
 * P(R1 ≤ r1) and P(R1 ≥ r1) for the rank sum R1 of n1 values drawn without replacement from the pooled (average)
 * ranks: the exact conditional null distribution with ties. Ranks are counted in halves (average ranks are
 * multiples of ½), so sums compare exactly. Dynamic programme over the tie groups: choosing j of a group of t
 * values of rank r adds j·r in C(t, j) ways.
 */
export function exactTiedTails(ranks: readonly number[], n1: number, r1: number): { lower: number; upper: number } {
    const groups = new Map<number, number>();
    for (const r of ranks) groups.set(Math.round(2 * r), (groups.get(Math.round(2 * r)) ?? 0) + 1);
    const maxSum = [...ranks].map((r) => Math.round(2 * r)).sort((a, b) => b - a).slice(0, n1).reduce((a, b) => a + b, 0);
    // ways[k][s]: ways to choose k values with doubled rank sum s, over the groups seen so far.
    let ways: Float64Array[] = Array.from({ length: n1 + 1 }, () => new Float64Array(maxSum + 1));
    ways[0]![0] = 1;
    for (const [r2, t] of groups) {
        const next: Float64Array[] = Array.from({ length: n1 + 1 }, () => new Float64Array(maxSum + 1));
        for (let k = 0; k <= n1; k++) {
            const row = ways[k]!;
            for (let s = 0; s <= maxSum; s++) {
                const w = row[s]!;
                if (w === 0) continue;
                let c = 1; // C(t, j)
                for (let j = 0; j <= t && k + j <= n1; j++) {
                    if (j > 0) c = (c * (t - j + 1)) / j;
                    const s2 = s + j * r2;
                    if (s2 > maxSum) break;
                    next[k + j]![s2]! += w * c;
                }
            }
        }
        ways = next;
    }
    const dist = ways[n1]!;
    const observed = Math.round(2 * r1);
    let total = 0,
        lower = 0,
        upper = 0;
    for (let s = 0; s <= maxSum; s++) {
        const w = dist[s]!;
        total += w;
        if (s <= observed) lower += w;
        if (s >= observed) upper += w;
    }
    return { lower: lower / total, upper: upper / total };
}
