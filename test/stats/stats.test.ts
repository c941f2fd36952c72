import { describe, expect, it } from "vitest";
import {
    averageRanks,
    bootstrapInterval,
    bootstrapMeanInterval,
    cliffsDelta,
    deltaMagnitude,
    exactMcNemar,
    exactMcNemarPaired,
    exactUDistribution,
    mannWhitneyU,
    shapiroWilk,
    wilsonInterval,
    instanceRateInterval
} from "../../src/stats/index.js";

describe("Shapiro–Wilk (Royston AS R94)", () => {
    it("matches the Shapiro & Wilk (1965) weights example as computed by SciPy", () => {
        // Shapiro & Wilk (1965), weights of 11 men; SciPy 1.17.1 stats.shapiro → W=0.7888146948631716, p=0.006703814061898823
        const r = shapiroWilk([148, 154, 158, 160, 161, 162, 166, 170, 182, 195, 236]);
        expect(r.w).toBeCloseTo(0.7888146948631716, 9);
        expect(r.p).toBeCloseTo(0.006703814061898823, 8);
    });
    it("covers n = 3 (exact formula), n = 5 and n = 25 (the n > 11 branch)", () => {
        // SciPy 1.17.1: shapiro([1,2,4]) → W=0.9642857142857142, p=0.6368868450289689
        const r3 = shapiroWilk([1, 2, 4]);
        expect(r3.w).toBeCloseTo(0.9642857142857142, 10);
        expect(r3.p).toBeCloseTo(0.6368868450289689, 8);
        // SciPy 1.17.1: shapiro([2.1,3.4,1.9,5.6,4.0]) → W=0.9314289773150016, p=0.606147203485118
        const r5 = shapiroWilk([2.1, 3.4, 1.9, 5.6, 4.0]);
        expect(r5.w).toBeCloseTo(0.9314289773150016, 8);
        expect(r5.p).toBeCloseTo(0.606147203485118, 6);
        // SciPy 1.17.1 on these 25 skewed values → W=0.8346662753381485, p=0.0009134904825887374
        const y = [0.139, 0.157, 0.175, 0.256, 0.344, 0.413, 0.503, 0.577, 0.614, 0.655, 0.954, 1.392, 1.557, 1.648, 1.69, 1.994, 2.174, 2.206, 3.245, 3.51, 3.571, 4.354, 4.98, 6.084, 8.351];
        const r25 = shapiroWilk(y);
        expect(r25.w).toBeCloseTo(0.8346662753381485, 8);
        expect(r25.p).toBeCloseTo(0.0009134904825887374, 9);
    });
    it("is undefined (NaN) below 3 values or when all values are equal", () => {
        expect(shapiroWilk([1, 2]).w).toBeNaN();
        expect(shapiroWilk([0.5, 0.5, 0.5, 0.5]).p).toBeNaN();
    });
});

describe("Mann–Whitney U", () => {
    it("uses the exact distribution for small samples without ties (SciPy docs example)", () => {
        // SciPy mannwhitneyu docs, males vs females: U1 = 17, exact two-sided p = 0.1111111111111111
        const r = mannWhitneyU([19, 22, 16, 29, 24], [20, 11, 17, 12]);
        expect(r.method).toBe("exact");
        expect(r.u).toBe(17);
        expect(r.p).toBeCloseTo(0.1111111111111111, 12);
        // SciPy 1.17.1, method="exact" on two samples of 9 → U=58, p=0.13591114767585355
        const r9 = mannWhitneyU([1.83, 0.5, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.3], [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29]);
        expect(r9.u).toBe(58);
        // 1.06 and 1.29 repeat within y: the exact permutation distribution given those ties (issue #47), which
        // SciPy's method="exact" (no-tie distribution) only approaches; test/stats/exactTies.test.ts enumerates it.
        expect(r9.method).toBe("exact");
        // Enumerating all C(18, 9) = 48,620 splits (an independent Python loop) gives 0.12990538872891813.
        expect(r9.p).toBeCloseTo(0.12990538872891813, 12);
    });
    it("uses the tie- and continuity-corrected normal approximation with ties when asked for it (and for n ≥ 50)", () => {
        // SciPy 1.17.1 mannwhitneyu(method="asymptotic") → U=33.5, p=0.08215265384607152
        const r = mannWhitneyU([0.8, 0.8, 0.9, 1.0, 1.0, 0.6, 0.7], [0.5, 0.8, 0.6, 0.6, 0.9, 0.4], { method: "asymptotic" });
        expect(r.method).toBe("normal");
        expect(r.u).toBe(33.5);
        expect(r.p).toBeCloseTo(0.08215265384607152, 10);
    });
    it("has an exact null distribution that sums to 1 and matches hand counts", () => {
        // n1 = n2 = 2: the 6 orderings give U = 0,1,2,2,3,4 → P = 1/6, 1/6, 2/6, 1/6, 1/6
        const d = Array.from(exactUDistribution(2, 2));
        expect(d.map((v) => v * 6)).toEqual([1, 1, 2, 1, 1].map((v) => expect.closeTo(v, 12)));
        const big = exactUDistribution(30, 40);
        expect(big.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 12);
    });
    it("gives p = 1 when every value is tied", () => {
        expect(mannWhitneyU([1, 1, 1], [1, 1]).p).toBe(1);
    });
});

describe("Cliff's δ", () => {
    it("counts dominance pairs (hand-computed)", () => {
        // x=[1,2,3], y=[2,2,4]: pairs x>y: (3,2),(3,2) = 2; x<y: (1,2),(1,2),(1,4),(2,4),(3,4) = 5 → δ = -3/9
        const r = cliffsDelta([1, 2, 3], [2, 2, 4]);
        expect(r.delta).toBeCloseTo(-1 / 3, 12);
        expect(r.magnitude).toBe("medium");
        expect(cliffsDelta([5, 6], [1, 2]).delta).toBe(1);
        expect(cliffsDelta([], [1, 2]).delta).toBeNaN(); // undefined without data on one side
    });
    it("applies the 0.147 / 0.33 / 0.474 thresholds", () => {
        expect(deltaMagnitude(0.146)).toBe("negligible");
        expect(deltaMagnitude(-0.147)).toBe("small");
        expect(deltaMagnitude(0.33)).toBe("medium");
        expect(deltaMagnitude(-0.474)).toBe("large");
    });
});

describe("exact McNemar", () => {
    it("is the two-sided binomial test on the discordant pairs", () => {
        // b=1, c=7: 2·P(X ≤ 1 | 8, ½) = 2·9/256 = 0.0703125 (hand; SciPy binomtest agrees)
        expect(exactMcNemar(1, 7).p).toBeCloseTo(0.0703125, 12);
        // b=2, c=10: SciPy 1.17.1 binomtest(2, 12) → 0.03857421875
        expect(exactMcNemar(10, 2).p).toBeCloseTo(0.03857421875, 12);
        expect(exactMcNemar(0, 0).p).toBe(1);
    });
    it("keeps both tails when the p-value is tiny", () => {
        // b=0, c=60: 2·(½)^60 = 2^-59 exactly; b=1, c=60: 2·(1 + 61)·(½)^61 = 124·2^-61 (hand).
        // A one-sided tail (what a tolerance-based two-sided sum gives here) would be half of each.
        expect(exactMcNemar(0, 60).p / 2 ** -59).toBeCloseTo(1, 12);
        expect(exactMcNemar(60, 1).p / (124 * 2 ** -61)).toBeCloseTo(1, 12);
        expect(exactMcNemar(0, 1000).p / 2 ** -999).toBeCloseTo(1, 10);
        expect(exactMcNemar(5, 5).p).toBe(1);
    });
    it("counts discordant pairs from paired vectors", () => {
        const r = exactMcNemarPaired([true, true, false, false, true], [true, false, true, true, true]);
        expect([r.b, r.c, r.concordant]).toEqual([1, 2, 2]);
        expect(r.p).toBe(1); // 2·P(X ≤ 1 | 3, ½) = 2·4/8 = 1
    });
});

describe("instance-level interval for a mean of rates (RLPR)", () => {
    it("is Wilson at the effective sample size of the instances (hand-computed)", () => {
        // Rates 1/1, 1/2, 0/4: mean ½, s² = (¼ + 0 + ¼)/2 = ¼, Var(mean) = 1/12, n_eff = ¼ ÷ 1/12 = 3 (of N = 7)
        // → Wilson(1.5, 3) = (0.1253344719102632, 0.8746655280897369) (SciPy's normal quantile, closed form).
        const a = instanceRateInterval([{ c: 1, n: 1 }, { c: 1, n: 2 }, { c: 0, n: 4 }]);
        expect(a.lo).toBeCloseTo(0.1253344719102632, 10);
        expect(a.hi).toBeCloseTo(0.8746655280897369, 10);
        // Rates 3/3, 2/3, 1/2, 0/1: mean 13/24, Var(mean) = 25/576, n_eff = (143/576)/(25/576) = 5.72
        // → Wilson(5.72·13/24, 5.72) = (0.20866081651411733, 0.8411921061000558). Wilson(RLPR·9, 9) would be narrower.
        const b = instanceRateInterval([{ c: 3, n: 3 }, { c: 2, n: 3 }, { c: 1, n: 2 }, { c: 0, n: 1 }]);
        expect(b.lo).toBeCloseTo(0.20866081651411733, 10);
        expect(b.hi).toBeCloseTo(0.8411921061000558, 10);
        expect(b.hi - b.lo).toBeGreaterThan(wilsonInterval((13 / 24) * 9, 9).hi - wilsonInterval((13 / 24) * 9, 9).lo);
    });
    it("falls back to the responses where the instances carry no spread, and to one binomial for one instance", () => {
        // All solved in every round: n_eff = N = 6 → Wilson(6, 6).
        expect(instanceRateInterval([{ c: 3, n: 3 }, { c: 3, n: 3 }])).toEqual(wilsonInterval(6, 6));
        // Every instance at rate ½: no spread → N = 8.
        expect(instanceRateInterval([{ c: 1, n: 2 }, { c: 3, n: 6 }])).toEqual(wilsonInterval(4, 8));
        expect(instanceRateInterval([{ c: 2, n: 5 }])).toEqual(wilsonInterval(2, 5));
        expect(Number.isNaN(instanceRateInterval([]).lo)).toBe(true);
    });
});

describe("Wilson interval", () => {
    it("matches the closed form (values computed independently with SciPy's normal quantile)", () => {
        // 8/10 → (0.4901624715366418, 0.9433178485456248), as R's prop.test(8, 10, correct = FALSE)
        const a = wilsonInterval(8, 10);
        expect(a.lo).toBeCloseTo(0.4901624715366418, 10);
        expect(a.hi).toBeCloseTo(0.9433178485456248, 10);
        // 0/10 → (0, z²/(n+z²)) = (0, 0.2775327998628892)
        const b = wilsonInterval(0, 10);
        expect(b.lo).toBe(0);
        expect(b.hi).toBeCloseTo(0.2775327998628892, 10);
        // 81/263 → (0.2552885198782742, 0.36620957698280004)
        const c = wilsonInterval(81, 263);
        expect(c.lo).toBeCloseTo(0.2552885198782742, 10);
        expect(c.hi).toBeCloseTo(0.36620957698280004, 10);
    });
});

describe("seeded bootstrap", () => {
    const mean = (s: readonly number[]) => s.reduce((a, b) => a + b, 0) / s.length;
    it("is reproducible for a seed and brackets the statistic", () => {
        const v = [0.1, 0.4, 0.35, 0.8, 0.2, 0.9, 0.5, 0.55, 0.3, 0.6];
        const a = bootstrapInterval(v, mean, { seed: 7 });
        const b = bootstrapInterval(v, mean, { seed: 7 });
        const c = bootstrapInterval(v, mean, { seed: 8 });
        expect(a).toEqual(b);
        expect(a).not.toEqual(c);
        expect(a.lo).toBeLessThan(mean(v));
        expect(a.hi).toBeGreaterThan(mean(v));
        // The percentile interval of a mean is about x̄ ± 1.96·s/√n (≈ 0.495 ± 0.156 here).
        expect(a.hi - a.lo).toBeGreaterThan(0.2);
        expect(a.hi - a.lo).toBeLessThan(0.4);
    });
    it("has a fast mean variant that gives the same interval for the same seed", () => {
        const v = [0.1, 0.4, 0.35, 0.8, 0.2, 0.9, 0.5, 0.55, 0.3, 0.6];
        const a = bootstrapInterval(v, mean, { seed: 3, resamples: 500 });
        const b = bootstrapMeanInterval(v, { seed: 3, resamples: 500 });
        expect(b.lo).toBeCloseTo(a.lo, 12);
        expect(b.hi).toBeCloseTo(a.hi, 12);
    });
    it("collapses to a point on constant data", () => {
        expect(bootstrapInterval([0.25, 0.25, 0.25], mean, { seed: 1 })).toEqual({ lo: 0.25, hi: 0.25 });
    });
});

describe("average ranks", () => {
    it("gives tied values the mean rank", () => {
        expect(averageRanks([10, 20, 10, 30])).toEqual({ ranks: [1.5, 3, 1.5, 4], ties: [2] });
    });
});
