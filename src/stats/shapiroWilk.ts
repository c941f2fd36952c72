import normalCdf from "@stdlib/stats-base-dists-normal-cdf";
import normalQuantile from "@stdlib/stats-base-dists-normal-quantile";

/** Result of a Shapiro–Wilk normality test. */
export interface ShapiroWilkResult {
    /** W statistic; NaN when undefined (n < 3 or all values equal). */
    w: number;
    /** p-value; NaN when undefined. */
    p: number;
    n: number;
    /** Why W and p are undefined, when they are: "n = 2 < 3", "all values equal". */
    why?: string;
}

// Royston (1995), Algorithm AS R94 coefficients: polynomial approximations of the weights
// and of the normalising transformation of W.
const C1 = [0, 0.221157, -0.147981, -2.07119, 4.434685, -2.706056];
const C2 = [0, 0.042981, -0.293762, -1.752461, 5.682633, -3.582633];
const C3 = [0.544, -0.39978, 0.025054, -6.714e-4];
const C4 = [1.3822, -0.77857, 0.062767, -0.0020322];
const C5 = [-1.5861, -0.31082, -0.083751, 0.0038915];
const C6 = [-0.4803, -0.082676, 0.0030302];
const G = [-2.273, 0.459];

/**
 * Shapiro–Wilk W and its p-value by Royston's algorithm (AS R94, as in R's shapiro.test and
 * SciPy's shapiro), for 3 ≤ n ≤ 5000. Hand-written: no maintained JS statistics package
 * implements Shapiro–Wilk. Checked against SciPy in test/stats.
 */
export function shapiroWilk(sample: readonly number[]): ShapiroWilkResult {
    const n = sample.length;
    const x = [...sample].sort((a, b) => a - b);
    if (n < 3) return { w: NaN, p: NaN, n, why: `n = ${n} < 3` };
    const range = x[n - 1]! - x[0]!;
    if (!(range > 1e-19 * Math.max(1, Math.abs(x[0]!)))) return { w: NaN, p: NaN, n, why: `all ${n} values equal` };

    const half = Math.floor(n / 2);
    const a = weights(n, half);

    // W = (Σ a_i (x_(n+1-i) − x_(i)))² / Σ (x − x̄)², on values scaled by the range for stability.
    let mean = 0;
    for (const v of x) mean += v / range;
    mean /= n;
    let ss = 0;
    for (const v of x) ss += (v / range - mean) ** 2;
    let num = 0;
    for (let i = 0; i < half; i++) num += a[i]! * (x[n - 1 - i]! - x[i]!) / range;
    const w = Math.min(1, (num * num) / ss);

    return { w, p: pValue(w, n), n };
}

/** Weights a_1..a_{n/2} (Royston's approximation). */
function weights(n: number, half: number): number[] {
    if (n === 3) return [Math.SQRT1_2];
    const m: number[] = [];
    let summ2 = 0;
    for (let i = 1; i <= half; i++) {
        const mi = normalQuantile((i - 0.375) / (n + 0.25), 0, 1);
        m.push(mi);
        summ2 += mi * mi;
    }
    summ2 *= 2;
    const ssumm2 = Math.sqrt(summ2);
    const rsn = 1 / Math.sqrt(n);
    const a1 = poly(C1, rsn) - m[0]! / ssumm2;
    const a: number[] = new Array(half);
    let first: number;
    let fac: number;
    if (n > 5) {
        const a2 = -m[1]! / ssumm2 + poly(C2, rsn);
        fac = Math.sqrt((summ2 - 2 * m[0]! ** 2 - 2 * m[1]! ** 2) / (1 - 2 * a1 ** 2 - 2 * a2 ** 2));
        a[1] = a2;
        first = 2;
    } else {
        fac = Math.sqrt((summ2 - 2 * m[0]! ** 2) / (1 - 2 * a1 ** 2));
        first = 1;
    }
    a[0] = a1;
    for (let i = first; i < half; i++) a[i] = -m[i]! / fac;
    return a;
}

/** p-value of W (Royston's normalising transformations; exact formula for n = 3). */
function pValue(w: number, n: number): number {
    if (n === 3) {
        const p = (6 / Math.PI) * (Math.asin(Math.sqrt(w)) - Math.asin(Math.sqrt(0.75)));
        return Math.max(0, Math.min(1, p));
    }
    const w1 = Math.log(1 - w);
    if (!Number.isFinite(w1)) return 1; // W = 1: a perfect fit
    let y: number;
    let mu: number;
    let sigma: number;
    if (n <= 11) {
        const gamma = poly(G, n);
        if (w1 >= gamma) return 1e-99;
        y = -Math.log(gamma - w1);
        mu = poly(C3, n);
        sigma = Math.exp(poly(C4, n));
    } else {
        const ln = Math.log(n);
        y = w1;
        mu = poly(C5, ln);
        sigma = Math.exp(poly(C6, ln));
    }
    return normalCdf(mu - y, 0, sigma); // upper tail without cancellation
}

/** c0 + c1·x + c2·x² + … */
function poly(c: readonly number[], x: number): number {
    let r = 0;
    for (let i = c.length - 1; i >= 0; i--) r = r * x + c[i]!;
    return r;
}
