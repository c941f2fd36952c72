import { describe, expect, it } from "vitest";
import { scoreDeltas } from "../../src/quant/compare/scoreDeltas.js";
import { pairOutcomes } from "../../src/quant/flips/pairing.js";
import {
    categorise,
    findDiscontinuities,
    isFewerRounds,
    medianRate,
    mostlySolved,
    passAtK,
    plannedKey,
    scoreNeighbourhoods,
    summariseConfigs
} from "../../src/scores/index.js";
import { neighbourhood, type Cell } from "./fixtures.js";

/** A row of R rounds with `c` passes first. */
const row = (R: number, c: number): Cell[] => Array.from({ length: R }, (_, j) => (j < c ? 1 : 0));

describe("discontinuity rule: exact rational comparison (SPEC §3)", () => {
    // The nine (R, median) pairs up to R = 10 where the float rule `rate <= median - 0.5` missed the
    // boundary. Each neighbourhood has 4 instances with the given passes per R rounds; the median is
    // the mean of the two middle rates. By hand, the lowest instance sits exactly at median − ½:
    //   R=3:  median (2/3+3/3)/2 = 5/6,    5/6 − 1/2 = 1/3  = 1/3
    //   R=5:  median (3/5+4/5)/2 = 7/10,   7/10 − 1/2 = 1/5
    //   R=6:  median (4/6+4/6)/2 = 2/3,    2/3 − 1/2 = 1/6
    //   R=6:  median (4/6+6/6)/2 = 5/6,    5/6 − 1/2 = 2/6
    //   R=7:  median (4/7+5/7)/2 = 9/14,   9/14 − 7/14 = 1/7
    //   R=9:  median (3/9+8/9)/2 = 11/18,  11/18 − 9/18 = 1/9
    //   R=9:  median (7/9+8/9)/2 = 5/6,    15/18 − 9/18 = 3/9
    //   R=10: median (6/10+6/10)/2 = 3/5,  3/5 − 1/2 = 1/10
    //   R=10: median (7/10+7/10)/2 = 7/10, 7/10 − 1/2 = 2/10
    const cases: { R: number; passes: number[]; median: [number, number] }[] = [
        { R: 3, passes: [1, 2, 3, 3], median: [5, 6] },
        { R: 5, passes: [1, 3, 4, 5], median: [7, 10] },
        { R: 6, passes: [1, 4, 4, 6], median: [2, 3] },
        { R: 6, passes: [2, 4, 6, 6], median: [5, 6] },
        { R: 7, passes: [1, 4, 5, 7], median: [9, 14] },
        { R: 9, passes: [1, 3, 8, 9], median: [11, 18] },
        { R: 9, passes: [3, 7, 8, 9], median: [5, 6] },
        { R: 10, passes: [1, 6, 6, 10], median: [3, 5] },
        { R: 10, passes: [2, 7, 7, 10], median: [7, 10] }
    ];
    for (const { R, passes, median } of cases)
        it(`R=${R}, median ${median[0]}/${median[1]}: the instance solved ${passes[0]}/${R} is found`, () => {
            const outcomes = neighbourhood(passes.map((c) => row(R, c)));
            const [d] = findDiscontinuities(scoreNeighbourhoods(outcomes), outcomes);
            expect(d, "a discontinuity is reported").toBeDefined();
            const [num, den] = d!.median;
            expect(num * median[1]).toBe(median[0] * den); // same fraction
            expect(d!.instances.map((i) => [i.instance, i.kind, i.passed, i.rounds])).toEqual([[0, "fewer_rounds", passes[0], R]]);
            // One more pass puts it above the boundary: nothing is reported.
            const above = neighbourhood([row(R, passes[0]! + 1), ...passes.slice(1).map((c) => row(R, c))]);
            const sAbove = scoreNeighbourhoods(above);
            // (the median is unchanged when the lowest instance stays lowest; the boundary is strict above)
            expect(findDiscontinuities(sAbove, above).flatMap((x) => x.instances.map((i) => i.instance))).not.toContain(0);
        });

    it("compares rates with different numbers of judged rounds exactly", () => {
        // judged rates 1/3, 2/3, 3/3, 2/2 (one round truncated): median (2/3 + 1)/2 = 5/6; 1/3 = 5/6 − 1/2 → found
        const outcomes = neighbourhood([[1, 0, 0], [1, 1, 0], [1, 1, 1], [1, 1, "truncated"]]);
        const [s] = scoreNeighbourhoods(outcomes);
        expect(medianRate(s!.instances)).toEqual([15, 18]);
        expect(isFewerRounds({ c: 1, n: 3 }, [15, 18])).toBe(true);
        expect(isFewerRounds({ c: 2, n: 3 }, [15, 18])).toBe(false);
        expect(findDiscontinuities([s!], outcomes)[0]!.instances.map((i) => i.instance)).toEqual([0]);
    });

    it("counts a median of exactly ½ as mostly solved, and a lower one not", () => {
        expect(mostlySolved([1, 2])).toBe(true);
        expect(mostlySolved([5, 12])).toBe(false);
        // rates 0, 1/2, 1/2, 1: median 1/2 → the never-solved instance is reported; 1/2 > 1/2 − 1/2 is not
        const half = neighbourhood([row(2, 0), row(2, 1), row(2, 1), row(2, 2)]);
        expect(findDiscontinuities(scoreNeighbourhoods(half), half)[0]!.instances.map((i) => [i.instance, i.kind])).toEqual([[0, "never_solved"]]);
        // rates 0, 0, 1/2, 1: median 1/4 → not mostly solved, nothing reported
        const low = neighbourhood([row(2, 0), row(2, 0), row(2, 1), row(2, 2)]);
        expect(findDiscontinuities(scoreNeighbourhoods(low), low)).toEqual([]);
    });
});

describe("AS and RLPR: one definition (mean of per-instance rates over judged instances)", () => {
    it("with harness outcomes excluded, AS = RLPR = mean of c_i/n_i, not the pooled share", () => {
        // judged: instance 0 2/2 (one truncated), instance 1 2/3 → AS = (1 + 2/3)/2 = 5/6 (pooled would be 4/5)
        const [s] = scoreNeighbourhoods(neighbourhood([[1, 1, "truncated"], [1, 0, 1]]));
        expect(s!.AS).toBeCloseTo(5 / 6, 12);
        expect(s!.RLPR).toBe(s!.AS);
        expect(s!.CCS).toBeCloseTo(1 / 2, 12);
        expect(s!.PSR).toBe(s!.CCS);
        expect(s!.passAtK["1"]).toBeCloseTo(5 / 6, 12);
    });
    it("equals SPEC's Σ o / (M·R) when nothing is excluded", () => {
        // 3 × 4: row sums 4, 1, 2 → 7/12
        const [s] = scoreNeighbourhoods(neighbourhood([row(4, 4), row(4, 1), row(4, 2)]));
        expect(s!.AS).toBeCloseTo(7 / 12, 12);
        expect(s!.RLPR).toBe(s!.AS);
    });
    it("is the AS of the quantisation comparison too", () => {
        const outcomes = neighbourhood([[1, 1, "truncated"], [1, 0, 1], ["judge_error", 0, 0]]);
        const [s] = scoreNeighbourhoods(outcomes);
        const d = scoreDeltas(pairOutcomes(outcomes, outcomes).instances, { resamples: 10 });
        // (1 + 2/3 + 0)/3 on both sides
        expect(s!.AS).toBeCloseTo(5 / 9, 12);
        expect(d.scores.AS.reference).toBe(s!.AS);
        expect(d.scores.RLPR.candidate).toBe(s!.RLPR);
        expect(d.scores.CCS.reference).toBe(s!.CCS);
        expect(d.scores.CPS.reference).toBe(s!.CPS);
    });
});

describe("pass@k rule: only for k up to every judged instance's judged rounds", () => {
    it("does not average over a shrinking set of instances (the case where pass@2 fell below pass@1)", () => {
        // instance 0: 1 judged round (passed), 2 truncated; instance 1: 3 judged, none passed.
        // Averaging over instances with n ≥ k gave pass@1 = 1/2, pass@2 = 0. Now pass@2 is not computable.
        const [s] = scoreNeighbourhoods(neighbourhood([[1, "truncated", "truncated"], [0, 0, 0]]));
        expect(s!.passAtK).toEqual({ "1": 0.5 });
        expect(s!.passAtKNote).toBe("pass@k for k > 1 not computable: instance 0 has 1 judged round(s) of 3");
        const [c] = summariseConfigs([s!]);
        expect(c!.passAtK).toEqual({ "1": 0.5 });
        expect(c!.passAtKNote).toMatch(/k > 1 not computable \(t1: instance 0 has 1 judged round\(s\) of 3\)/);
    });
    it("reaches k = R when every instance is judged in every round (hand-computed)", () => {
        // instance 0: 1 of 3, instance 1: 3 of 3. pass@2 = (1 − C(2,2)/C(3,2) + 1)/2 = (2/3 + 1)/2 = 5/6
        const [s] = scoreNeighbourhoods(neighbourhood([row(3, 1), row(3, 3)]));
        expect(Object.keys(s!.passAtK)).toEqual(["1", "2", "3"]);
        expect(s!.passAtK["2"]).toBeCloseTo(5 / 6, 12);
        expect(s!.passAtK["3"]).toBe(1);
        expect(s!.passAtKNote).toBeNull();
    });
    it("never falls as k rises, per neighbourhood and per configuration (random studies with exclusions)", () => {
        let seed = 12345;
        const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
        const cells: Cell[] = [1, 0, "truncated", "judge_error"];
        let checked = 0;
        for (let trial = 0; trial < 40; trial++) {
            const outcomes = Array.from({ length: 3 }, (_, t) =>
                neighbourhood(
                    Array.from({ length: 5 }, () => Array.from({ length: 6 }, () => cells[rand() < 0.85 ? (rand() < 0.5 ? 0 : 1) : rand() < 0.5 ? 2 : 3]!)),
                    { template: `t${t}` }
                )
            ).flat();
            const scores = scoreNeighbourhoods(outcomes, { resamples: 10 });
            for (const table of [...scores.map((s) => s.passAtK), ...summariseConfigs(scores).map((c) => c.passAtK)]) {
                const v = Object.keys(table)
                    .sort((a, b) => Number(a) - Number(b))
                    .map((k) => table[k]!);
                for (let k = 1; k < v.length; k++) {
                    expect(v[k]!).toBeGreaterThanOrEqual(v[k - 1]! - 1e-12);
                    checked++;
                }
            }
        }
        expect(checked, "monotonicity was actually checked").toBeGreaterThan(100);
    });
    it("the estimator itself is non-decreasing in k for fixed n and c", () => {
        for (let n = 1; n <= 12; n++) for (let c = 0; c <= n; c++) for (let k = 1; k < n; k++) expect(passAtK(n, c, k + 1)).toBeGreaterThanOrEqual(passAtK(n, c, k) - 1e-12);
    });
});

describe("coverage: instances without a judged response stay visible and block the category", () => {
    it("an instance whose rounds are all truncated leaves M but not M_total, and withholds the category", () => {
        // 3 of 4 instances judged, all passed: without the rule this would be Perfect Success.
        const [s] = scoreNeighbourhoods(neighbourhood([[1, 1], [1, 1], [1, 1], ["truncated", "judge_error"]]));
        expect([s!.M, s!.Mtotal]).toEqual([3, 4]);
        expect(s!.AS).toBe(1);
        expect(s!.category).toBe("incomplete");
        const [c] = summariseConfigs([s!]);
        expect(c!.coverage).toEqual({ judged: 3, total: 4 });
        expect(c!.uncategorised).toBe(1);
        expect(c!.categories.shares.incomplete).toBe(1);
    });
    it("counts planned instances without any response, with 90% judged as the boundary (10·M ≥ 9·M_total)", () => {
        const nine = neighbourhood(Array.from({ length: 9 }, () => [1, 1]), { runId: "r" });
        const planned = new Map([[plannedKey("r", "t1"), { instances: 10, rounds: 2 }]]);
        const [s9] = scoreNeighbourhoods(nine, { planned });
        expect([s9!.M, s9!.Mtotal, s9!.category]).toEqual([9, 10, "perfect_success"]); // exactly 90%
        expect(s9!.harness.missing).toBe(2); // the tenth instance's 2 planned rounds
        const [s8] = scoreNeighbourhoods(nine.filter((o) => o.instance !== 8), { planned });
        expect([s8!.M, s8!.Mtotal, s8!.category]).toEqual([8, 10, "incomplete"]); // 80%
        const [none] = scoreNeighbourhoods(neighbourhood([["truncated"]]));
        expect([none!.M, none!.Mtotal, none!.category]).toEqual([0, 1, "no_data"]);
    });
    it("a planned template whose answers are all missing still counts: No data, its instances in the coverage denominator", () => {
        // Template t1 answered on 4 instances; t2 planned with 5 instances × 2 rounds and not one outcome.
        const t1 = neighbourhood([[1, 1], [1, 0], [1, 1], [0, 0]], { runId: "r" });
        const planned = new Map([
            [plannedKey("r", "t1"), { instances: 4, rounds: 2 }],
            [plannedKey("r", "t2"), { instances: 5, rounds: 2, group: "list", subgroups: ["slicing"] }]
        ]);
        const scores = scoreNeighbourhoods(t1, { planned });
        expect(scores.map((s) => s.template)).toEqual(["t1", "t2"]);
        const t2 = scores[1]!;
        expect([t2.config, t2.M, t2.Mtotal, t2.R, t2.category, t2.group, t2.harness.missing]).toEqual([scores[0]!.config, 0, 5, 2, "no_data", "list", 10]);
        const [c] = summariseConfigs(scores);
        expect(c!.coverage).toEqual({ judged: 4, total: 9 });
        expect(c!.harness.missing).toBe(10);
        expect([c!.categories.n, c!.categories.shares.no_data]).toEqual([2, 0.5]);
        // A planned template of another run is not this configuration's.
        const other = scoreNeighbourhoods(t1, { planned: new Map([[plannedKey("other", "t2"), { instances: 5, rounds: 2 }]]) });
        expect(other.map((s) => s.template)).toEqual(["t1"]);
    });
    it("uses the planned R, so a round missing everywhere shows and limits pass@k", () => {
        // 3 instances, R = 3 planned, every third round missing (e.g. absent from a replay file).
        const two = neighbourhood([[1, 1], [1, 0], [1, 1]], { runId: "r" });
        const [seen] = scoreNeighbourhoods(two);
        expect([seen!.R, seen!.passAtKNote, seen!.harness.missing]).toEqual([2, null, 0]);
        const [s] = scoreNeighbourhoods(two, { planned: new Map([[plannedKey("r", "t1"), { instances: 3, rounds: 3 }]]) });
        expect(s!.R).toBe(3);
        expect(s!.harness.missing).toBe(3); // 3 × 3 planned − 6 outcomes
        expect(Object.keys(s!.passAtK)).toEqual(["1", "2"]);
        expect(s!.passAtKNote).toMatch(/k > 2|not computable/);
        // Same as a truncated third round would give, except that the missing answers are counted as such.
        const [t] = scoreNeighbourhoods(neighbourhood([[1, 1, "truncated"], [1, 0, "truncated"], [1, 1, "truncated"]], { runId: "r" }));
        expect([t!.R, t!.harness.truncated, t!.harness.missing, t!.AS]).toEqual([3, 3, 0, s!.AS]);
        expect(t!.passAtKNote).toBe(s!.passAtKNote);
        expect(summariseConfigs([s!])[0]!.harness).toEqual({ truncated: 0, judge_error: 0, missing: 3 });
    });
    it("categorises from integer counts", () => {
        expect(categorise({ M: 4, perfect: 4, solved: 4 })).toBe("perfect_success");
        expect(categorise({ M: 4, perfect: 0, solved: 0 })).toBe("perfect_failure");
        expect(categorise({ M: 4, perfect: 1, solved: 4 })).toBe("stochastic_failure");
        expect(categorise({ M: 4, perfect: 1, solved: 3 })).toBe("inconsistent_generalisation");
        expect(categorise({ M: 9, Mtotal: 10, perfect: 9, solved: 9 })).toBe("perfect_success");
        expect(categorise({ M: 17, Mtotal: 19, perfect: 17, solved: 17 })).toBe("incomplete"); // 170 < 171
        expect(categorise({ M: 0, Mtotal: 5, perfect: 0, solved: 0 })).toBe("no_data");
    });
});
