import { isHarness } from "../../scores/neighbourhood.js";
import type { Outcome, ParamValue } from "../../vocabulary.js";

/** Verdicts that are not the model's fault (`truncated`, `judge_error`) are left out of paired comparisons, and counted: the scores' own rule. */
export { isHarness };

/** The same response slot (template, instance, round) answered by the reference and by a candidate. */
export interface ResponsePair {
    /** Template id. */
    template: string;
    /** Instance index in the neighbourhood. */
    instance: number;
    /** Round (repeat) index. */
    round: number;
    /** The instance's parameter tuple. */
    params: ParamValue[];
    /** The reference's outcome. */
    reference: Outcome;
    /** The candidate's outcome. */
    candidate: Outcome;
}

/** One instance of one template with its rounds, as both files answered it. */
export interface InstancePair {
    /** Template id. */
    template: string;
    /** Problem group of the template. */
    group: string;
    /** Instance index in the neighbourhood. */
    instance: number;
    /** The instance's parameter tuple. */
    params: ParamValue[];
    /** Rounds present for both files, in round order. */
    rounds: ResponsePair[];
}

/** Key of a response slot; identical studies give identical keys for every file. */
export function slotKey(o: Pick<Outcome, "template" | "instance" | "round">): string {
    return `${o.template}\u0000${o.instance}\u0000${o.round}`;
}

/**
 * Matches the candidate's outcomes with the reference's slot by slot, grouped per instance
 * (sorted by template, then instance). Slots only one side has are counted in `unpaired`:
 * identical studies have none, so a non-zero count means the studies were not identical.
 */
export function pairOutcomes(reference: readonly Outcome[], candidate: readonly Outcome[]): { instances: InstancePair[]; unpaired: number } {
    const cand = new Map<string, Outcome>();
    for (const o of candidate) cand.set(slotKey(o), o);
    const byInstance = new Map<string, InstancePair>();
    let paired = 0;
    for (const r of reference) {
        const c = cand.get(slotKey(r));
        if (!c) continue;
        paired++;
        const key = `${r.template}\u0000${r.instance}`;
        let inst = byInstance.get(key);
        if (!inst) byInstance.set(key, (inst = { template: r.template, group: r.group, instance: r.instance, params: r.params, rounds: [] }));
        inst.rounds.push({ template: r.template, instance: r.instance, round: r.round, params: r.params, reference: r, candidate: c });
    }
    const instances = [...byInstance.values()].sort((a, b) => (a.template < b.template ? -1 : a.template > b.template ? 1 : a.instance - b.instance));
    for (const i of instances) i.rounds.sort((a, b) => a.round - b.round);
    return { instances, unpaired: reference.length + candidate.length - 2 * paired };
}

/** Per-instance pass counts over the rounds both sides judged as model outcomes (harness verdicts left out on both sides). */
export interface InstanceTally {
    /** Rounds usable on both sides. */
    rounds: number;
    /** Rounds the reference passed. */
    referencePassed: number;
    /** Rounds the candidate passed. */
    candidatePassed: number;
}

/** Tally of one instance pair: a round counts only where neither side has a harness verdict, so both sides see the same rounds. */
export function tallyInstance(pair: InstancePair): InstanceTally {
    let rounds = 0;
    let referencePassed = 0;
    let candidatePassed = 0;
    for (const r of pair.rounds) {
        if (isHarness(r.reference.category) || isHarness(r.candidate.category)) continue;
        rounds++;
        if (r.reference.category === "passed") referencePassed++;
        if (r.candidate.category === "passed") candidatePassed++;
    }
    return { rounds, referencePassed, candidatePassed };
}
