import { KV_CACHE_AXIS } from "../inference/backends.js";
import { COMPARED_SCORES, type ComparedScore } from "../scores/table.js";
import { provenanceOf } from "../import/provenance.js";
import { recordedLanguage } from "../languages/languages.js";
import { isHarness, type HarnessCounts, type NeighbourhoodScore } from "../scores/neighbourhood.js";
import { meanOf } from "../scores/aggregates.js";
import { bootstrapMeanInterval } from "../stats/bootstrap.js";
import { exactMcNemar } from "../stats/mcnemar.js";
import { instanceRateInterval, wilsonInterval, type Interval } from "../stats/wilson.js";
import type { ViewConfiguration } from "../store/viewQueries.js";
import type { Outcome } from "../vocabulary.js";
import type { RunData } from "./runData.js";

/**
 * The leaderboard's data (the viewer's front page): one entry per configuration in the store with its
 * scores, their 95% intervals and the counts they rest on; which configurations are statistical ties
 * on a score; and, for a model also run on imported HumanEval+/MBPP+ problems, its pass@1 there. Every
 * number comes from the run's report data (`buildReport`, as `eddy report`) and eddy's own statistics
 * (src/stats): nothing here scores anything a second way.
 */

/** The scores the leaderboard ranks by (pass@1 ranks as AS: they are equal by definition). */
export const RANKED_SCORES = COMPARED_SCORES;
export type RankedScore = ComparedScore;

/** With at least this many templates, a configuration's intervals are a bootstrap over its templates; with fewer, Wilson over its instances. */
export const BOOTSTRAP_MIN_TEMPLATES = 5;
/** Significance level of the tie tests. */
export const TIE_ALPHA = 0.05;
/** Two configurations are compared by a paired test when they share at least this share of each one's judged instances. */
export const PAIRED_MIN_SHARE = 0.5;

/** Imported benchmarks whose pass@1 sits beside a model's neighbourhood scores: template ids as `eddy import humaneval` makes them. */
export const BENCHMARKS: readonly { dataset: string; template: RegExp }[] = [
    { dataset: "HumanEval+", template: /^humaneval_\d+$/ },
    { dataset: "MBPP+", template: /^mbpp_\d+$/ }
];

/** A model's pass@1 on an imported benchmark. */
export interface BenchmarkScore {
    dataset: string;
    pass1: number;
    /** Problems (templates) with a judged answer. */
    problems: number;
    configId: number;
    runId: string;
    label: string;
    /** The harness the answers came from (EvalPlus) when they were imported, else null (eddy generated them). */
    importedFrom: string | null;
    /** The benchmark configuration's quantisation and temperature. */
    quantization: string | null;
    temperature: number;
}

/** One configuration on the leaderboard. */
export interface BoardEntry {
    configId: number;
    runId: string;
    label: string;
    model: string;
    quantization: string | null;
    temperature: number;
    wrapper: string;
    /** The KV-cache type the run chose (null: the backend's default). */
    kvCache: string | null;
    backend: string;
    language: string;
    runStatus: string;
    templates: number;
    /** Judged instances, of those planned, summed over templates. */
    judged: number;
    total: number;
    responses: number;
    harness: HarnessCounts;
    AS: number;
    CPS: number;
    CCS: number;
    pass1: number;
    /** 95% interval of each ranked score (NaN bounds: no judged instance). */
    intervals: Record<RankedScore, Interval>;
    /** How the intervals were made, in words. */
    intervalMethod: string;
    /** Templates in each of the four categories, and those without one (under 90% judged, or none). */
    categories: { perfect_success: number; stochastic_failure: number; inconsistent_generalisation: number; perfect_failure: number; uncategorised: number };
    /** Set when every template of the configuration is an imported benchmark problem: its pass@1 per benchmark. */
    benchmark: BenchmarkScore[] | null;
}

/** What the paired tests read of one neighbourhood's answers: per instance (index and parameters) whether any and whether every round passed, and each response. */
export interface PairedPart {
    /** Instance key → bit 1: passed at least once, bit 2: passed in every counted round. */
    instances: Map<string, number>;
    /** Instance key + round → passed. */
    responses: Map<string, boolean>;
}

/** What the paired tests read of a configuration: its neighbourhoods' paired data, by template. */
export type PairedData = Map<string, PairedPart>;

/** Paired data per neighbourhood answer list (the run data keeps a list while its neighbourhood is unchanged). */
const partCache = new WeakMap<readonly Outcome[], PairedPart>();

/** The paired data of one neighbourhood's answers (harness outcomes left out, as in every score). */
export function pairedPart(outcomes: readonly Outcome[]): PairedPart {
    const hit = partCache.get(outcomes);
    if (hit) return hit;
    const instances = new Map<string, number>();
    const responses = new Map<string, boolean>();
    // Rounds of one instance share their parameters' array: stringified once.
    let lastParams: unknown;
    let lastKey = "";
    for (const o of outcomes) {
        if (isHarness(o.category)) continue;
        if (o.params !== lastParams) {
            lastParams = o.params;
            lastKey = JSON.stringify(o.params);
        }
        const key = `${o.instance}\u0000${lastKey}`;
        const passed = o.category === "passed";
        responses.set(`${key}\u0000${o.round}`, passed);
        const seen = instances.get(key);
        instances.set(key, seen === undefined ? (passed ? 3 : 0) : (seen & 1) | (passed ? 1 : 0) | (seen & 2 && passed ? 2 : 0));
    }
    const part = { instances, responses };
    partCache.set(outcomes, part);
    return part;
}

const sizeOf = (p: PairedData): number => {
    let n = 0;
    for (const part of p.values()) n += part.instances.size;
    return n;
};

/** The leaderboard's entries of one run, with what the paired tests need. */
export interface RunBoard {
    entries: BoardEntry[];
    paired: Map<number, PairedData>;
}

/** The run's settings the leaderboard shows beside each configuration. */
export interface RunSettings {
    backend: string;
    status: string;
    config: Record<string, unknown>;
}

/** The benchmark a template belongs to, or undefined for a neighbourhood template. */
export function benchmarkOf(template: string): string | undefined {
    return BENCHMARKS.find((b) => b.template.test(template))?.dataset;
}

/**
 * A configuration's 95% intervals of AS, CPS and CCS. Its scores are means over its templates: with
 * {@link BOOTSTRAP_MIN_TEMPLATES} or more, a seeded percentile bootstrap of that mean over the templates (the
 * templates are the sample of questions); with fewer, the judged instances pooled: AS at their effective n
 * (`instanceRateInterval`, as a neighbourhood's RLPR), CPS and CCS Wilson with instances as trials.
 */
export function configIntervals(scores: readonly NeighbourhoodScore[]): { intervals: Record<RankedScore, Interval>; method: string } {
    // The run data keeps an unchanged neighbourhood's scores object: a configuration none of whose neighbourhoods changed keeps its intervals.
    const first = scores[0];
    const hit = first && intervalCache.get(first);
    if (hit && hit.scores.length === scores.length && hit.scores.every((s, i) => s === scores[i])) return hit.value;
    const value = computeIntervals(scores);
    if (first) intervalCache.set(first, { scores: [...scores], value });
    return value;
}

const intervalCache = new WeakMap<NeighbourhoodScore, { scores: readonly NeighbourhoodScore[]; value: { intervals: Record<RankedScore, Interval>; method: string } }>();

function computeIntervals(scores: readonly NeighbourhoodScore[]): { intervals: Record<RankedScore, Interval>; method: string } {
    const withData = scores.filter((s) => s.M > 0);
    if (withData.length >= BOOTSTRAP_MIN_TEMPLATES) {
        const of = (k: RankedScore) => bootstrapMeanInterval(
            withData.map((s) => s[k]),
            { seed: 1 }
        );
        return { intervals: { AS: of("AS"), CPS: of("CPS"), CCS: of("CCS") }, method: `bootstrap of the mean over ${withData.length} templates (2,000 resamples, seeded)` };
    }
    const instances = withData.flatMap((s) => s.instances.filter((i) => i.n > 0));
    const M = instances.length;
    if (M === 0) return { intervals: { AS: { lo: NaN, hi: NaN }, CPS: { lo: NaN, hi: NaN }, CCS: { lo: NaN, hi: NaN } }, method: "no judged instance" };
    return {
        intervals: {
            AS: instanceRateInterval(instances),
            CPS: wilsonInterval(instances.filter((i) => i.c > 0).length, M),
            CCS: wilsonInterval(instances.filter((i) => i.c === i.n).length, M)
        },
        method: `Wilson over ${M} judged instance${M === 1 ? "" : "s"} (fewer than ${BOOTSTRAP_MIN_TEMPLATES} templates)`
    };
}

/** The leaderboard's entries of one run: one per configuration with judged answers or planned ones. */
export function runBoard(data: RunData, configs: readonly ViewConfiguration[], run: RunSettings): RunBoard {
    const kv = run.config[KV_CACHE_AXIS.key];
    const language = recordedLanguage(run.config.language);
    const entries: BoardEntry[] = [];
    const paired = new Map<number, PairedData>();
    const byLabel = new Map(configs.map((c) => [c.label, c]));
    for (const c of data.data.configs) {
        const conf = byLabel.get(c.config);
        if (!conf) continue;
        const scores = data.scores.filter((s) => s.config === c.config);
        const { intervals, method } = configIntervals(scores);
        const count = (k: NeighbourhoodScore["category"]) => scores.filter((s) => s.category === k).length;
        const templates = scores.filter((s) => s.M > 0 || s.Mtotal > 0).map((s) => s.template);
        const isBenchmark = templates.length > 0 && templates.every((t) => benchmarkOf(t) !== undefined);
        const provenance = provenanceOf(conf.metadata);
        entries.push({
            configId: conf.id,
            runId: conf.runId,
            label: c.config,
            model: c.model,
            quantization: c.quantization,
            temperature: c.temperature,
            wrapper: c.wrapper,
            kvCache: typeof kv === "string" ? kv : null,
            backend: run.backend,
            language,
            runStatus: run.status,
            templates: c.templates,
            judged: c.coverage.judged,
            total: c.coverage.total,
            responses: c.responses,
            harness: c.harness,
            AS: c.AS,
            CPS: c.CPS,
            CCS: c.CCS,
            pass1: c.passAtK["1"] ?? NaN,
            intervals,
            intervalMethod: method,
            categories: {
                perfect_success: count("perfect_success"),
                stochastic_failure: count("stochastic_failure"),
                inconsistent_generalisation: count("inconsistent_generalisation"),
                perfect_failure: count("perfect_failure"),
                uncategorised: count("incomplete") + count("no_data")
            },
            benchmark: isBenchmark
                ? BENCHMARKS.flatMap((b) => {
                      const mine = scores.filter((s) => b.template.test(s.template) && s.M > 0);
                      return mine.length
                          ? [{ dataset: b.dataset, pass1: meanOf(mine, (s) => s.passAtK["1"] ?? NaN), problems: mine.length, configId: conf.id, runId: conf.runId, label: c.config, importedFrom: provenance?.importedFrom ?? null, quantization: c.quantization, temperature: c.temperature }]
                          : [];
                  })
                : null
        });
        paired.set(conf.id, new Map());
    }
    const idOf = new Map(entries.map((e) => [e.label, e.configId]));
    for (const part of data.parts) {
        const first = part[0];
        if (!first) continue;
        const id = idOf.get(first.config);
        if (id !== undefined) paired.get(id)!.set(first.template, pairedPart(part));
    }
    return { entries, paired };
}

/** Two neighbourhoods' paired counts: shared instances, and per score [first only, second only, both or neither]. */
type PairCounts = { shared: number } & Record<RankedScore, [number, number, number]>;

const pairCache = new WeakMap<PairedPart, WeakMap<PairedPart, PairCounts>>();

/** The paired counts of two neighbourhoods (kept while both are unchanged): per response for AS, per instance for CPS and CCS. */
function partPairCounts(a: PairedPart, b: PairedPart): PairCounts {
    let inner = pairCache.get(a);
    if (!inner) pairCache.set(a, (inner = new WeakMap()));
    const hit = inner.get(b);
    if (hit) return hit;
    const c: PairCounts = { shared: 0, AS: [0, 0, 0], CPS: [0, 0, 0], CCS: [0, 0, 0] };
    const tally = (t: [number, number, number], p: boolean, q: boolean) => t[p && !q ? 0 : !p && q ? 1 : 2]++;
    for (const [key, flags] of a.instances) {
        const other = b.instances.get(key);
        if (other === undefined) continue;
        c.shared++;
        tally(c.CPS, (flags & 1) !== 0, (other & 1) !== 0);
        tally(c.CCS, (flags & 2) !== 0, (other & 2) !== 0);
    }
    for (const [key, passed] of a.responses) {
        const other = b.responses.get(key);
        if (other !== undefined) tally(c.AS, passed, other);
    }
    inner.set(b, c);
    return c;
}

/** How two configurations compare on a score: which is better, or a tie, and by which test. */
export interface PairVerdict {
    /** 1: the first is better, −1: the second, 0: a statistical tie. */
    order: 1 | -1 | 0;
    /** The test, in words ("exact McNemar on 100 shared instances, p = 0.003", "95% intervals overlap"). */
    how: string;
}

/**
 * Whether `a` and `b` differ on `score`: where they share at least {@link PAIRED_MIN_SHARE} of each one's judged
 * instances (same template, index and parameters), an exact McNemar test on those (per response for AS, per
 * instance "passed at least once" for CPS and "passed in every round" for CCS); otherwise whether their 95%
 * intervals overlap. A paired difference against the direction of the two scores (possible where they share only
 * part of their instances) is a tie.
 */
export function comparePair(a: BoardEntry, b: BoardEntry, pa: PairedData | undefined, pb: PairedData | undefined, score: RankedScore): PairVerdict {
    const va = a[score];
    const vb = b[score];
    if (Number.isNaN(va) || Number.isNaN(vb)) return { order: 0, how: "not comparable: no judged answer" };
    if (pa && pb) {
        let shared = 0;
        const counts: PairCounts[] = [];
        for (const [template, part] of pa) {
            const other = pb.get(template);
            if (!other) continue;
            const c = partPairCounts(part, other);
            shared += c.shared;
            counts.push(c);
        }
        if (shared > 0 && shared >= PAIRED_MIN_SHARE * sizeOf(pa) && shared >= PAIRED_MIN_SHARE * sizeOf(pb)) {
            let x = 0;
            let y = 0;
            let same = 0;
            for (const c of counts) {
                x += c[score][0];
                y += c[score][1];
                same += c[score][2];
            }
            const m = exactMcNemar(x, y, same);
            const unit = score === "AS" ? `${x + y + same} paired responses` : `${shared} shared instances`;
            // Said the same from either side: the discordant pairs, the larger share first.
            const how = `exact McNemar on ${unit}: ${x + y} discordant (${Math.max(x, y)} to ${Math.min(x, y)}), p = ${m.p < 0.001 ? "<0.001" : m.p.toFixed(3)}`;
            if (m.p >= TIE_ALPHA) return { order: 0, how };
            const order = x > y ? 1 : -1;
            // A paired difference against the scores' own order (they share only part of their instances): a tie.
            if ((order === 1 && va < vb) || (order === -1 && va > vb)) return { order: 0, how: `${how}, against the order of the scores` };
            return { order, how };
        }
    }
    const ia = a.intervals[score];
    const ib = b.intervals[score];
    if (ia.lo > ib.hi) return { order: 1, how: "95% intervals apart" };
    if (ib.lo > ia.hi) return { order: -1, how: "95% intervals apart" };
    return { order: 0, how: "95% intervals overlap" };
}

/** A configuration's place: the ranks it could hold given the ties (lo = hi when it is not tied), and what it is tied with. */
export interface Rank {
    lo: number;
    hi: number;
    /** Configurations it is tied with (ids), each with the test that found no difference. */
    ties: { configId: number; how: string }[];
}

/**
 * Ranks on `score` among `entries`, ties shown as ties: a configuration's best rank is 1 + the number of
 * configurations significantly better than it, its worst the count less those significantly worse. Two
 * configurations whose ranges overlap are not told apart by the data. Entries without a value have no rank.
 */
export function rankEntries(entries: readonly BoardEntry[], score: RankedScore, verdict: (a: BoardEntry, b: BoardEntry) => PairVerdict): Map<number, Rank> {
    const ranked = entries.filter((e) => !Number.isNaN(e[score]));
    const out = new Map<number, Rank>();
    for (const e of ranked) out.set(e.configId, { lo: 1, hi: ranked.length, ties: [] });
    for (let i = 0; i < ranked.length; i++)
        for (let j = i + 1; j < ranked.length; j++) {
            const a = ranked[i]!;
            const b = ranked[j]!;
            const v = verdict(a, b);
            const ra = out.get(a.configId)!;
            const rb = out.get(b.configId)!;
            if (v.order === 1) {
                rb.lo++;
                ra.hi--;
            } else if (v.order === -1) {
                ra.lo++;
                rb.hi--;
            } else {
                ra.ties.push({ configId: b.configId, how: v.how });
                rb.ties.push({ configId: a.configId, how: v.how });
            }
        }
    return out;
}

/** A model's name as benchmark runs and neighbourhood runs are matched by: without an `org/` prefix, its quantisation suffix, a `.gguf`, or case. */
export function modelKey(model: string, quantization: string | null): string {
    let m = model.toLowerCase();
    m = m.slice(m.lastIndexOf("/") + 1);
    if (m.includes("--")) m = m.slice(m.lastIndexOf("--") + 2);
    m = m.replace(/[-_.]gguf$/, "").replace(/\.gguf$/, "");
    if (quantization) {
        const q = quantization.toLowerCase();
        if (m.endsWith(q)) m = m.slice(0, -q.length).replace(/[-_.]$/, "");
    }
    return m;
}

/**
 * The benchmark pass@1 of each neighbourhood entry's model: from the benchmark configurations of the same model
 * (by {@link modelKey}), preferring the same quantisation (or answers of unknown quantisation, as imported ones
 * are), then the same temperature, then the most problems judged; one per benchmark. Keyed by the neighbourhood
 * entry's id. A match at another quantisation or temperature carries them, so the page says so.
 */
export function matchBenchmarks(entries: readonly BoardEntry[]): Map<number, BenchmarkScore[]> {
    const benchmarks = entries.filter((e) => e.benchmark);
    const out = new Map<number, BenchmarkScore[]>();
    if (benchmarks.length === 0) return out;
    for (const e of entries) {
        if (e.benchmark) continue;
        const key = modelKey(e.model, e.quantization);
        const same = benchmarks.filter((b) => modelKey(b.model, b.quantization) === key);
        if (same.length === 0) continue;
        const sameQuant = (b: BoardEntry) => (b.quantization ?? "").toLowerCase() === (e.quantization ?? "").toLowerCase();
        const rank = (b: BoardEntry) => [sameQuant(b) || b.quantization === null ? 0 : 1, b.temperature === e.temperature ? 0 : 1];
        const found: BenchmarkScore[] = [];
        for (const { dataset } of BENCHMARKS) {
            const candidates = same
                .flatMap((b) => b.benchmark!.filter((s) => s.dataset === dataset).map((s) => ({ b, s })))
                .sort((x, y) => {
                    const [q1, t1] = rank(x.b);
                    const [q2, t2] = rank(y.b);
                    return q1! - q2! || t1! - t2! || y.s.problems - x.s.problems;
                });
            if (candidates[0]) found.push(candidates[0].s);
        }
        if (found.length) out.set(e.configId, found);
    }
    return out;
}
