import { describe, expect, it } from "vitest";
import { argmax, klDivergence, logSoftmax } from "../../src/quant/drift/divergence.js";
import { DriftAccumulator } from "../../src/quant/drift/DriftAccumulator.js";

describe("next-token divergence", () => {
    it("computes KL(P‖Q) in nats as computed by hand", () => {
        // P = softmax([0, ln 3]) = (0.25, 0.75), Q = softmax([5, 5]) = (0.5, 0.5):
        // KL = 0.25·ln(0.25/0.5) + 0.75·ln(0.75/0.5) = −0.1732868 + 0.3040988 = 0.1308120 (by hand).
        const p = logSoftmax([0, Math.log(3)]);
        const q = logSoftmax([5, 5]);
        expect(Math.exp(p[0]!)).toBeCloseTo(0.25, 12);
        expect(klDivergence(p, q)).toBeCloseTo(0.130812, 6);
        // Not symmetric: KL(Q‖P) = 0.5·ln 2 + 0.5·ln(2/3) = 0.1438410.
        expect(klDivergence(q, p)).toBeCloseTo(0.143841, 6);
    });

    it("is exactly 0 for identical logits, even huge ones", () => {
        const logits = [1000, 999.5, -3, 0];
        expect(klDivergence(logSoftmax(logits), logSoftmax(logits))).toBe(0);
        // a constant shift leaves the distribution unchanged
        expect(klDivergence(logSoftmax(logits), logSoftmax(logits.map((x) => x - 7)))).toBeLessThan(1e-12);
    });

    it("refuses different vocabularies and finds the argmax", () => {
        expect(() => klDivergence(logSoftmax([1, 2]), logSoftmax([1, 2, 3]))).toThrow(/vocabularies/);
        expect(argmax([0.1, 3, -2, 3])).toBe(1);
    });
});

describe("DriftAccumulator", () => {
    it("summarises positions with type-7 percentiles", () => {
        const acc = new DriftAccumulator();
        // 2000 positions force the buffer to grow; values 1..10 repeated 200 times
        for (let r = 0; r < 200; r++) for (let v = 1; v <= 10; v++) acc.add(v, v <= 7);
        const s = acc.summary();
        expect(s.positions).toBe(2000);
        expect(s.top1_agreement).toBeCloseTo(0.7, 12);
        expect(s.kl_mean).toBeCloseTo(5.5, 12);
        expect(s.kl_max).toBe(10);
        expect(s.kl_p50).toBeCloseTo(5.5, 12); // positions 999 and 1000 (0-based) of the sorted 2000 hold 5 and 6
        const small = new DriftAccumulator();
        for (let v = 1; v <= 10; v++) small.add(v, true);
        // type 7 on 1..10: h = 9·0.9 = 8.1 → 9 + 0.1·(10 − 9) = 9.1; p99: h = 8.91 → 9.91 (as numpy.percentile)
        expect(small.summary().kl_p90).toBeCloseTo(9.1, 12);
        expect(small.summary().kl_p99).toBeCloseTo(9.91, 12);
        expect(new DriftAccumulator().summary().kl_mean).toBeNull();
    });
});
