import binomialCdf from "@stdlib/stats-base-dists-binomial-cdf";

/** Result of an exact McNemar test on paired binary outcomes. */
export interface McNemarResult {
    /** Pairs that are true in A and false in B. */
    b: number;
    /** Pairs that are false in A and true in B. */
    c: number;
    /** Concordant pairs (same value in both). */
    concordant: number;
    /** Two-sided exact p-value: binomial test of b successes in b + c trials at p = 0.5. */
    p: number;
}

/** Exact McNemar test from the discordant counts b (A only) and c (B only). */
export function exactMcNemar(b: number, c: number, concordant = 0): McNemarResult {
    // No discordant pair: no evidence of any difference.
    if (b + c === 0) return { b, c, concordant, p: 1 };
    // Under H0 the discordant split is Binomial(b + c, 1/2), symmetric, so the exact two-sided tail is
    // twice the smaller tail. Computed directly: @stdlib's binomial-test sums the probabilities "no
    // larger than the observed one" with a relative tolerance, which drops the mirror tail once it is
    // below ~1e-14 and so returned half the exact p-value there.
    const p = 2 * binomialCdf(Math.min(b, c), b + c, 0.5);
    return { b, c, concordant, p: Math.min(1, p) };
}

/** Exact McNemar test on two equally long vectors of paired binary outcomes. */
export function exactMcNemarPaired(a: readonly boolean[], bVals: readonly boolean[]): McNemarResult {
    if (a.length !== bVals.length) throw new RangeError("McNemar needs paired samples of equal length");
    let b = 0;
    let c = 0;
    for (let i = 0; i < a.length; i++) {
        if (a[i] && !bVals[i]) b++;
        else if (!a[i] && bVals[i]) c++;
    }
    return exactMcNemar(b, c, a.length - b - c);
}
