import { cliffsDelta, type Magnitude } from "../stats/cliffsDelta.js";
import { mannWhitneyU } from "../stats/mannWhitney.js";
import { exactMcNemar, type McNemarResult } from "../stats/mcnemar.js";
import { shapiroWilk } from "../stats/shapiroWilk.js";
import type { Outcome, ParamValue } from "../vocabulary.js";
import { groupBy } from "./aggregates.js";
import { groupByNeighbourhood, isHarness, type NeighbourhoodScore } from "./neighbourhood.js";

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
    /** The outcomes grouped per neighbourhood, each group the same array while it is unchanged (see {@link pairedComparisons}). */
    parts?: ReadonlyMap<string, readonly Outcome[]>;
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

    return { configs, alpha, normality, pairwise, temperature, paired: pairedComparisons(outcomes, configs, opts.maxFlips ?? 50, opts.parts) };
}

function pairRow(score: ComparedScore, a: string, b: string, x: number[], y: number[], alpha: number): PairRow {
    const mw = mannWhitneyU(x, y);
    const d = cliffsDelta(x, y);
    const why = x.length === 0 || y.length === 0 ? `no scored templates in ${x.length === 0 ? a : b}` : undefined;
    return { score, a, b, u: mw.u, p: mw.p, method: mw.method, significant: mw.p < alpha, delta: d.delta, magnitude: d.magnitude, ...(why ? { why } : {}) };
}

/** One instance of one configuration: which rounds passed, and how many rounds, how many passed. */
interface InstanceEntry {
    ref: InstanceRef;
    rounds: (boolean | undefined)[];
    n: number;
    passed: number;
}

/** Two neighbourhoods' paired counts (see {@link pairedComparisons}), their flips listed up to `maxFlips` each. */
interface PartPair {
    shared: number;
    ib: number;
    ic: number;
    rb: number;
    rc: number;
    rConc: number;
    lost: InstanceRef[];
    gained: InstanceRef[];
    maxFlips: number;
}

/**
 * Kept per neighbourhood's answers (the same array while it is unchanged: the viewer's parts), so that after one
 * answer is written only the pairs of its neighbourhood are counted again; arrays made for one call (eddy report)
 * are simply collected with their entries.
 */
const entryCache = new WeakMap<readonly Outcome[], Map<string, InstanceEntry>>();
const pairCache = new WeakMap<readonly Outcome[], WeakMap<readonly Outcome[], PartPair>>();

/** A neighbourhood's answers per instance (key: template, index and tuple), harness outcomes left out. */
function partEntries(part: readonly Outcome[]): Map<string, InstanceEntry> {
    const hit = entryCache.get(part);
    if (hit) return hit;
    const t = new Map<string, InstanceEntry>();
    // Outcomes read from a store share one params array per instance: its key is made once, not per answer.
    const keyOf = new Map<unknown, { template: string; instance: number; key: string }>();
    for (const o of part) {
        if (isHarness(o.category)) continue;
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
    entryCache.set(part, t);
    return t;
}

/** The paired counts of one neighbourhood of A and the same template's of B. */
function partPair(a: readonly Outcome[], b: readonly Outcome[], maxFlips: number): PartPair {
    let inner = pairCache.get(a);
    if (!inner) pairCache.set(a, (inner = new WeakMap()));
    const hit = inner.get(b);
    if (hit && hit.maxFlips === maxFlips) return hit;
    const A = partEntries(a);
    const B = partEntries(b);
    const p: PartPair = { shared: 0, ib: 0, ic: 0, rb: 0, rc: 0, rConc: 0, lost: [], gained: [], maxFlips };
    for (const [key, ea] of A) {
        const eb = B.get(key);
        if (!eb) continue;
        p.shared++;
        const allA = ea.passed === ea.n;
        const allB = eb.passed === eb.n;
        if (allA && !allB) {
            p.ib++;
            if (p.lost.length < maxFlips) p.lost.push(ea.ref);
        } else if (!allA && allB) {
            p.ic++;
            if (p.gained.length < maxFlips) p.gained.push(ea.ref);
        }
        for (let round = 0; round < ea.rounds.length; round++) {
            const pa = ea.rounds[round];
            const pb = eb.rounds[round];
            if (pa === undefined || pb === undefined) continue;
            if (pa && !pb) p.rb++;
            else if (!pa && pb) p.rc++;
            else p.rConc++;
        }
    }
    inner.set(b, p);
    return p;
}

/**
 * McNemar for every pair of configurations that share instances (same template, index and tuple). Instances
 * pair only within a template, so the counts are summed over the two configurations' neighbourhoods of each
 * template, and the flips listed in A's order of templates. `parts`: the outcomes already grouped per
 * neighbourhood (scores/neighbourhood.ts groupByNeighbourhood; the viewer's, kept while unchanged, so a write counts only its neighbourhood's pairs again).
 */
export function pairedComparisons(outcomes: readonly Outcome[], configs: readonly string[], maxFlips = 50, parts: ReadonlyMap<string, readonly Outcome[]> = groupByNeighbourhood(outcomes)): PairedRow[] {
    const byConfig = new Map<string, Map<string, readonly Outcome[]>>();
    for (const part of parts.values()) {
        const first = part.find((o) => !isHarness(o.category));
        if (!first) continue;
        let m = byConfig.get(first.config);
        if (!m) byConfig.set(first.config, (m = new Map()));
        m.set(first.template, part);
    }
    const out: PairedRow[] = [];
    for (let i = 0; i < configs.length; i++)
        for (let j = i + 1; j < configs.length; j++) {
            const A = byConfig.get(configs[i]!);
            const B = byConfig.get(configs[j]!);
            if (!A || !B) continue;
            const sum: Omit<PartPair, "maxFlips"> = { shared: 0, ib: 0, ic: 0, rb: 0, rc: 0, rConc: 0, lost: [], gained: [] };
            for (const [template, a] of A) {
                const b = B.get(template);
                if (!b) continue;
                const p = partPair(a, b, maxFlips);
                sum.shared += p.shared;
                sum.ib += p.ib;
                sum.ic += p.ic;
                sum.rb += p.rb;
                sum.rc += p.rc;
                sum.rConc += p.rConc;
                for (const r of p.lost) if (sum.lost.length < maxFlips) sum.lost.push(r);
                for (const r of p.gained) if (sum.gained.length < maxFlips) sum.gained.push(r);
            }
            if (sum.shared === 0) continue;
            out.push({
                a: configs[i]!,
                b: configs[j]!,
                instances: sum.shared,
                allPassed: exactMcNemar(sum.ib, sum.ic, sum.shared - sum.ib - sum.ic),
                perResponse: exactMcNemar(sum.rb, sum.rc, sum.rConc),
                lostInB: sum.lost,
                gainedInB: sum.gained
            });
        }
    return out;
}
