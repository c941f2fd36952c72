import { HARNESS_CATEGORIES, MODEL_CATEGORIES, type Category } from "../judge/types.js";
import type { ParamValue } from "../templates/types.js";
import { bootstrapMeanInterval } from "../stats/bootstrap.js";
import { wilsonInterval, type Interval } from "../stats/wilson.js";
import { passAtK } from "./passAtK.js";
import type { NeighbourhoodKey, Outcome } from "./types.js";

/** The four neighbourhood categories of SPEC §3, plus `no_data` when every response was a harness outcome. */
export const NEIGHBOURHOOD_CATEGORIES = ["perfect_success", "stochastic_failure", "inconsistent_generalisation", "perfect_failure", "no_data"] as const;
/** A neighbourhood category. */
export type NeighbourhoodCategory = (typeof NEIGHBOURHOOD_CATEGORIES)[number];

/** Human labels of the categories. */
export const CATEGORY_LABELS: Record<NeighbourhoodCategory, string> = {
    perfect_success: "Perfect Success",
    stochastic_failure: "Stochastic Failure",
    inconsistent_generalisation: "Inconsistent Generalisation",
    perfect_failure: "Perfect Failure",
    no_data: "No data"
};

/** One instance of a neighbourhood for one configuration. */
export interface InstanceScore {
    instance: number;
    params: ParamValue[];
    /** Responses that count (harness outcomes excluded). */
    n: number;
    /** Correct responses among them. */
    c: number;
    /** Harness outcomes (truncated, judge_error) left out of n. */
    excluded: number;
}

/** Scores of one neighbourhood (template) under one configuration (SPEC §3–§4). */
export interface NeighbourhoodScore extends NeighbourhoodKey {
    /** Instances with at least one counted response (M). */
    M: number;
    /** Rounds asked per instance (R, the largest round count seen). */
    R: number;
    /** Counted responses (Σ n_i). */
    responses: number;
    /** Correct responses. */
    correct: number;
    /** Accuracy Score: correct / counted responses. */
    AS: number;
    /** Correctness-Potential Score: share of instances solved at least once. */
    CPS: number;
    /** Consistent-Correctness Score: share of instances solved in every counted round. */
    CCS: number;
    category: NeighbourhoodCategory;
    /** Run-level pass rate: mean over instances of p_i = c_i / n_i. */
    RLPR: number;
    /** Perfect stability rate: share of instances with p_i = 1 (= CCS). */
    PSR: number;
    /** RLPR − PSR. */
    gap: number;
    /** Average variance: mean of p_i (1 − p_i). */
    AV: number;
    /** Wilson 95% interval of RLPR (responses as trials). */
    RLPR_CI: Interval;
    /** Wilson 95% interval of PSR (instances as trials). */
    PSR_CI: Interval;
    /** Seeded percentile-bootstrap 95% interval of AV (instances resampled). */
    AV_CI: Interval;
    /** Unbiased pass@k for k = 1..R, averaged over instances with at least k counted responses. */
    passAtK: Record<string, number>;
    /** Response counts per verdict category, harness categories included. */
    verdicts: Partial<Record<Category, number>>;
    /** Harness outcomes, shown apart and not counted in any denominator. */
    harness: { truncated: number; judge_error: number };
    instances: InstanceScore[];
}

/** Options for {@link scoreNeighbourhoods}. */
export interface ScoreOptions {
    /** Seed for the AV bootstrap (default 1). */
    seed?: number;
    /** Bootstrap resamples (default 1000). */
    resamples?: number;
}

const HARNESS = new Set<string>(HARNESS_CATEGORIES);

/** True when a verdict category is the harness's fault rather than the model's. */
export function isHarness(category: string): boolean {
    return HARNESS.has(category);
}

/**
 * Scores every (configuration × template) neighbourhood in `outcomes`.
 * `truncated` and `judge_error` responses are excluded from every denominator (an
 * instance whose responses are all such drops out of M) and counted in `harness`;
 * they are never model failures. Without them, AS equals RLPR and CCS equals PSR exactly.
 */
export function scoreNeighbourhoods(outcomes: readonly Outcome[], opts: ScoreOptions = {}): NeighbourhoodScore[] {
    const groups = new Map<string, Outcome[]>();
    for (const o of outcomes) {
        const key = `${o.config}\u0000${o.template}`;
        let list = groups.get(key);
        if (!list) groups.set(key, (list = []));
        list.push(o);
    }
    const out: NeighbourhoodScore[] = [];
    for (const list of groups.values()) out.push(scoreOne(list, opts));
    return out.sort((a, b) => a.config.localeCompare(b.config) || a.template.localeCompare(b.template));
}

function scoreOne(list: Outcome[], opts: ScoreOptions): NeighbourhoodScore {
    const first = list[0]!;
    const byInstance = new Map<number, InstanceScore>();
    const verdicts: Partial<Record<Category, number>> = {};
    const harness = { truncated: 0, judge_error: 0 };
    let R = 0;
    for (const o of list) {
        verdicts[o.category] = (verdicts[o.category] ?? 0) + 1;
        let inst = byInstance.get(o.instance);
        if (!inst) byInstance.set(o.instance, (inst = { instance: o.instance, params: o.params, n: 0, c: 0, excluded: 0 }));
        if (isHarness(o.category)) {
            harness[o.category as keyof typeof harness]++;
            inst.excluded++;
        } else {
            inst.n++;
            if (o.category === "passed") inst.c++;
        }
    }
    const instances = [...byInstance.values()].sort((a, b) => a.instance - b.instance);
    for (const i of instances) R = Math.max(R, i.n + i.excluded);
    const counted = instances.filter((i) => i.n > 0);
    const M = counted.length;
    const responses = counted.reduce((s, i) => s + i.n, 0);
    const correct = counted.reduce((s, i) => s + i.c, 0);
    const p = counted.map((i) => i.c / i.n);
    const AS = responses > 0 ? correct / responses : NaN;
    const CPS = M > 0 ? counted.filter((i) => i.c > 0).length / M : NaN;
    const perfect = counted.filter((i) => i.c === i.n).length;
    const CCS = M > 0 ? perfect / M : NaN;
    const RLPR = M > 0 ? mean(p) : NaN;
    const AV = M > 0 ? averageVariance(p) : NaN;
    const passK: Record<string, number> = {};
    for (let k = 1; k <= R; k++) {
        const eligible = counted.filter((i) => i.n >= k);
        if (eligible.length > 0) passK[String(k)] = mean(eligible.map((i) => passAtK(i.n, i.c, k)));
    }
    return {
        runId: first.runId,
        config: first.config,
        model: first.model,
        quantization: first.quantization,
        temperature: first.temperature,
        wrapper: first.wrapper,
        template: first.template,
        group: first.group,
        subgroups: first.subgroups,
        M,
        R,
        responses,
        correct,
        AS,
        CPS,
        CCS,
        category: categorise(AS, CPS, M),
        RLPR,
        PSR: CCS,
        gap: RLPR - CCS,
        AV,
        RLPR_CI: wilsonInterval(correct, responses),
        PSR_CI: wilsonInterval(perfect, M),
        // AV is the mean of v_i = p_i(1 − p_i): resampling instances is resampling the v_i.
        AV_CI: M > 0 ? bootstrapMeanInterval(p.map((v) => v * (1 - v)), { seed: opts.seed ?? 1, resamples: opts.resamples ?? 1000 }) : { lo: NaN, hi: NaN },
        passAtK: passK,
        verdicts,
        harness,
        instances
    };
}

/** The SPEC §3 category from AS and CPS. */
export function categorise(AS: number, CPS: number, M = 1): NeighbourhoodCategory {
    if (M === 0 || Number.isNaN(AS)) return "no_data";
    if (AS === 1) return "perfect_success";
    if (AS === 0) return "perfect_failure";
    return CPS === 1 ? "stochastic_failure" : "inconsistent_generalisation";
}

/** mean of p(1 − p). */
export function averageVariance(p: readonly number[]): number {
    return mean(p.map((v) => v * (1 - v)));
}

function mean(v: readonly number[]): number {
    return v.length ? v.reduce((a, b) => a + b, 0) / v.length : NaN;
}

/** Model failure categories (everything but `passed`), in check order. */
export const FAILURE_CATEGORIES = MODEL_CATEGORIES.filter((c) => c !== "passed");
