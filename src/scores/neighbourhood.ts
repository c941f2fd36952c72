import { HARNESS_CATEGORIES, MODEL_CATEGORIES, type Category, type HarnessCategory, type NeighbourhoodKey, type Outcome, type ParamValue } from "../vocabulary.js";
import { bootstrapMeanInterval } from "../stats/bootstrap.js";
import { instanceRateInterval, wilsonInterval, type Interval } from "../stats/wilson.js";
import { passAtK } from "./passAtK.js";
import { scoresOverInstances } from "./rates.js";

/**
 * The four neighbourhood categories of SPEC §3, plus `incomplete` when fewer than
 * {@link CATEGORY_COVERAGE} of the neighbourhood's instances have a judged response, and `no_data`
 * when none has.
 */
export const NEIGHBOURHOOD_CATEGORIES = ["perfect_success", "stochastic_failure", "inconsistent_generalisation", "perfect_failure", "incomplete", "no_data"] as const;
/** A neighbourhood category. */
export type NeighbourhoodCategory = (typeof NEIGHBOURHOOD_CATEGORIES)[number];

/**
 * A neighbourhood gets one of the four categories only when at least this share of its instances
 * is judged (9 of 10; compared in integers: 10·M ≥ 9·M_total). Below it, a category could rest on the
 * instances that happened to be judged: a quarter of the instances never evaluated must not read as
 * "Perfect Success".
 */
export const CATEGORY_COVERAGE = { numerator: 9, denominator: 10 } as const;

/** Human labels of the categories. */
export const CATEGORY_LABELS: Record<NeighbourhoodCategory, string> = {
    perfect_success: "Perfect Success",
    stochastic_failure: "Stochastic Failure",
    inconsistent_generalisation: "Inconsistent Generalisation",
    perfect_failure: "Perfect Failure",
    incomplete: "Not categorised (under 90% judged)",
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
    /** Judged instances: those with at least one counted response (M). */
    M: number;
    /** Instances in the neighbourhood: planned by the run when known, else those with any response. M of M_total are judged. */
    Mtotal: number;
    /** Rounds asked per instance: R as the run planned it when known, else the largest round count seen. */
    R: number;
    /** Counted responses (Σ n_i). */
    responses: number;
    /** Correct responses. */
    correct: number;
    /** Accuracy Score: mean over judged instances of p_i = c_i / n_i (= Σ o / (M·R) when nothing is excluded). */
    AS: number;
    /** Correctness-Potential Score: share of judged instances solved at least once. */
    CPS: number;
    /** Consistent-Correctness Score: share of judged instances solved in every counted round. */
    CCS: number;
    category: NeighbourhoodCategory;
    /** Run-level pass rate: mean over judged instances of p_i (= AS, by definition). */
    RLPR: number;
    /** Perfect stability rate: share of instances with p_i = 1 (= CCS). */
    PSR: number;
    /** RLPR − PSR. */
    gap: number;
    /** Average variance: mean of p_i (1 − p_i). */
    AV: number;
    /** 95% interval of RLPR: Wilson at the instances' effective sample size (see stats/wilson.ts instanceRateInterval). */
    RLPR_CI: Interval;
    /** Wilson 95% interval of PSR (instances as trials). */
    PSR_CI: Interval;
    /** Seeded percentile-bootstrap 95% interval of AV (instances resampled). */
    AV_CI: Interval;
    /** Unbiased pass@k, mean over the judged instances, for k = 1 … the fewest judged rounds of any judged instance. */
    passAtK: Record<string, number>;
    /** Why pass@k stops before k = R (null when it reaches R). */
    passAtKNote: string | null;
    /** Response counts per verdict category, harness categories included. */
    verdicts: Partial<Record<Category, number>>;
    /**
     * Harness outcomes, shown apart and not counted in any denominator. `missing`: planned answers
     * (M_total × R) with no outcome at all: absent from a replay file, or not generated or judged yet.
     */
    harness: HarnessCounts;
    instances: InstanceScore[];
}

/** Options for {@link scoreNeighbourhoods}. */
export interface ScoreOptions {
    /** Seed for the AV bootstrap (default 1). */
    seed?: number;
    /** Bootstrap resamples (default 1000). */
    resamples?: number;
    /**
     * What each run planned per template, keyed by {@link plannedKey}: its instances (an instance
     * planned but without any judged response counts as not judged) and rounds (R). Without it,
     * M_total is the instances seen and R the largest round count seen.
     */
    planned?: ReadonlyMap<string, PlannedNeighbourhood>;
}

/** What a run planned for one template. */
export interface PlannedNeighbourhood {
    instances: number;
    rounds: number;
    /** The template's problem group and subgroups: a planned template without any outcome still shows under them. */
    group?: string;
    subgroups?: string[];
}

/** Outcomes that are not the model's, per neighbourhood or configuration. */
export interface HarnessCounts {
    truncated: number;
    judge_error: number;
    /** Planned answers with no outcome (absent from a replay file, or not generated or judged yet). */
    missing: number;
}

/** Key of {@link ScoreOptions.planned}. */
export function plannedKey(runId: string, template: string): string {
    return `${runId}\u0000${template}`;
}

const HARNESS = new Set<string>(HARNESS_CATEGORIES);

/** True when a verdict category is the harness's fault rather than the model's. */
export function isHarness(category: string): boolean {
    return HARNESS.has(category);
}

/**
 * Scores every (configuration × template) neighbourhood in `outcomes`.
 * `truncated` and `judge_error` responses are excluded from every denominator and counted in
 * `harness`; they are never model failures. An instance whose responses are all such is not
 * judged: it leaves M but stays in M_total, and the category needs M ≥ 90% of M_total.
 */
export function scoreNeighbourhoods(outcomes: readonly Outcome[], opts: ScoreOptions = {}): NeighbourhoodScore[] {
    const groups = groupByNeighbourhood(outcomes);
    const out: NeighbourhoodScore[] = [];
    for (const list of groups.values()) out.push(scoreOne(list, opts));
    out.push(...unanswered(groups, opts.planned));
    return out.sort((a, b) => a.config.localeCompare(b.config) || a.template.localeCompare(b.template));
}

/** Outcomes grouped per neighbourhood (key: configuration label and template), each group in the order its answers came. */
export function groupByNeighbourhood(outcomes: readonly Outcome[]): Map<string, Outcome[]> {
    const groups = new Map<string, Outcome[]>();
    for (const o of outcomes) {
        const key = `${o.config}\u0000${o.template}`;
        let list = groups.get(key);
        if (!list) groups.set(key, (list = []));
        list.push(o);
    }
    return groups;
}

/** The `no_data` neighbourhoods {@link scoreNeighbourhoods} adds for these outcomes: for callers that score neighbourhoods piecewise (the viewer rescores only what changed). */
export function unansweredNeighbourhoods(groups: ReadonlyMap<string, readonly Outcome[]>, planned: ReadonlyMap<string, PlannedNeighbourhood> | undefined): NeighbourhoodScore[] {
    return unanswered(groups, planned);
}

/**
 * The planned neighbourhoods of each configuration that have no outcome at all (every answer missing
 * from a replay file, or not generated yet): they are part of the study, so they show as `no_data`
 * with all their planned answers missing, and count in every coverage denominator.
 */
function unanswered(groups: ReadonlyMap<string, readonly Outcome[]>, planned: ReadonlyMap<string, PlannedNeighbourhood> | undefined): NeighbourhoodScore[] {
    if (!planned?.size) return [];
    // Each configuration's first outcome (its first group's first, groups being in the order their answers came).
    const configs = new Map<string, Outcome>();
    for (const g of groups.values()) if (g[0] && !configs.has(g[0].config)) configs.set(g[0].config, g[0]);
    const out: NeighbourhoodScore[] = [];
    for (const [key, plan] of planned) {
        const [runId, template] = key.split("\u0000") as [string, string];
        for (const c of configs.values()) {
            if (c.runId !== runId || groups.has(`${c.config}\u0000${template}`)) continue;
            const none: Interval = { lo: NaN, hi: NaN };
            out.push({
                runId,
                config: c.config,
                model: c.model,
                quantization: c.quantization,
                temperature: c.temperature,
                wrapper: c.wrapper,
                template,
                group: plan.group ?? "",
                subgroups: plan.subgroups ?? [],
                M: 0,
                Mtotal: plan.instances,
                R: plan.rounds,
                responses: 0,
                correct: 0,
                AS: NaN,
                CPS: NaN,
                CCS: NaN,
                category: "no_data",
                RLPR: NaN,
                PSR: NaN,
                gap: NaN,
                AV: NaN,
                RLPR_CI: none,
                PSR_CI: none,
                AV_CI: none,
                passAtK: {},
                passAtKNote: plan.rounds > 0 ? "no judged instance" : null,
                verdicts: {},
                harness: { truncated: 0, judge_error: 0, missing: plan.instances * plan.rounds },
                instances: []
            });
        }
    }
    return out;
}

function scoreOne(list: Outcome[], opts: ScoreOptions): NeighbourhoodScore {
    const first = list[0]!;
    const byInstance = new Map<number, InstanceScore>();
    const verdicts: Partial<Record<Category, number>> = {};
    const harness: HarnessCounts = { truncated: 0, judge_error: 0, missing: 0 };
    let R = 0;
    for (const o of list) {
        verdicts[o.category] = (verdicts[o.category] ?? 0) + 1;
        let inst = byInstance.get(o.instance);
        if (!inst) byInstance.set(o.instance, (inst = { instance: o.instance, params: o.params, n: 0, c: 0, excluded: 0 }));
        if (isHarness(o.category)) {
            harness[o.category as HarnessCategory]++;
            inst.excluded++;
        } else {
            inst.n++;
            if (o.category === "passed") inst.c++;
        }
    }
    const instances = [...byInstance.values()].sort((a, b) => a.instance - b.instance);
    for (const i of instances) R = Math.max(R, i.n + i.excluded);
    // The planned R, not the most rounds seen: a round missing everywhere must still show (and limit pass@k).
    const plan = opts.planned?.get(plannedKey(first.runId, first.template));
    R = Math.max(R, plan?.rounds ?? 0);
    const counted = instances.filter((i) => i.n > 0);
    const M = counted.length;
    const Mtotal = Math.max(instances.length, plan?.instances ?? 0);
    harness.missing = Math.max(0, Mtotal * R - list.length);
    const responses = counted.reduce((s, i) => s + i.n, 0);
    const correct = counted.reduce((s, i) => s + i.c, 0);
    const perfect = counted.filter((i) => i.c === i.n).length;
    const solved = counted.filter((i) => i.c > 0).length;
    const r = scoresOverInstances(counted);
    const p = counted.map((i) => i.c / i.n);
    const AV = M > 0 ? averageVariance(p) : NaN;
    const { passAtK: passK, note } = neighbourhoodPassAtK(counted, R);
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
        Mtotal,
        R,
        responses,
        correct,
        AS: r.AS,
        CPS: r.CPS,
        CCS: r.CCS,
        category: categorise({ M, Mtotal, perfect, solved }),
        RLPR: r.RLPR,
        PSR: r.PSR,
        gap: r.RLPR - r.PSR,
        AV,
        // Instances are the units of RLPR (a mean of c_i/n_i): an effective-sample-size Wilson interval.
        RLPR_CI: instanceRateInterval(counted),
        PSR_CI: M > 0 ? wilsonInterval(perfect, M) : { lo: NaN, hi: NaN },
        // AV is the mean of v_i = p_i(1 − p_i): resampling instances is resampling the v_i.
        AV_CI: M > 0 ? bootstrapMeanInterval(p.map((v) => v * (1 - v)), { seed: opts.seed ?? 1, resamples: opts.resamples ?? 1000 }) : { lo: NaN, hi: NaN },
        passAtK: passK,
        passAtKNote: note,
        verdicts,
        harness,
        instances
    };
}

/**
 * pass@k of a neighbourhood: the mean of the unbiased per-instance estimates over every judged
 * instance, for k = 1 … min_i n_i. Beyond the fewest judged rounds of any instance it is not
 * computable (averaging over only the instances with n_i ≥ k would change the instances averaged as
 * k grows, and pass@k could then fall as k rises). Over a fixed set of instances each estimate, hence
 * the mean, never falls as k rises.
 */
export function neighbourhoodPassAtK(judged: readonly { instance: number; n: number; c: number }[], R: number): { passAtK: Record<string, number>; kMax: number; note: string | null } {
    const out: Record<string, number> = {};
    if (judged.length === 0) return { passAtK: out, kMax: 0, note: R > 0 ? "no judged instance" : null };
    let fewest = judged[0]!;
    for (const i of judged) if (i.n < fewest.n) fewest = i;
    const kMax = fewest.n;
    for (let k = 1; k <= kMax; k++) out[String(k)] = judged.reduce((s, i) => s + passAtK(i.n, i.c, k), 0) / judged.length;
    const note = kMax < R ? `pass@k for k > ${kMax} not computable: instance ${fewest.instance} has ${kMax} judged round(s) of ${R}` : null;
    return { passAtK: out, kMax, note };
}

/**
 * The SPEC §3 category from integer counts (no float equality): M judged of M_total instances,
 * `perfect` solved in every judged round, `solved` solved at least once.
 * Perfect Success ⟺ AS = 1 ⟺ every judged instance perfect; Perfect Failure ⟺ AS = 0 ⟺ none solved;
 * otherwise Stochastic Failure when every judged instance is solved at least once (CPS = 1), else
 * Inconsistent Generalisation. `incomplete` below the coverage rule, `no_data` when M = 0.
 */
export function categorise(c: { M: number; Mtotal?: number; perfect: number; solved: number }): NeighbourhoodCategory {
    const total = Math.max(c.M, c.Mtotal ?? c.M);
    if (c.M === 0) return "no_data";
    if (CATEGORY_COVERAGE.denominator * c.M < CATEGORY_COVERAGE.numerator * total) return "incomplete";
    if (c.perfect === c.M) return "perfect_success";
    if (c.solved === 0) return "perfect_failure";
    return c.solved === c.M ? "stochastic_failure" : "inconsistent_generalisation";
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
