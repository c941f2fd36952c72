import { describe, expect, it } from "vitest";
import { countFlips } from "../../src/quant/flips/flips.js";
import { pairOutcomes } from "../../src/quant/flips/pairing.js";
import { scoreDeltas } from "../../src/quant/compare/scoreDeltas.js";
import { outcomes } from "./fixtures.js";

// A hand-built case; the expected counts below are worked out by hand, instance by instance.
//   t1#0  PPP / PPP   3 both passed                    instance: both passed
//   t1#1  PPP / PAP   2 both passed, round 1 lost      instance: lost
//   t1#2  FFP / PFP   round 0 gained, 1 both failed,    instance: both failed (neither all passed)
//                     round 2 both passed
//   t2#0  PTP / PPR   round 1 excluded (truncated), round 0 both passed, round 2 lost
//                     instance over rounds 0 and 2: reference 2/2, candidate 1/2 → lost
//   t2#1  JJJ / PPP   all excluded (judge_error)       instance: excluded
const REF = outcomes("F32", { t1: ["PPP", "PPP", "FFP"], t2: ["PTP", "JJJ"] });
const CAND = outcomes("Q4_0", { t1: ["PPP", "PAP", "PFP"], t2: ["PPR", "PPP"] });

describe("flips between a quantisation and the reference", () => {
    it("counts response and instance flips of a hand-built case", () => {
        const f = countFlips(REF, CAND);
        expect(f.responses).toEqual({ pairs: 11, bothPassed: 7, bothFailed: 1, lost: 2, gained: 1, excluded: 4 });
        expect(f.instances).toEqual({ pairs: 4, bothPassed: 1, bothFailed: 1, lost: 2, gained: 0, excluded: 1 });
        expect(f.responseFlips.map((x) => `${x.direction} ${x.template}#${x.instance}/${x.round}`)).toEqual(["lost t1#1/1", "gained t1#2/0", "lost t2#0/2"]);
        expect(f.instanceFlips.map((x) => `${x.direction} ${x.template}#${x.instance} ${x.referencePassed}/${x.rounds}→${x.candidatePassed}/${x.rounds}`)).toEqual([
            "lost t1#1 3/3→2/3",
            "lost t2#0 2/2→1/2"
        ]);
        const lostT1 = f.responseFlips[0]!;
        expect(lostT1.reference.category).toBe("passed");
        expect(lostT1.candidate).toEqual({ category: "assertion_error", detail: "failed A", code: "def f(): return 1" });
        expect(f.transitions).toEqual({
            "passed→passed": 7,
            "passed→assertion_error": 1,
            "fuzzing_failure→passed": 1,
            "fuzzing_failure→fuzzing_failure": 1,
            "passed→runtime_error": 1
        });
        expect(f.perTemplate.map((t) => [t.template, t.responses.lost, t.responses.gained, t.responses.excluded, t.instances.lost])).toEqual([
            ["t1", 1, 1, 0, 1],
            ["t2", 1, 0, 4, 1]
        ]);
        expect(f.unpaired).toBe(0);
    });

    it("has no flips against itself, and counts slots only one side has", () => {
        const self = countFlips(REF, REF);
        expect(self.responses.lost + self.responses.gained + self.instances.lost + self.instances.gained).toBe(0);
        const extra = outcomes("Q4_0", { t1: ["PPP", "PAP", "PFP", "P"] });
        expect(pairOutcomes(REF, extra).unpaired).toBe(REF.length - 9 + 1);
    });
});

describe("score deltas", () => {
    it("matches the hand-computed AS/CPS/CCS of the case, with intervals around the deltas", () => {
        // per usable instance p_ref = (1, 1, 1/3, 1), p_cand = (1, 2/3, 2/3, 1/2):
        // AS 0.8333 → 0.7083 (Δ −0.125); CPS 1 → 1; CCS 3/4 → 1/4 (Δ −0.5)
        const d = scoreDeltas(pairOutcomes(REF, CAND).instances, { seed: 7 });
        expect(d.instances).toBe(4);
        expect(d.scores.AS.reference).toBeCloseTo(10 / 12, 12);
        expect(d.scores.AS.candidate).toBeCloseTo(8.5 / 12, 12);
        expect(d.scores.AS.delta).toBeCloseTo(-0.125, 12);
        expect(d.scores.RLPR.delta).toBeCloseTo(d.scores.AS.delta, 12);
        expect(d.scores.CPS.delta).toBe(0);
        expect(d.scores.CPS.ci).toEqual({ lo: 0, hi: 0 });
        expect(d.scores.CCS.delta).toBeCloseTo(-0.5, 12);
        expect(d.scores.PSR.delta).toBeCloseTo(-0.5, 12);
        for (const s of Object.values(d.scores)) {
            expect(s.ci.lo).toBeLessThanOrEqual(s.delta + 1e-12);
            expect(s.ci.hi).toBeGreaterThanOrEqual(s.delta - 1e-12);
        }
        // per-instance CCS differences are (0, −1, 0, −1): resampled means lie in [−1, 0]
        expect(d.scores.CCS.ci.lo).toBeGreaterThanOrEqual(-1);
        expect(d.scores.CCS.ci.hi).toBeLessThanOrEqual(0);
    });
});
