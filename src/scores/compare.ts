import { cliffsDelta, type Magnitude } from "../stats/cliffsDelta.js";
import { mannWhitneyU } from "../stats/mannWhitney.js";
import { exactMcNemar, type McNemarResult } from "../stats/mcnemar.js";
import { shapiroWilk } from "../stats/shapiroWilk.js";
import type { Outcome, ParamValue } from "../vocabulary.js";
import { groupBy } from "./aggregates.js";
import { isHarness, type NeighbourhoodScore } from "./neighbourhood.js";

import { COMPARED_SCORES, type ComparedScore } from "./table.js";

// Which scores are compared is the score table's word (src/scores/table.ts `compared`).
export { COMPARED_SCORES, type ComparedScore };

/** Shapiro–Wilk of one score's distribution under one configuration. */
export interface NormalityRow {
    score: ComparedScore;
    config: string;
    n: number;
    /** NaN when undefined (fewer than 3 neighbourhoods or all equal). */
    w: number;
    p: number;
    /** Why W and p are undefined, when they are (shown in place of the "–"). */
    why?: string;
}

/** Mann–Whitney U and Cliff's δ of configuration a against b on one score (δ > 0: a higher). */
export interface PairRow {
    score: ComparedScore;
    a: string;
    b: string;
    u: number;
    p: number;
    method: "exact" | "normal";
    significant: boolean;
    delta: number;
    magnitude: Magnitude;
    /** Why U, p and δ are undefined, when they are (a configuration without scored templates). */
    why?: string;
}

/** Temperature effect for one model: t = 0 against another temperature, per score (δ > 0: t = 0 higher). */
export interface TemperatureRow {
    model: string;
    quantization: string | null;
    wrapper: string;
    greedy: string;
    other: string;
    temperature: number;
    score: ComparedScore;
    p: number;
    significant: boolean;
    delta: number;
    magnitude: Magnitude;
    /** Why p and δ are undefined, when they are. */
    why?: string;
}

/** An instance identified across configurations. */
export interface InstanceRef {
    template: string;
    instance: number;
    params: ParamValue[];
}

/** Paired comparison of two configurations on the instances they share. */
export interface PairedRow {
    a: string;
    b: string;
    /** Shared instances (with counted responses in both). */
    instances: number;
    /** McNemar on "every counted round passed" per instance; b = A only, c = B only. */
    allPassed: McNemarResult;
    /** McNemar on per-response correctness, paired by (template, instance, round). */
    perResponse: McNemarResult;
    /** Instances all-passed under A but not under B. */
    lostInB: InstanceRef[];
    /** Instances all-passed under B but not under A. */
    gainedInB: InstanceRef[];
}

/** Everything `eddy compare` prints. */
export interface Comparison {
    configs: string[];
    alpha: number;
    normality: NormalityRow[];
    pairwise: PairRow[];
    temperature: TemperatureRow[];
    paired: PairedRow[];
}

/** Options for {@link compareConfigurations}. */
export interface CompareOptions {
    /** Significance level (default 0.05). */
    alpha?: number;
    /** Instance lists kept per direction in paired rows (default 50). */
    maxFlips?: number;
}

/** Statistics over configurations (SPEC §4–§5): normality, pairwise U/δ, temperature effects, McNemar. */
export function compareConfigurations(scores: readonly NeighbourhoodScore[], outcomes: readonly Outcome[], opts: CompareOptions = {}): Comparison {
    const alpha = opts.alpha ?? 0.05;
    const byConfig = groupBy(scores, (s) => s.config);
    const configs = [...byConfig.keys()];
    const values = (config: string, score: ComparedScore) => (byConfig.get(config) ?? []).map((s) => s[score]).filter((v) => !Number.isNaN(v));

    const normality: NormalityRow[] = [];
    const pairwise: PairRow[] = [];
    for (const score of COMPARED_SCORES) {
        for (const c of configs) {
            const r = shapiroWilk(values(c, score));
            normality.push({ score, config: c, n: r.n, w: r.w, p: r.p, ...(r.why ? { why: r.why } : {}) });
        }
        for (let i = 0; i < configs.length; i++)
            for (let j = i + 1; j < configs.length; j++) pairwise.push(pairRow(score, configs[i]!, configs[j]!, values(configs[i]!, score), values(configs[j]!, score), alpha));
    }

    const temperature: TemperatureRow[] = [];
    const firsts = configs.map((c) => byConfig.get(c)![0]!);
    for (const greedy of firsts.filter((f) => f.temperature === 0)) {
        const others = firsts.filter((f) => f.temperature !== 0 && f.model === greedy.model && f.quantization === greedy.quantization && f.wrapper === greedy.wrapper);
        for (const o of others)
            for (const score of COMPARED_SCORES) {
                const r = pairRow(score, greedy.config, o.config, values(greedy.config, score), values(o.config, score), alpha);
                temperature.push({
                    model: greedy.model,
                    quantization: greedy.quantization,
                    wrapper: greedy.wrapper,
                    greedy: greedy.config,
                    other: o.config,
                    temperature: o.temperature,
                    score,
                    p: r.p,
                    significant: r.significant,
                    delta: r.delta,
                    magnitude: r.magnitude,
                    ...(r.why ? { why: r.why } : {})
                });
            }
    }

    return { configs, alpha, normality, pairwise, temperature, paired: pairedComparisons(outcomes, configs, opts.maxFlips ?? 50) };
}

function pairRow(score: ComparedScore, a: string, b: string, x: number[], y: number[], alpha: number): PairRow {
    const mw = mannWhitneyU(x, y);
    const d = cliffsDelta(x, y);
    const why = x.length === 0 || y.length === 0 ? `no scored templates in ${x.length === 0 ? a : b}` : undefined;
    return { score, a, b, u: mw.u, p: mw.p, method: mw.method, significant: mw.p < alpha, delta: d.delta, magnitude: d.magnitude, ...(why ? { why } : {}) };
}

/** McNemar for every pair of configurations that share instances (same template, index and tuple). */
export function pairedComparisons(outcomes: readonly Outcome[], configs: readonly string[], maxFlips = 50): PairedRow[] {
    // Per configuration: instance key → { ref, rounds: round → passed, and how many rounds, how many passed }.
    const table = new Map<string, Map<string, { ref: InstanceRef; rounds: (boolean | undefined)[]; n: number; passed: number }>>();
    // Outcomes read from a store share one params array per instance: its key is made once, not per answer.
    const keyOf = new Map<unknown, { template: string; instance: number; key: string }>();
    for (const o of outcomes) {
        if (isHarness(o.category)) continue;
        let t = table.get(o.config);
        if (!t) table.set(o.config, (t = new Map()));
        let k = keyOf.get(o.params);
        if (!k || k.template !== o.template || k.instance !== o.instance) keyOf.set(o.params, (k = { template: o.template, instance: o.instance, key: `${o.template}\u0000${o.instance}\u0000${JSON.stringify(o.params)}` }));
        let e = t.get(k.key);
        if (!e) t.set(k.key, (e = { ref: { template: o.template, instance: o.instance, params: o.params }, rounds: [], n: 0, passed: 0 }));
        const pass = o.category === "passed";
        const before = e.rounds[o.round];
        if (before === undefined) e.n++;
        else if (before) e.passed--;
        if (pass) e.passed++;
        e.rounds[o.round] = pass;
    }
    const out: PairedRow[] = [];
    for (let i = 0; i < configs.length; i++)
        for (let j = i + 1; j < configs.length; j++) {
            const A = table.get(configs[i]!);
            const B = table.get(configs[j]!);
            if (!A || !B) continue;
            let shared = 0;
            let ib = 0,
                ic = 0,
                rb = 0,
                rc = 0,
                rConc = 0;
            const lost: InstanceRef[] = [];
            const gained: InstanceRef[] = [];
            for (const [key, ea] of A) {
                const eb = B.get(key);
                if (!eb) continue;
                shared++;
                const allA = ea.passed === ea.n;
                const allB = eb.passed === eb.n;
                if (allA && !allB) {
                    ib++;
                    if (lost.length < maxFlips) lost.push(ea.ref);
                } else if (!allA && allB) {
                    ic++;
                    if (gained.length < maxFlips) gained.push(ea.ref);
                }
                for (let round = 0; round < ea.rounds.length; round++) {
                    const pa = ea.rounds[round];
                    const pb = eb.rounds[round];
                    if (pa === undefined || pb === undefined) continue;
                    if (pa && !pb) rb++;
                    else if (!pa && pb) rc++;
                    else rConc++;
                }
            }
            if (shared === 0) continue;
            out.push({
                a: configs[i]!,
                b: configs[j]!,
                instances: shared,
                allPassed: exactMcNemar(ib, ic, shared - ib - ic),
                perResponse: exactMcNemar(rb, rc, rConc),
                lostInB: lost,
                gainedInB: gained
            });
        }
    return out;
}
