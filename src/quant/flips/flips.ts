import type { Category, Outcome, ParamValue } from "../../vocabulary.js";
import { isHarness, pairOutcomes, tallyInstance, type InstancePair } from "./pairing.js";

/** "lost": solved by the reference, failed by the candidate; "gained": the reverse. */
export type FlipDirection = "lost" | "gained";

/** One side of a flipped response, for drill-down. */
export interface FlipSide {
    /** Verdict category. */
    category: Category;
    /** Verdict detail (first failing test, exception…). */
    detail: string;
    /** Extracted code, null when none. */
    code: string | null;
}

/** A response whose verdict differs between the reference and the candidate. */
export interface ResponseFlip {
    /** Lost (reference passed, candidate failed) or gained (the reverse). */
    direction: FlipDirection;
    /** Template id. */
    template: string;
    /** Instance index in the neighbourhood. */
    instance: number;
    /** Round (repeat) index. */
    round: number;
    /** The instance's parameter tuple. */
    params: ParamValue[];
    /** The reference's verdict. */
    reference: FlipSide;
    /** The candidate's verdict. */
    candidate: FlipSide;
}

/** An instance whose "all rounds passed" indicator differs between the reference and the candidate. */
export interface InstanceFlip {
    /** Lost (reference passed, candidate failed) or gained (the reverse). */
    direction: FlipDirection;
    /** Template id. */
    template: string;
    /** Instance index in the neighbourhood. */
    instance: number;
    /** The instance's parameter tuple. */
    params: ParamValue[];
    /** Rounds compared (both sides judged as model outcomes). */
    rounds: number;
    /** Rounds the reference passed. */
    referencePassed: number;
    /** Rounds the candidate passed. */
    candidatePassed: number;
}

/** Paired counts of a binary indicator: the 2×2 table McNemar's test reads. */
export interface FlipCounts {
    /** Pairs compared. */
    pairs: number;
    /** Pairs passed by both. */
    bothPassed: number;
    /** Pairs failed by both. */
    bothFailed: number;
    /** Passed by the reference, failed by the candidate. */
    lost: number;
    /** Failed by the reference, passed by the candidate. */
    gained: number;
    /** Pairs left out: a harness verdict (truncated, judge_error) on either side, or, per instance, no usable round. */
    excluded: number;
}

/** Flip counts of one template. */
export interface TemplateFlips {
    /** Template id. */
    template: string;
    /** Flip counts over this template's responses. */
    responses: FlipCounts;
    /** Flip counts over this template's instances. */
    instances: FlipCounts;
}

/** Every flip between the reference and one candidate, per response and per instance. */
export interface FlipReport {
    /** Per response: passed vs not passed. */
    responses: FlipCounts;
    /** Per instance: all compared rounds passed vs not. */
    instances: FlipCounts;
    /** Every flipped response, for drill-down. */
    responseFlips: ResponseFlip[];
    /** Every flipped instance. */
    instanceFlips: InstanceFlip[];
    /** The same counts per template. */
    perTemplate: TemplateFlips[];
    /** Verdict transitions over compared responses, `"<reference category>→<candidate category>"` → count. */
    transitions: Record<string, number>;
    /** Response slots present on only one side (0 for identical studies). */
    unpaired: number;
}

function emptyCounts(): FlipCounts {
    return { pairs: 0, bothPassed: 0, bothFailed: 0, lost: 0, gained: 0, excluded: 0 };
}

function tick(c: FlipCounts, ref: boolean, cand: boolean): FlipDirection | null {
    c.pairs++;
    if (ref && cand) c.bothPassed++;
    else if (!ref && !cand) c.bothFailed++;
    else if (ref) return c.lost++, "lost";
    else return c.gained++, "gained";
    return null;
}

function side(o: Outcome): FlipSide {
    return { category: o.category, detail: o.detail, code: o.code };
}

/**
 * Which verdicts flip between the reference and a candidate (SPEC §6), per response and per
 * instance ("all R passed"), with drill-down rows, per-template counts and category transitions.
 * Harness verdicts (truncated, judge_error) are not the model's fault: such pairs are excluded and counted.
 */
export function countFlips(reference: readonly Outcome[], candidate: readonly Outcome[]): FlipReport {
    const { instances, unpaired } = pairOutcomes(reference, candidate);
    const responses = emptyCounts();
    const perInstance = emptyCounts();
    const responseFlips: ResponseFlip[] = [];
    const instanceFlips: InstanceFlip[] = [];
    const transitions: Record<string, number> = {};
    const templates = new Map<string, TemplateFlips>();
    for (const inst of instances) {
        let t = templates.get(inst.template);
        if (!t) templates.set(inst.template, (t = { template: inst.template, responses: emptyCounts(), instances: emptyCounts() }));
        for (const r of inst.rounds) {
            if (isHarness(r.reference.category) || isHarness(r.candidate.category)) {
                responses.excluded++;
                t.responses.excluded++;
                continue;
            }
            const key = `${r.reference.category}→${r.candidate.category}`;
            transitions[key] = (transitions[key] ?? 0) + 1;
            const refPassed = r.reference.category === "passed";
            const candPassed = r.candidate.category === "passed";
            tick(t.responses, refPassed, candPassed);
            const dir = tick(responses, refPassed, candPassed);
            if (dir)
                responseFlips.push({ direction: dir, template: r.template, instance: r.instance, round: r.round, params: r.params, reference: side(r.reference), candidate: side(r.candidate) });
        }
        instanceFlip(inst, perInstance, t.instances, instanceFlips);
    }
    return { responses, instances: perInstance, responseFlips, instanceFlips, perTemplate: [...templates.values()], transitions, unpaired };
}

function instanceFlip(inst: InstancePair, total: FlipCounts, template: FlipCounts, out: InstanceFlip[]): void {
    const tally = tallyInstance(inst);
    if (tally.rounds === 0) {
        total.excluded++;
        template.excluded++;
        return;
    }
    const ref = tally.referencePassed === tally.rounds;
    const cand = tally.candidatePassed === tally.rounds;
    tick(template, ref, cand);
    const dir = tick(total, ref, cand);
    if (dir) out.push({ direction: dir, template: inst.template, instance: inst.instance, params: inst.params, ...tally });
}
