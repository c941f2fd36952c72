/**
 * Prompt-sensitivity figures (SPEC §8; the prompt-mutation paper, §4.2.4–4.2.5). Values are
 * metric values per prompt variant, index 0 being the original wrapper.
 */

/**
 * Z = (x_0 − mean)/σ with the population σ over all n variants (the original included).
 * null when σ = 0: every variant scored the same, so there is no spread to measure against.
 */
export function zScore(values: readonly number[]): number | null {
    if (values.length === 0) throw new Error("zScore: no values");
    const n = values.length;
    const mean = values.reduce((a, b) => a + b, 0) / n;
    const sd = Math.sqrt(values.reduce((a, x) => a + (x - mean) ** 2, 0) / n);
    // Equal values can leave a rounding residue in σ; treat it as no spread.
    return sd <= 1e-12 * Math.max(1, Math.abs(mean)) ? null : (values[0]! - mean) / sd;
}

/** MPI = max_i (x_i − x_0)/x_0 over all variants (≥ 0, since i = 0 is included); null when x_0 = 0. */
export function maxPerformanceImprovement(values: readonly number[]): number | null {
    if (values.length === 0) throw new Error("MPI: no values");
    const x0 = values[0]!;
    if (x0 === 0) return null;
    return Math.max(...values.map((x) => (x - x0) / x0));
}

/** Ranks 1..n, best (highest value) first; ties share the mean of their ranks. */
export function ranksDescending(values: readonly number[]): number[] {
    const order = values.map((v, i) => ({ v, i })).sort((a, b) => b.v - a.v);
    const ranks = new Array<number>(values.length);
    for (let s = 0; s < order.length; ) {
        let e = s;
        while (e + 1 < order.length && order[e + 1]!.v === order[s]!.v) e++;
        for (let k = s; k <= e; k++) ranks[order[k]!.i] = (s + e) / 2 + 1;
        s = e + 1;
    }
    return ranks;
}

/** Kendall's W with its parts. */
export interface KendallW {
    /** Coefficient of concordance, 0..1; null when it is undefined (fewer than 2 objects, or every judge tied everything). */
    w: number | null;
    /** Sum of squared deviations of the rank sums from their mean. */
    s: number;
    /** m: judges (prompt variants). */
    judges: number;
    /** n: objects ranked (models / configurations). */
    objects: number;
    /** True when tied values were present and the tie correction applied. */
    tieCorrected: boolean;
}

/**
 * Kendall's W = 12S / (m²(n³ − n) − m·ΣT), T = Σ(t³ − t) over each judge's groups of ties.
 * `scores[j][i]` is the metric of object i (a model) under judge j (a prompt variant); each judge
 * ranks the objects best-first. Without ties this is the paper's 12S / m²(n³ − n).
 */
export function kendallW(scores: readonly (readonly number[])[]): KendallW {
    const m = scores.length;
    const n = m === 0 ? 0 : scores[0]!.length;
    if (scores.some((row) => row.length !== n)) throw new Error("kendallW: every judge must score every object");
    if (m === 0 || n < 2) return { w: null, s: 0, judges: m, objects: n, tieCorrected: false };
    const rankSums = new Array<number>(n).fill(0);
    let ties = 0;
    for (const row of scores) {
        ranksDescending(row).forEach((r, i) => (rankSums[i]! += r));
        const counts = new Map<number, number>();
        for (const v of row) counts.set(v, (counts.get(v) ?? 0) + 1);
        for (const t of counts.values()) ties += t ** 3 - t;
    }
    const mean = rankSums.reduce((a, b) => a + b, 0) / n;
    const s = rankSums.reduce((a, r) => a + (r - mean) ** 2, 0);
    const denominator = m * m * (n ** 3 - n) - m * ties;
    return { w: denominator === 0 ? null : (12 * s) / denominator, s, judges: m, objects: n, tieCorrected: ties > 0 };
}

/**
 * Indices of the top-k variants by value, best first. Ties at the boundary are broken by
 * variant order (the original first), so the set is deterministic.
 */
export function topK(values: readonly number[], k: number): number[] {
    return values
        .map((v, i) => ({ v, i }))
        .sort((a, b) => b.v - a.v || a.i - b.i)
        .slice(0, Math.max(0, k))
        .map((x) => x.i);
}

/** IoU = |S_a ∩ S_b| / |S_a ∪ S_b| of the top-k variant sets of two models. */
export function topKIoU(a: readonly number[], b: readonly number[], k: number): number {
    const sa = new Set(topK(a, k));
    const sb = new Set(topK(b, k));
    const union = new Set([...sa, ...sb]);
    if (union.size === 0) return 0;
    return [...sa].filter((x) => sb.has(x)).length / union.size;
}
