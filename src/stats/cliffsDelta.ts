/** Conventional magnitude of Cliff's δ (Romano et al. 2006 thresholds 0.147 / 0.33 / 0.474). */
export type Magnitude = "negligible" | "small" | "medium" | "large";

/** Cliff's δ of x against y and its magnitude. */
export interface CliffsDelta {
    delta: number;
    magnitude: Magnitude;
}

/**
 * Cliff's δ = (#{x > y} − #{x < y}) / (n·m), by merging sorted samples (O((n+m) log(n+m))).
 * Hand-written: a few lines, and no maintained JS package provides it.
 */
export function cliffsDelta(x: readonly number[], y: readonly number[]): CliffsDelta {
    const n = x.length;
    const m = y.length;
    // Undefined without data on both sides; NaN says so (magnitude is then meaningless).
    if (n === 0 || m === 0) return { delta: NaN, magnitude: "negligible" };
    const ys = [...y].sort((a, b) => a - b);
    let greater = 0;
    let less = 0;
    for (const v of x) {
        const below = lowerBound(ys, v); // count of y < v
        const atOrBelow = upperBound(ys, v); // count of y <= v
        greater += below;
        less += m - atOrBelow;
    }
    const delta = (greater - less) / (n * m);
    return { delta, magnitude: deltaMagnitude(delta) };
}

/** Magnitude label for |δ|: < 0.147 negligible, < 0.33 small, < 0.474 medium, else large. */
export function deltaMagnitude(delta: number): Magnitude {
    const a = Math.abs(delta);
    if (a < 0.147) return "negligible";
    if (a < 0.33) return "small";
    if (a < 0.474) return "medium";
    return "large";
}

function lowerBound(sorted: number[], v: number): number {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (sorted[mid]! < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

function upperBound(sorted: number[], v: number): number {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (sorted[mid]! <= v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}
