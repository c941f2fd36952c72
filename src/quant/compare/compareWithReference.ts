import type { Category, Outcome } from "../../vocabulary.js";
import { REPORTED_VERDICTS } from "../../scores/aggregates.js";
import { exactMcNemar, type McNemarResult } from "../../stats/index.js";
import { countFlips, type FlipReport } from "../flips/flips.js";
import { pairOutcomes } from "../flips/pairing.js";
import { DELTA_SCORES, scoreDeltas, type DeltaOptions, type DeltaScore, type ScoreDelta } from "./scoreDeltas.js";

/** Per-template scores of both sides, for the breakdown. */
export interface TemplateBreakdown {
    /** Template id. */
    template: string;
    /** Instances compared. */
    instances: number;
    /** Accuracy score of both sides and the difference. */
    AS: { reference: number; candidate: number; delta: number };
    /** Consistent-correctness score of both sides and the difference. */
    CCS: { reference: number; candidate: number; delta: number };
    /** Responses lost (reference passed, candidate failed). */
    lost: number;
    /** Responses gained (reference failed, candidate passed). */
    gained: number;
}

/** Quality of one candidate against the reference on the same instances, rounds and seeds. */
export interface QualityComparison {
    /** Instances compared (at least one round judged as a model outcome on both sides). */
    instances: number;
    /** Each score of both sides with the delta and its interval. */
    scores: Record<DeltaScore, ScoreDelta>;
    /** Exact McNemar tests on per-instance "all rounds passed" and on per-response correctness (b = lost, c = gained). */
    mcnemar: { instance: McNemarResult; response: McNemarResult };
    /** Flip counts and drill-down rows. */
    flips: FlipReport;
    /** The same counts per template. */
    perTemplate: TemplateBreakdown[];
    /** Verdict categories of every candidate response (harness ones included, shown apart by reports). */
    categories: Record<Category, number>;
    /** Same for the reference. */
    referenceCategories: Record<Category, number>;
    /** No score's interval lies wholly below 0 and neither McNemar test finds significantly more losses than gains. */
    notWorse: boolean;
    /**
     * Whether the data could have shown the candidate worse at all: the reference passed `referencePassed`
     * compared responses, and an exact McNemar test reaches significance only when at least `needed` of
     * them are lost (with no gain). Below that, "not significantly worse" says nothing.
     */
    evidence: { referencePassed: number; needed: number; enough: boolean };
}

/** The fewest discordant pairs, all one way, that an exact two-sided McNemar test finds significant at `alpha` (6 at 0.05). */
export function fewestSignificantLosses(alpha: number): number {
    let n = 1;
    while (exactMcNemar(n, 0).p >= alpha && n < 64) n++;
    return n;
}

/** Options of {@link compareWithReference}. */
export interface CompareOptions extends DeltaOptions {
    /** Significance level (default 0.05). */
    alpha?: number;
}

function categoryCounts(outcomes: readonly Outcome[]): Record<Category, number> {
    const out = Object.fromEntries(REPORTED_VERDICTS.map((c) => [c, 0])) as Record<Category, number>;
    for (const o of outcomes) out[o.category] = (out[o.category] ?? 0) + 1;
    return out;
}

/**
 * Compares one quantisation's outcomes with the reference's (SPEC §6): score deltas with
 * paired bootstrap intervals, McNemar per instance and per response, flips with drill-down,
 * per-template and per-category breakdowns, and whether it is not significantly worse.
 */
export function compareWithReference(reference: readonly Outcome[], candidate: readonly Outcome[], opts: CompareOptions = {}): QualityComparison {
    const alpha = opts.alpha ?? 0.05;
    const { instances } = pairOutcomes(reference, candidate);
    const deltas = scoreDeltas(instances, opts);
    const flips = countFlips(reference, candidate);
    const mcnemar = {
        instance: exactMcNemar(flips.instances.lost, flips.instances.gained, flips.instances.bothPassed + flips.instances.bothFailed),
        response: exactMcNemar(flips.responses.lost, flips.responses.gained, flips.responses.bothPassed + flips.responses.bothFailed)
    };
    const perTemplate: TemplateBreakdown[] = flips.perTemplate.map((t) => {
        const d = scoreDeltas(instances.filter((i) => i.template === t.template), { ...opts, resamples: 1 });
        const pick = (s: DeltaScore) => ({ reference: d.scores[s].reference, candidate: d.scores[s].candidate, delta: d.scores[s].delta });
        return { template: t.template, instances: d.instances, AS: pick("AS"), CCS: pick("CCS"), lost: t.responses.lost, gained: t.responses.gained };
    });
    const significantlyWorse = (m: McNemarResult) => m.p < alpha && m.b > m.c;
    const intervalsOk = DELTA_SCORES.every((s) => !(deltas.scores[s].ci.hi < 0));
    return {
        instances: deltas.instances,
        scores: deltas.scores,
        mcnemar,
        flips,
        perTemplate,
        categories: categoryCounts(candidate),
        referenceCategories: categoryCounts(reference),
        notWorse: intervalsOk && !significantlyWorse(mcnemar.instance) && !significantlyWorse(mcnemar.response),
        evidence: ((referencePassed: number, needed: number) => ({ referencePassed, needed, enough: referencePassed >= needed }))(flips.responses.bothPassed + flips.responses.lost, fewestSignificantLosses(alpha))
    };
}
