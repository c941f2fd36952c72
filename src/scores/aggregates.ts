import { countAnswers, HARNESS_CATEGORIES, MODEL_CATEGORIES, type AnswerCounts, type Category } from "../vocabulary.js";
import { NEIGHBOURHOOD_CATEGORIES, type HarnessCounts, type NeighbourhoodCategory, type NeighbourhoodScore } from "./neighbourhood.js";

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
    /** Mean pass@k over the neighbourhoods with data, for the k every one of them has (see {@link NeighbourhoodScore.passAtK}). */
    passAtK: Record<string, number>;
    /** Why pass@k stops before the largest R (null when it does not). */
    passAtKNote: string | null;
    /** Judged instances (M) and instances (M_total), summed over templates. */
    coverage: { judged: number; total: number };
    /** Templates not given a category because under 90% of their instances are judged (or none is). */
    uncategorised: number;
    categories: CategoryShares;
    /** Share of counted responses per model verdict category (failures and `passed`). */
    verdictShares: Partial<Record<Category, number>>;
    /** Counted responses (denominator of verdictShares). */
    responses: number;
    /** Harness outcomes and missing answers, counted apart (never model failures). */
    harness: HarnessCounts;
    /** Its answers: planned (instances × R over its templates), judged, passed, harness outcomes, missing (src/vocabulary.ts). */
    answers: AnswerCounts;
}

/** The answers (src/vocabulary.ts) behind some neighbourhoods' scores: planned M_total × R each, outcomes by category. */
export function answersOf(scores: readonly NeighbourhoodScore[]): AnswerCounts {
    const counts: Partial<Record<Category, number>> = {};
    for (const s of scores) for (const [cat, n] of Object.entries(s.verdicts) as [Category, number][]) counts[cat] = (counts[cat] ?? 0) + n;
    return countAnswers(
        scores.reduce((n, s) => n + s.Mtotal * s.R, 0),
        counts
    );
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
        const harness: HarnessCounts = { truncated: 0, judge_error: 0, missing: 0 };
        for (const s of list) {
            for (const [cat, n] of Object.entries(s.verdicts) as [Category, number][]) counts[cat] = (counts[cat] ?? 0) + n;
            responses += s.responses;
            harness.truncated += s.harness.truncated;
            harness.judge_error += s.harness.judge_error;
            harness.missing += s.harness.missing;
        }
        const verdictShares: Partial<Record<Category, number>> = {};
        for (const c of MODEL_CATEGORIES) if (counts[c]) verdictShares[c] = counts[c]! / responses;
        const { passAtK, note: passAtKNote } = configPassAtK(list);
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
            passAtKNote,
            coverage: { judged: list.reduce((a, s) => a + s.M, 0), total: list.reduce((a, s) => a + s.Mtotal, 0) },
            uncategorised: list.filter((s) => s.category === "incomplete" || s.category === "no_data").length,
            categories: categoryShares(list),
            verdictShares,
            responses,
            harness,
            answers: answersOf(list)
        };
    });
}

/**
 * pass@k over a configuration's neighbourhoods: the mean over every neighbourhood with a judged
 * instance, for the k all of them have; a k that some lack is not computable (a mean over a set of
 * neighbourhoods that shrinks as k grows could fall as k rises).
 */
export function configPassAtK(list: readonly NeighbourhoodScore[]): { passAtK: Record<string, number>; note: string | null } {
    const withData = list.filter((s) => s.M > 0);
    const out: Record<string, number> = {};
    if (withData.length === 0) return { passAtK: out, note: null };
    let limiting = withData[0]!;
    for (const s of withData) if (Object.keys(s.passAtK).length < Object.keys(limiting.passAtK).length) limiting = s;
    const kMax = Object.keys(limiting.passAtK).length;
    for (let k = 1; k <= kMax; k++) out[String(k)] = meanOf(withData, (s) => s.passAtK[String(k)]!);
    const R = Math.max(...withData.map((s) => s.R));
    const fewest = limiting.instances.filter((i) => i.n > 0).sort((a, b) => a.n - b.n)[0]!;
    return { passAtK: out, note: kMax < R ? `pass@k for k > ${kMax} not computable (${limiting.template}: instance ${fewest.instance} has ${kMax} judged round(s) of ${R})` : null };
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
