import { describe, expect, it } from "vitest";
import { averageSustainableLoops, taskSimilarity } from "../../src/loop/asl.js";
import { diffStat, lineDiff } from "../../src/loop/diff.js";

// ASL = Σ n_i · i² · s_i / (M·T) (EvaLOOP eq. 1), hand-computed.
describe("Average Sustainable Loops", () => {
    it("is M when every task sustains every loop (s = 1)", () => {
        const r = averageSustainableLoops(Array.from({ length: 7 }, () => ({ sustained: 10 })), 10);
        expect(r.asl).toBe(10);
        expect(r.sustainedCounts[10]).toBe(7);
    });
    it("is 0 when every task fails its first loop", () => {
        expect(averageSustainableLoops([{ sustained: 0 }, { sustained: 0 }], 10).asl).toBe(0);
    });
    it("weights loops by i² and the failure-boundary similarity", () => {
        // M = 3, T = 4: l = 0; l = 1 (s at the boundary 0.5); l = 1 (not measured → 1); l = 3 = M (s = 1).
        // s̄ = 0.5 and 1 → s_1 = 0.75; ASL = (2·1·0.75 + 1·9·1) / (3·4) = 10.5/12.
        const r = averageSustainableLoops(
            [{ sustained: 0 }, { sustained: 1, boundarySimilarity: 0.5 }, { sustained: 1, boundarySimilarity: null }, { sustained: 3, boundarySimilarity: 0.2 }],
            3
        );
        expect(r.asl).toBeCloseTo(0.875, 12);
        expect(r.sustainedCounts).toEqual([1, 2, 0, 1]);
        expect(r.similarity[1]).toBeCloseTo(0.75, 12);
        expect(r.similarity[3]).toBe(1); // l = M: every loop counts 1, the boundary value is ignored
        expect(r.meanSustained).toBeCloseTo(5 / 4, 12);
    });
    it("averages s over a task's loops: only the boundary loop differs from 1", () => {
        // l = 2, M = 3, boundary 0.4: s̄ = (1 + 0.4)/2 = 0.7; ASL = 1·4·0.7 / (3·1).
        expect(taskSimilarity({ sustained: 2, boundarySimilarity: 0.4 }, 3)).toBeCloseTo(0.7, 12);
        expect(averageSustainableLoops([{ sustained: 2, boundarySimilarity: 0.4 }], 3).asl).toBeCloseTo(2.8 / 3, 12);
    });
    it("refuses loop counts outside 0..M", () => {
        expect(() => averageSustainableLoops([{ sustained: 4 }], 3)).toThrow();
    });
});

describe("line diff of successive codes", () => {
    it("keeps common lines and marks removals and additions", () => {
        const d = lineDiff("def f(a, b):\n    return a + b\n", "def f(a, b):\n    s = a + b\n    return s\n");
        expect(d).toEqual([" def f(a, b):", "-    return a + b", "+    s = a + b", "+    return s"]);
        expect(diffStat(d)).toEqual({ added: 2, removed: 1 });
        expect(diffStat(lineDiff("x = 1\n", "x = 1"))).toEqual({ added: 0, removed: 0 });
    });
});
