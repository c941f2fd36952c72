import { describe, expect, it } from "vitest";
import { kendallW, maxPerformanceImprovement, ranksDescending, topK, topKIoU, zScore } from "../../src/mutate/sensitivity.js";

// Hand computations (prompt-mutation paper §4.2.4–4.2.5); x_0 is the original wrapper's value.
describe("Z-score and MPI", () => {
    it("Z = (x0 − mean)/σ with the population σ", () => {
        // mean 0.6; deviations −.1 .1 −.3 .3; σ² = .20/4 = .05; Z = −.1/√.05
        expect(zScore([0.5, 0.7, 0.3, 0.9])).toBeCloseTo(-0.1 / Math.sqrt(0.05), 12);
        expect(zScore([0.5, 0.7, 0.3, 0.9])).toBeCloseTo(-0.4472136, 6);
        expect(zScore([0.9, 0.5, 0.7])).toBeCloseTo(0.2 / Math.sqrt(0.08 / 3), 12);
    });
    it("Z is undefined when every variant scores the same", () => {
        expect(zScore([0.4, 0.4, 0.4])).toBeNull();
    });
    it("MPI = max (x_i − x0)/x0, never below 0 since the original is one of the variants", () => {
        expect(maxPerformanceImprovement([0.5, 0.7, 0.3, 0.9])).toBeCloseTo(0.8, 12);
        expect(maxPerformanceImprovement([0.9, 0.5, 0.7])).toBe(0);
        expect(maxPerformanceImprovement([0, 0.5])).toBeNull();
    });
});

describe("Kendall's W", () => {
    it("equals 12S / m²(n³ − n) without ties", () => {
        // Ranks (best first): judge 1 [1,2,3,4], judge 2 [2,1,3,4], judge 3 [1,2,4,3];
        // R = [4,5,10,11], mean 7.5, S = 12.25+6.25+6.25+12.25 = 37; W = 444/540.
        const w = kendallW([
            [4, 3, 2, 1],
            [3, 4, 2, 1],
            [4, 3, 1, 2]
        ]);
        expect(w.s).toBe(37);
        expect(w.w).toBeCloseTo(444 / 540, 12);
        expect(w.tieCorrected).toBe(false);
    });
    it("is 1 when every judge ranks alike and 0 when two judges rank in reverse", () => {
        expect(kendallW([[3, 2, 1], [30, 20, 10], [0.3, 0.2, 0.1]]).w).toBeCloseTo(1, 12);
        expect(kendallW([[3, 2, 1], [1, 2, 3]]).w).toBeCloseTo(0, 12);
    });
    it("uses mean ranks for ties and the tie correction m·ΣT", () => {
        // Ranks: [1.5,1.5,3] and [1,2.5,2.5]; R = [2.5,4,5.5], S = 4.5; T = 6 + 6;
        // W = 12·4.5 / (4·24 − 2·12) = 54/72.
        const w = kendallW([
            [1, 1, 0],
            [1, 0, 0]
        ]);
        expect(ranksDescending([1, 1, 0])).toEqual([1.5, 1.5, 3]);
        expect(w.s).toBeCloseTo(4.5, 12);
        expect(w.w).toBeCloseTo(0.75, 12);
        expect(w.tieCorrected).toBe(true);
    });
    it("is undefined for fewer than two objects or when every judge ties everything", () => {
        expect(kendallW([[1], [2]]).w).toBeNull();
        expect(kendallW([[0.5, 0.5], [0.2, 0.2]]).w).toBeNull();
    });
    it("refuses ragged input", () => {
        expect(() => kendallW([[1, 2], [1]])).toThrow();
    });
});

describe("top-k IoU", () => {
    const a = [0.9, 0.8, 0.1, 0.5];
    const b = [0.2, 0.8, 0.9, 0.7];
    it("intersects the top-k variant sets of two models", () => {
        expect(topK(a, 2)).toEqual([0, 1]);
        expect(topK(b, 2)).toEqual([2, 1]);
        expect(topKIoU(a, b, 1)).toBe(0); // {0} vs {2}
        expect(topKIoU(a, b, 2)).toBeCloseTo(1 / 3, 12); // {0,1} vs {2,1}
        expect(topKIoU(a, b, 3)).toBeCloseTo(0.5, 12); // {0,1,3} vs {2,1,3}
        expect(topKIoU(a, b, 4)).toBe(1);
    });
    it("breaks ties at the boundary by variant order, the original first", () => {
        expect(topK([0.5, 0.7, 0.5, 0.5], 2)).toEqual([1, 0]);
    });
});
