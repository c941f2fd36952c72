import { HARNESS_CATEGORIES, MODEL_CATEGORIES, type Category } from "../judge/types.js";
import { NEIGHBOURHOOD_CATEGORIES, type NeighbourhoodCategory, type NeighbourhoodScore } from "./neighbourhood.js";

/** Share (0..1) of neighbourhoods in each category, with the count they are shares of. */
export interface CategoryShares {
    n: number;
    shares: Record<NeighbourhoodCategory, number>;
}

/** One configuration's overview across its neighbourhoods. */
export interface ConfigSummary {
    config: string;
    runId: string;
    model: string;
    quantization: string | null;
    temperature: number;
    wrapper: string;
    templates: number;
    /** Means over neighbourhoods. */
    AS: number;
    CPS: number;
    CCS: number;
    RLPR: number;
    PSR: number;
    gap: number;
    AV: number;
    /** Mean pass@k over neighbourhoods, k = 1..R. */
    passAtK: Record<string, number>;
    categories: CategoryShares;
    /** Share of counted responses per model verdict category (failures and `passed`). */
    verdictShares: Partial<Record<Category, number>>;
    /** Counted responses (denominator of verdictShares). */
    responses: number;
    /** Harness outcomes, counted apart (never model failures). */
    harness: { truncated: number; judge_error: number };
}

/** Category shares for a problem group or subgroup, per configuration and over all of them. */
export interface GroupSummary {
    /** "group" or "subgroup". */
    kind: "group" | "subgroup";
    name: string;
    /** A configuration label, or "all" for every configuration together. */
    config: string;
    AS: number;
    categories: CategoryShares;
}

/** One template across configurations. */
export interface TemplateSummary {
    template: string;
    group: string;
    subgroups: string[];
    AS: number;
    CPS: number;
    CCS: number;
    categories: CategoryShares;
}

/** Share of neighbourhoods per category. */
export function categoryShares(scores: readonly NeighbourhoodScore[]): CategoryShares {
    const shares = Object.fromEntries(NEIGHBOURHOOD_CATEGORIES.map((c) => [c, 0])) as Record<NeighbourhoodCategory, number>;
    for (const s of scores) shares[s.category]++;
    if (scores.length) for (const c of NEIGHBOURHOOD_CATEGORIES) shares[c] /= scores.length;
    return { n: scores.length, shares };
}

/** One summary per configuration, in first-seen order. */
export function summariseConfigs(scores: readonly NeighbourhoodScore[]): ConfigSummary[] {
    return [...groupBy(scores, (s) => s.config).values()].map((list) => {
        const f = list[0]!;
        const counts: Partial<Record<Category, number>> = {};
        let responses = 0;
        const harness = { truncated: 0, judge_error: 0 };
        for (const s of list) {
            for (const [cat, n] of Object.entries(s.verdicts) as [Category, number][]) counts[cat] = (counts[cat] ?? 0) + n;
            responses += s.responses;
            harness.truncated += s.harness.truncated;
            harness.judge_error += s.harness.judge_error;
        }
        const verdictShares: Partial<Record<Category, number>> = {};
        for (const c of MODEL_CATEGORIES) if (counts[c]) verdictShares[c] = counts[c]! / responses;
        const passAtK: Record<string, number> = {};
        for (const k of new Set(list.flatMap((s) => Object.keys(s.passAtK)))) passAtK[k] = meanOf(list.filter((s) => k in s.passAtK), (s) => s.passAtK[k]!);
        return {
            config: f.config,
            runId: f.runId,
            model: f.model,
            quantization: f.quantization,
            temperature: f.temperature,
            wrapper: f.wrapper,
            templates: list.length,
            AS: meanOf(list, (s) => s.AS),
            CPS: meanOf(list, (s) => s.CPS),
            CCS: meanOf(list, (s) => s.CCS),
            RLPR: meanOf(list, (s) => s.RLPR),
            PSR: meanOf(list, (s) => s.PSR),
            gap: meanOf(list, (s) => s.gap),
            AV: meanOf(list, (s) => s.AV),
            passAtK,
            categories: categoryShares(list),
            verdictShares,
            responses,
            harness
        };
    });
}

/** Category shares per problem group and per subgroup, for each configuration and for all together. */
export function summariseGroups(scores: readonly NeighbourhoodScore[]): GroupSummary[] {
    const out: GroupSummary[] = [];
    const add = (kind: "group" | "subgroup", name: string, list: NeighbourhoodScore[]) => {
        out.push({ kind, name, config: "all", AS: meanOf(list, (s) => s.AS), categories: categoryShares(list) });
        for (const [config, sub] of groupBy(list, (s) => s.config)) out.push({ kind, name, config, AS: meanOf(sub, (s) => s.AS), categories: categoryShares(sub) });
    };
    for (const [g, list] of sorted(groupBy(scores, (s) => s.group))) add("group", g, list);
    const bySub = new Map<string, NeighbourhoodScore[]>();
    for (const s of scores)
        for (const sg of s.subgroups) {
            if (!bySub.has(sg)) bySub.set(sg, []);
            bySub.get(sg)!.push(s);
        }
    for (const [sg, list] of sorted(bySub)) add("subgroup", sg, list);
    return out;
}

/** One summary per template across configurations, sorted by id. */
export function summariseTemplates(scores: readonly NeighbourhoodScore[]): TemplateSummary[] {
    return [...sorted(groupBy(scores, (s) => s.template))].map(([template, list]) => ({
        template,
        group: list[0]!.group,
        subgroups: list[0]!.subgroups,
        AS: meanOf(list, (s) => s.AS),
        CPS: meanOf(list, (s) => s.CPS),
        CCS: meanOf(list, (s) => s.CCS),
        categories: categoryShares(list)
    }));
}

/** Categories a report shows per configuration: model failures in check order, then the harness ones apart. */
export const REPORTED_VERDICTS: readonly Category[] = [...MODEL_CATEGORIES, ...HARNESS_CATEGORIES];

/** Group items by key, keeping first-seen order. */
export function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
    const m = new Map<string, T[]>();
    for (const it of items) {
        const k = key(it);
        let l = m.get(k);
        if (!l) m.set(k, (l = []));
        l.push(it);
    }
    return m;
}

function sorted<T>(m: Map<string, T>): [string, T][] {
    return [...m.entries()].sort((a, b) => a[0].localeCompare(b[0]));
}

/** Mean of f over items, skipping NaN; NaN when none. */
export function meanOf<T>(items: readonly T[], f: (t: T) => number): number {
    let s = 0;
    let n = 0;
    for (const it of items) {
        const v = f(it);
        if (!Number.isNaN(v)) {
            s += v;
            n++;
        }
    }
    return n ? s / n : NaN;
}
