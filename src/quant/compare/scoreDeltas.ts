import { bootstrapMeanInterval, type Interval } from "../../stats/index.js";
import type { InstancePair } from "../flips/pairing.js";
import { tallyInstance } from "../flips/pairing.js";
import { instanceContribution, RATE_SCORES } from "../../scores/rates.js";

/** The scores compared between quantisations (SPEC §3–§4), defined once in scores/rates.ts: RLPR equals AS and PSR equals CCS over the same data. */
export const DELTA_SCORES = RATE_SCORES;
/** One of {@link DELTA_SCORES}. */
export type DeltaScore = (typeof DELTA_SCORES)[number];

/** A score of the reference and of a candidate on the same instances, with a paired bootstrap interval of the difference. */
export interface ScoreDelta {
    /** Score of the reference. */
    reference: number;
    /** Score of the candidate. */
    candidate: number;
    /** candidate − reference. */
    delta: number;
    /** 95% percentile-bootstrap interval of the delta, resampling instances (paired). */
    ci: Interval;
}

/** Options of {@link scoreDeltas}. */
export interface DeltaOptions {
    /** Bootstrap seed (same seed, same intervals). */
    seed?: number;
    /** Bootstrap resamples (default 2000). */
    resamples?: number;
}

const mean = (xs: readonly number[]): number => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);

/**
 * AS/CPS/CCS/RLPR/PSR of the reference and the candidate over the instances both judged,
 * each delta with a paired bootstrap interval: instances are resampled, and the mean of the
 * per-instance differences is the statistic (so the pairing by instance is kept).
 * p_i counts only rounds neither side has a harness verdict for (truncated, judge_error).
 */
export function scoreDeltas(instances: readonly InstancePair[], opts: DeltaOptions = {}): { instances: number; scores: Record<DeltaScore, ScoreDelta> } {
    const ref: Record<DeltaScore, number>[] = [];
    const cand: Record<DeltaScore, number>[] = [];
    for (const inst of instances) {
        const t = tallyInstance(inst);
        if (t.rounds === 0) continue;
        // The report's per-instance contributions (one definition of AS), over the rounds both sides judged.
        ref.push(instanceContribution(t.rounds, t.referencePassed));
        cand.push(instanceContribution(t.rounds, t.candidatePassed));
    }
    const scores = {} as Record<DeltaScore, ScoreDelta>;
    for (const s of DELTA_SCORES) {
        const r = ref.map((v) => v[s]);
        const c = cand.map((v) => v[s]);
        const diffs = c.map((x, i) => x - (r[i] as number));
        scores[s] = {
            reference: mean(r),
            candidate: mean(c),
            delta: mean(diffs),
            ci: bootstrapMeanInterval(diffs, { seed: opts.seed ?? 0x5eed, resamples: opts.resamples ?? 2000 })
        };
    }
    return { instances: ref.length, scores };
}
