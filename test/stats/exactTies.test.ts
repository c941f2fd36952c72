/**
 * Issue #47: exact p-values for Mann–Whitney U (Wilcoxon rank-sum) at small n, ties included: the permutation
 * distribution of U given the tied values. Checked against an independent brute-force enumeration written
 * here (every way of choosing which pooled values are the first sample's), and against SciPy's documented
 * example (scipy.stats.mannwhitneyu, method="exact": males [19, 22, 16, 29, 24] against females [20, 11, 17, 12]
 * gives U1 = 17.0, p = 0.1111111111111111; https://docs.scipy.org/doc/scipy/reference/generated/scipy.stats.mannwhitneyu.html).
 * SciPy itself is not installable here.
 */
import { describe, expect, it } from "vitest";
import { mannWhitneyU } from "../../src/stats/mannWhitney.js";
import { compareConfigurations } from "../../src/scores/compare.js";
import { comparisonSections } from "../../src/report/text.js";
import type { NeighbourhoodScore } from "../../src/scores/neighbourhood.js";

/** Two-sided exact p by enumerating every subset of size n1 of the pooled sample: U counted pair by pair, no ranks. */
function bruteForce(x: number[], y: number[]): { u: number; p: number } {
    const pooled = [...x, ...y];
    const n1 = x.length;
    const uOf = (a: number[], b: number[]) => a.reduce((s, v) => s + b.reduce((t, w) => t + (v > w ? 1 : v === w ? 0.5 : 0), 0), 0);
    const u = uOf(x, y);
    let total = 0,
        le = 0,
        ge = 0;
    const pick = (start: number, chosen: number[]): void => {
        if (chosen.length === n1) {
            const set = new Set(chosen);
            const a = chosen.map((i) => pooled[i]!);
            const b = pooled.filter((_, i) => !set.has(i));
            const v = uOf(a, b);
            total++;
            if (v <= u + 1e-9) le++;
            if (v >= u - 1e-9) ge++;
            return;
        }
        for (let i = start; i <= pooled.length - (n1 - chosen.length); i++) pick(i + 1, [...chosen, i]);
    };
    pick(0, []);
    return { u, p: Math.min(1, (2 * Math.min(le, ge)) / total) };
}

describe("Mann–Whitney U: exact at small n, with ties", () => {
    it("SciPy's documented example (no ties): U1 = 17, p = 1/9", () => {
        const r = mannWhitneyU([19, 22, 16, 29, 24], [20, 11, 17, 12]);
        expect(r.u).toBe(17);
        expect(r.method).toBe("exact");
        expect(r.p).toBeCloseTo(0.1111111111111111, 12);
    });

    it("the case of issue #47: 2 templates against 15, the 2 above all of them, with ties among the 15: p = 2/136 = 0.0147, not < 0.001", () => {
        const x = [1, 1];
        const y = [0.5, 0.5, 0.5, 0.25, 0.25, 0, 0, 0, 0.75, 0.75, 0.5, 0.25, 0, 0.5, 0.75];
        const r = mannWhitneyU(x, y);
        expect(r.method).toBe("exact");
        expect(r.p).toBeCloseTo(2 / 136, 12);
        expect(r.p).toBeCloseTo(bruteForce(x, y).p, 12);
    });

    it("agrees with brute-force enumeration on samples full of ties (scores in quarters, 0/1 scores, all equal)", () => {
        let seed = 7;
        const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
        const cases: [number[], number[]][] = [
            [[0, 0, 1], [1, 1, 0, 1]],
            [[1, 1, 1], [1, 1, 1, 1]],
            [[0.5, 0.5, 1, 0], [0.5, 0, 0, 0.25, 1]]
        ];
        for (let i = 0; i < 20; i++) {
            const n1 = 2 + Math.floor(rand() * 5);
            const n2 = 2 + Math.floor(rand() * 7);
            const draw = () => Math.floor(rand() * 4) / 4;
            cases.push([Array.from({ length: n1 }, draw), Array.from({ length: n2 }, draw)]);
        }
        for (const [x, y] of cases) {
            const r = mannWhitneyU(x, y);
            const b = bruteForce(x, y);
            expect(r.u).toBeCloseTo(b.u, 12);
            expect(r.p, `${JSON.stringify(x)} vs ${JSON.stringify(y)}`).toBeCloseTo(b.p, 10);
        }
    });
});

describe("statistics tables: every – says why", () => {
    it("Shapiro–Wilk with n < 3 or all values equal, and a pair without scored templates", () => {
        const score = (config: string, template: string, v: number): NeighbourhoodScore =>
            ({ config, template, model: config, quantization: null, temperature: 0, wrapper: "default", AS: v, CPS: v, CCS: v }) as unknown as NeighbourhoodScore;
        const scores = [score("a", "t1", 1), score("a", "t2", 0.5), score("b", "t1", 1), score("b", "t2", 1), score("b", "t3", 1)];
        const sections = comparisonSections(compareConfigurations(scores, []));
        const cells = sections.flatMap((s) => s.rows.flat().map(String));
        const dashes = cells.filter((c) => c.includes("–"));
        expect(dashes.length).toBeGreaterThan(0);
        for (const c of dashes) expect(c, c).toMatch(/^– \(.+\)$/);
        expect(cells).toContain("– (n = 2 < 3)");
        expect(cells).toContain("– (all 3 values equal)");
    });
});
