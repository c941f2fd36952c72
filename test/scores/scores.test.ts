import { describe, expect, it } from "vitest";
import {
    categorise,
    compareConfigurations,
    findDiscontinuities,
    findPatterns,
    passAtK,
    scoreNeighbourhoods,
    summariseConfigs,
    summariseGroups,
    summariseTemplates
} from "../../src/scores/index.js";
import { neighbourhood } from "./fixtures.js";

describe("pass@k", () => {
    it("matches 1 − C(n−c,k)/C(n,k) computed by hand", () => {
        expect(passAtK(5, 2, 1)).toBeCloseTo(0.4, 12); // c/n
        expect(passAtK(5, 2, 2)).toBeCloseTo(1 - 3 / 10, 12); // C(3,2)=3, C(5,2)=10
        expect(passAtK(10, 3, 5)).toBeCloseTo(1 - 21 / 252, 12); // C(7,5)=21, C(10,5)=252
        expect(passAtK(5, 0, 3)).toBe(0);
        expect(passAtK(5, 4, 2)).toBe(1); // n − c < k: every k-subset holds a correct sample
    });
    it("stays finite where the binomial coefficients would overflow", () => {
        // n = 2000, c = 1: pass@k = k/n exactly
        expect(passAtK(2000, 1, 100)).toBeCloseTo(100 / 2000, 12);
    });
});

describe("neighbourhood scores (SPEC §3–§4)", () => {
    // 4 instances × 5 rounds, hand-counted: row sums 5, 3, 0, 5 → AS = 13/20, CPS = 3/4, CCS = 2/4
    const m = [
        [1, 1, 1, 1, 1],
        [1, 0, 1, 0, 1],
        [0, 0, 0, 0, 0],
        [1, 1, 1, 1, 1]
    ] as const;
    const [s] = scoreNeighbourhoods(neighbourhood(m.map((r) => [...r])));
    it("computes AS, CPS, CCS and the category", () => {
        expect(s!.AS).toBeCloseTo(13 / 20, 12);
        expect(s!.CPS).toBeCloseTo(3 / 4, 12);
        expect(s!.CCS).toBeCloseTo(2 / 4, 12);
        expect(s!.category).toBe("inconsistent_generalisation");
        expect([s!.M, s!.R]).toEqual([4, 5]);
    });
    it("computes RLPR, PSR, gap and AV", () => {
        // p = [1, .6, 0, 1]: RLPR = 2.6/4 = .65, PSR = .5, gap = .15, AV = (0 + .24 + 0 + 0)/4 = .06
        expect(s!.RLPR).toBeCloseTo(0.65, 12);
        expect(s!.PSR).toBeCloseTo(0.5, 12);
        expect(s!.gap).toBeCloseTo(0.15, 12);
        expect(s!.AV).toBeCloseTo(0.06, 12);
        // Instance-level: s² of p = .67/3, Var(mean) = s²/4, n_eff = .65·.35/Var = 4.0746… (of 20 responses)
        // → Wilson(.65·n_eff, n_eff) = (0.237065021744288, 0.9173532233496058) (closed form, SciPy quantile)
        expect(s!.RLPR_CI.lo).toBeCloseTo(0.237065021744288, 10);
        expect(s!.RLPR_CI.hi).toBeCloseTo(0.9173532233496058, 10);
        expect(s!.AV_CI.lo).toBeLessThanOrEqual(0.06);
        expect(s!.AV_CI.hi).toBeGreaterThanOrEqual(0.06);
    });
    it("averages unbiased pass@k over instances, up to k = R", () => {
        // pass@2 per instance: 1, 1 − C(2,2)/C(5,2) = .9, 0, 1 → mean 2.9/4
        expect(s!.passAtK["1"]).toBeCloseTo(0.65, 12);
        expect(s!.passAtK["2"]).toBeCloseTo(2.9 / 4, 12);
    });
    it("classifies the four categories", () => {
        expect(categorise({ M: 2, perfect: 2, solved: 2 })).toBe("perfect_success");
        expect(categorise({ M: 2, perfect: 0, solved: 0 })).toBe("perfect_failure");
        expect(categorise({ M: 2, perfect: 0, solved: 2 })).toBe("stochastic_failure");
        expect(categorise({ M: 2, perfect: 0, solved: 1 })).toBe("inconsistent_generalisation");
        const [sf] = scoreNeighbourhoods(neighbourhood([[1, 0], [0, 1]]));
        expect(sf!.category).toBe("stochastic_failure");
    });
    it("keeps truncated and judge_error out of the denominators and reports them apart", () => {
        const [h] = scoreNeighbourhoods(
            neighbourhood([
                [1, 1, "truncated"],
                ["judge_error", "judge_error", "judge_error"],
                [1, 0, 1]
            ])
        );
        // instance 1 has no counted response → M = 2 of 3; AS = (2/2 + 2/3)/2 = 5/6; CCS: instance 0 passed all counted rounds
        expect([h!.M, h!.Mtotal]).toEqual([2, 3]);
        expect(h!.AS).toBeCloseTo(5 / 6, 12);
        expect(h!.CPS).toBe(1);
        expect(h!.CCS).toBeCloseTo(1 / 2, 12);
        expect(h!.category).toBe("incomplete"); // 2 of 3 judged: under 90%
        expect(h!.harness).toEqual({ truncated: 1, judge_error: 3, missing: 0 });
        const [summary] = summariseConfigs([h!]);
        expect(summary!.verdictShares.assertion_error).toBeCloseTo(1 / 5, 12);
        expect(summary!.verdictShares).not.toHaveProperty("truncated");
        const [none] = scoreNeighbourhoods(neighbourhood([["truncated"]]));
        expect(none!.category).toBe("no_data");
    });
});

describe("aggregates", () => {
    const outcomes = [
        ...neighbourhood([[1, 1]], { template: "a", group: "list", subgroups: ["indexing"] }),
        ...neighbourhood([[0, 0]], { template: "b", group: "list", subgroups: ["summation"] }),
        ...neighbourhood([[1, 0]], { template: "c", group: "string", subgroups: ["indexing"] }),
        ...neighbourhood([[1, 1]], { template: "a", group: "list", subgroups: ["indexing"], model: "n" })
    ];
    const scores = scoreNeighbourhoods(outcomes);
    it("summarises configurations", () => {
        const cs = summariseConfigs(scores);
        const m = cs.find((c) => c.model === "m")!;
        expect(m.templates).toBe(3);
        expect(m.AS).toBeCloseTo((1 + 0 + 0.5) / 3, 12);
        expect(m.categories.shares.perfect_success).toBeCloseTo(1 / 3, 12);
        expect(m.categories.shares.perfect_failure).toBeCloseTo(1 / 3, 12);
        expect(m.verdictShares.passed).toBeCloseTo(3 / 6, 12);
    });
    it("gives category shares per group and subgroup", () => {
        const g = summariseGroups(scores);
        const listAll = g.find((r) => r.kind === "group" && r.name === "list" && r.config === "all")!;
        expect(listAll.categories.n).toBe(3); // a×m, b×m, a×n
        expect(listAll.categories.shares.perfect_success).toBeCloseTo(2 / 3, 12);
        const idx = g.find((r) => r.kind === "subgroup" && r.name === "indexing" && r.config === "all")!;
        expect(idx.categories.shares.stochastic_failure).toBeCloseTo(1 / 3, 12);
        expect(summariseTemplates(scores).map((t) => t.template)).toEqual(["a", "b", "c"]);
    });
});

describe("discontinuities and patterns", () => {
    // 10 instances (lo, hi) = (i, i+3), except instance 2 with equal bounds and 6 one apart; both never solved.
    const params = (i: number) => (i === 2 ? [5, 5] : i === 6 ? [8, 9] : i === 7 ? [4, 4] : [i, i + 3]);
    const matrix = Array.from({ length: 10 }, (_, i) => (i === 2 || i === 6 ? [0, 0, 0] : i === 9 ? [1, 0, 0] : [1, 1, 1])) as (0 | 1)[][];
    const outcomes = neighbourhood(matrix, { params });
    const scores = scoreNeighbourhoods(outcomes);
    it("finds never-solved and weaker instances in a mostly solved neighbourhood, with failing code", () => {
        const [d] = findDiscontinuities(scores, outcomes);
        expect(d!.medianPassRate).toBe(1);
        expect(d!.instances.map((i) => [i.instance, i.kind])).toEqual([
            [2, "never_solved"],
            [6, "never_solved"],
            [9, "fewer_rounds"]
        ]);
        expect(d!.instances[0]!.params).toEqual([5, 5]);
        expect(d!.instances[0]!.failures[0]!.code).toContain("return 2");
        expect(d!.instances[0]!.failures).toHaveLength(2);
    });
    it("ignores neighbourhoods that are mostly failed", () => {
        const bad = neighbourhood([[0, 0], [0, 0], [1, 1]]);
        expect(findDiscontinuities(scoreNeighbourhoods(bad), bad)).toEqual([]);
    });
    it("names the tuple relations the failing tuples share", () => {
        // failing: [5,5], [8,9] → inclusive/exclusive boundary zone (hi − lo ≤ 1) in both; others: [4,4] only
        const found = findPatterns(
            [
                [5, 5],
                [8, 9]
            ],
            [
                [0, 3],
                [1, 4],
                [4, 4],
                [3, 6]
            ]
        );
        const ids = found.map((f) => f.id);
        expect(ids[0]).toBe("incl:p1,p2");
        expect(found[0]!.failing).toEqual([2, 2]);
        expect(found[0]!.others).toEqual([1, 4]);
        expect(ids).toContain("eq:p1,p2"); // 1/2 failing vs 1/4 others
        expect(ids).toContain("adj:p1,p2");
        expect(ids).not.toContain("zero:p1"); // no failing tuple has lo = 0
        expect(findPatterns([[0, 3]], [[1, 4], [2, 5]]).map((f) => f.id)).toContain("zero:p1");
    });
});

describe("comparisons", () => {
    // Two configurations over 8 templates; config A solves everything, B fails instance 0 on every template.
    const make = (model: string, temperature: number, fail: boolean) =>
        Array.from({ length: 8 }, (_, t) =>
            neighbourhood(
                [
                    fail ? [0, 0] : [1, 1],
                    [1, t % 2 === 0 && fail ? 0 : 1],
                    [1, 1]
                ],
                { template: `t${t}`, model, temperature }
            )
        ).flat();
    const outcomes = [...make("m", 0, false), ...make("m", 0.8, true)];
    const cmp = compareConfigurations(scoreNeighbourhoods(outcomes), outcomes);
    it("builds pairwise U/δ and the temperature table", () => {
        expect(cmp.configs).toEqual(["m t=0 default", "m t=0.8 default"]);
        const as = cmp.pairwise.find((r) => r.score === "AS")!;
        // every A value (1) exceeds every B value (< 1) → δ = 1, U = 64; ties within samples → normal approximation
        expect(as.delta).toBe(1);
        expect(as.magnitude).toBe("large");
        expect(as.u).toBe(64);
        expect(as.significant).toBe(true);
        const t = cmp.temperature.filter((r) => r.model === "m");
        expect(t.map((r) => r.score)).toEqual(["AS", "CPS", "CCS"]);
        expect(t[0]!.delta).toBe(1);
        expect(cmp.normality.find((r) => r.score === "AS" && r.config === "m t=0 default")!.w).toBeNaN(); // all equal
    });
    it("runs exact McNemar on paired instances and lists the flips", () => {
        const [p] = cmp.paired;
        expect(p!.instances).toBe(24);
        // all-passed lost in B: instance 0 of 8 templates + instance 1 of 4 templates = 12; none gained
        expect([p!.allPassed.b, p!.allPassed.c]).toEqual([12, 0]);
        expect(p!.allPassed.p).toBeCloseTo(2 * 0.5 ** 12, 12);
        expect(p!.lostInB).toHaveLength(12);
        expect(p!.gainedInB).toHaveLength(0);
        // responses: 16 + 4 = 20 discordant, all one way
        expect([p!.perResponse.b, p!.perResponse.c]).toEqual([20, 0]);
    });
});
