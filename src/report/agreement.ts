import { judgedResponses, publishedVerdicts, type PublishedRerun, type PublishedVerdict } from "../store/publishedVerdicts.js";
import { HARNESS_CATEGORIES, type Category, type ParamValue } from "../vocabulary.js";
import { scoresOverInstances } from "../scores/rates.js";
import type { Store } from "../store/Store.js";
import { evalPlusJudgedOf, type EvalPlusJudged } from "../import/provenance.js";
import { evalPlusNotes, explainEvalPlus } from "./peerEvidence.js";

/** AS, CPS and CCS of one neighbourhood (or their means over neighbourhoods). */
export interface Scores3 {
    AS: number;
    CPS: number;
    CCS: number;
}

/**
 * Why eddy and the other harness disagree on one response, when eddy can tell (EvalPlus's samples
 * have their own list, {@link EVALPLUS_CAUSES}, read from the evidence the import gathered: see
 * peerEvidence.ts):
 * - their_harness: their harness failed (a timeout, a crash), or its own test passes the response on a re-run;
 * - their_inconsistent: their harness gave identical code on the same instance opposite verdicts;
 * - their_test: their test is wrong here: it fails the model solution itself, or passes and fails the same code by the random draw;
 * - eddy_harness: eddy's harness outcome (truncated, judge_error), or a limit of eddy's that a
 *   re-judge alone overturns (stopped as sleeping or blocked, or at the wall-clock backstop: limits
 *   that depend on what else the machine was doing) where their harness passed the answer;
 * - extraction: the two took different code from the response;
 * - oracle: both ran the same code and their tests and eddy's oracle differ.
 */
export type CauseKind = "their_harness" | "their_inconsistent" | "their_test" | "eddy_harness" | "extraction" | "oracle" | "their_defect" | "their_rules" | "dataset" | "unknown";

/** The causes of Turbulence's disagreements (and any other harness's but EvalPlus's). */
export const CAUSE_KINDS: readonly CauseKind[] = ["their_harness", "their_inconsistent", "their_test", "eddy_harness", "extraction", "oracle"];

/** The causes of EvalPlus's disagreements, each from evidence per sample (peerEvidence.ts). */
export const EVALPLUS_CAUSES: readonly CauseKind[] = ["eddy_harness", "their_harness", "their_defect", "their_rules", "dataset", "unknown"];

/** The published verdicts' source that EvalPlus's samples carry (importSamples.ts EVALPLUS_SOURCE). */
const EVALPLUS = "EvalPlus";

/** The causes a report on this source counts. */
export function causeKinds(source: string): readonly CauseKind[] {
    return source === EVALPLUS ? EVALPLUS_CAUSES : CAUSE_KINDS;
}

export interface Disagreement {
    run: string;
    template: string;
    instance: number;
    params: ParamValue[];
    round: number;
    eddy: Category;
    eddyDetail: string;
    published: "correct" | "wrong";
    publishedStage: string;
    publishedDetail: string;
    cause: CauseKind;
    /** One line naming the cause. */
    explanation: string;
    /** What the cause rests on, one finding a line (EvalPlus: the input that decided, the probe's output and CPU times, the datasets). */
    evidence: string[];
    location: string;
    /** The published test re-run in eddy's sandbox, when it was. */
    rerun: PublishedRerun | null;
}

export interface TemplateAgreement {
    template: string;
    responses: number;
    agree: number;
    rate: number;
    eddy: Scores3;
    published: Scores3;
}

/** eddy's verdicts beside the published ones, for runs made by `eddy import turbulence-results`. */
export interface AgreementReport {
    source: string;
    runs: string[];
    /** Responses with both verdicts (eddy's harness outcomes left out, as from scores). */
    responses: number;
    agree: number;
    rate: number;
    /** Both correct, both wrong, only eddy correct, only the published verdict correct. */
    matrix: { bothCorrect: number; bothWrong: number; eddyOnly: number; publishedOnly: number };
    /** Published responses eddy has no model verdict for: missing answers and eddy's harness outcomes. */
    excluded: { missing: number; eddyHarness: number };
    /** Means over templates, each side over its own verdicts. */
    scores: { eddy: Scores3; published: Scores3 };
    templates: TemplateAgreement[];
    /** Counts by cause: the source's causes ({@link causeKinds}). */
    causes: Partial<Record<CauseKind, number>>;
    disagreements: Disagreement[];
    /** What the report says once: which EvalPlus version's rules read the verdicts, a dataset of another version. */
    notes: string[];
}

const HARNESS = new Set<string>(HARNESS_CATEGORIES);
const REJECTING = new Set<string>(["no_function", "wrong_function_name", "wrong_arg_count", "syntax_error"]);

/** AS, CPS and CCS from (instance, correct) pairs: CPS/CCS over instances with a verdict. */
export function scores3(results: { instance: number; correct: boolean }[]): Scores3 {
    const per = new Map<number, { n: number; c: number }>();
    for (const r of results) {
        const s = per.get(r.instance) ?? { n: 0, c: 0 };
        s.n++;
        if (r.correct) s.c++;
        per.set(r.instance, s);
    }
    // The same AS/CPS/CCS as every other report (means over instances), so both sides compare like for like.
    const { AS, CPS, CCS } = scoresOverInstances([...per.values()]);
    return { AS, CPS, CCS };
}

function mean(xs: number[]): number {
    const ok = xs.filter((x) => !Number.isNaN(x));
    return ok.length ? ok.reduce((a, b) => a + b, 0) / ok.length : NaN;
}

const normalise = (code: string | null): string => (code ?? "").replace(/\s+/g, " ").trim();

const failures = (seeds: string | null): number => (seeds ?? "").split("").filter((c) => c === "F").length;

/** What a re-run says, when it decides the cause. */
function fromRerun(p: PublishedVerdict, eddyPassed: boolean): { cause: CauseKind; explanation: string } | undefined {
    const r = p.rerun;
    if (!r) return undefined;
    const ref = failures(r.reference.seeds);
    if (ref > 0)
        return { cause: "their_test", explanation: `their test is wrong here: it fails the model solution itself on ${ref} of ${r.seeds} seeded re-runs (${r.reference.failure})` };
    if (r.reference.seeds === null) return undefined; // the model solution did not run with their test: nothing to learn
    const resp = failures(r.response.seeds);
    if (r.response.seeds === null) return undefined;
    if (!eddyPassed && resp > 0)
        return { cause: "their_test", explanation: `their test fails it too on ${resp} of ${r.seeds} seeded re-runs (${r.response.failure}): their verdict depended on the random draw` };
    // Only their fixed tests are re-run: a fuzzing failure (their == on random inputs) is not re-examined.
    if (eddyPassed && resp === 0 && p.stage === "fixed_tests")
        return { cause: "their_harness", explanation: `their test passes it on all ${r.seeds} seeded re-runs in eddy's sandbox; their harness failed it (${p.detail})` };
    if (eddyPassed && resp > 0)
        return { cause: "oracle", explanation: `their test fails it on ${resp} of ${r.seeds} seeded re-runs (${r.response.failure}) and passes the model solution: eddy's oracle does not check what their test does` };
    return undefined;
}

/**
 * The limit of eddy's own harness that stopped the answer, when it is one that depends on the run
 * rather than on the answer (the answer's CPU time is not: it is the same on any machine), read
 * from the verdict's detail as judge/verdicts.py words it; undefined otherwise.
 */
export function machineLimit(eddy: Category, detail: string): string | undefined {
    if (eddy !== "resource_exhaustion") return undefined;
    if (/^sleeping or blocked /.test(detail)) return "stopped as sleeping or blocked";
    if (/^(wall-clock backstop of \d+ ms reached|the sandbox did not finish within the wall-clock backstop)/.test(detail)) return "stopped at the wall-clock backstop";
    return undefined;
}

/**
 * The cause of one disagreement, first match: a run-dependent limit of eddy's harness; their harness failed (timeout, crash); their test fails
 * the model solution on re-run; identical code got both verdicts; they took other code; then what
 * the re-run shows; else the two oracles differ.
 */
export function explain(p: PublishedVerdict, eddy: Category, eddyDetail: string, code: string | null, inconsistent: { correct: number; total: number } | undefined): { cause: CauseKind; explanation: string } {
    const eddyPassed = eddy === "passed";
    const limit = machineLimit(eddy, eddyDetail);
    if (limit && p.correct)
        return { cause: "eddy_harness", explanation: `eddy's harness: ${limit}, a limit a re-judge alone overturns (${eddyDetail}); their harness passed it` };
    if (p.fault === "timeout") return { cause: "their_harness", explanation: `their harness timed out (${p.detail}); eddy: ${eddy}` };
    if (p.fault === "crash") return { cause: "their_harness", explanation: `their harness crashed (${p.detail}); eddy: ${eddy}` };
    const rerun = fromRerun(p, eddyPassed);
    if (rerun?.cause === "their_test") return rerun;
    if (inconsistent)
        return {
            cause: "their_inconsistent",
            explanation: `their harness: inconsistent verdicts for identical code (${inconsistent.correct} of ${inconsistent.total} identical answers on this instance marked correct)`
        };
    if (p.stage === "rejected" && p.extracted !== null && normalise(p.extracted) !== normalise(code) && (eddyPassed || !REJECTING.has(eddy)))
        return { cause: "extraction", explanation: "their harness took different code from the response and found no usable function; eddy extracted the function" };
    if (rerun) return rerun;
    if (eddyPassed) return { cause: "oracle", explanation: `their tests failed it at ${p.stage} (${p.detail}); eddy's oracle accepts it` };
    return { cause: "oracle", explanation: `eddy: ${eddy}: ${eddyDetail}; their harness passed it` };
}

/** Groups of identical code on one instance whose published verdicts differ: `template|params|code` → counts. */
function inconsistentGroups(items: { p: PublishedVerdict; params: string; code: string | null }[]): Map<string, { correct: number; total: number }> {
    const groups = new Map<string, { correct: number; total: number }>();
    for (const { p, params, code } of items) {
        const body = normalise(p.extracted ?? code);
        if (!body) continue;
        const key = `${p.templateId}|${params}|${body}`;
        const g = groups.get(key) ?? { correct: 0, total: 0 };
        g.total++;
        if (p.correct) g.correct++;
        groups.set(key, g);
    }
    for (const [k, g] of groups) if (g.correct === 0 || g.correct === g.total) groups.delete(k);
    return groups;
}

/** The agreement of eddy's verdicts with the published ones over the given runs; undefined when none of them has published verdicts. */
export function buildAgreement(store: Store, runIds: readonly string[]): AgreementReport | undefined {
    const published = runIds.flatMap((run) => publishedVerdicts(store, run).map((p) => ({ run, p })));
    if (published.length === 0) return undefined;
    const eddyRows = judgedResponses(store, runIds);
    const rowOf = (run: string, p: PublishedVerdict) => eddyRows.get(`${run}|${p.templateId}|${p.instance}|${p.round}`);
    // Identical code on the same instance (across rounds and across the runs compared, e.g. two models) should get one verdict.
    const groups = inconsistentGroups(
        published.flatMap(({ run, p }) => {
            const e = rowOf(run, p);
            return e ? [{ p, params: e.params_json, code: e.code }] : [];
        })
    );

    const source = published[0]!.p.source;
    // What is known of the EvalPlus that judged each run's samples (recorded at import).
    const judged = new Map<string, EvalPlusJudged | undefined>();
    if (source === EVALPLUS)
        for (const run of runIds) judged.set(run, store.configurations(run).map((c) => evalPlusJudgedOf(c.metadata_json ? (JSON.parse(c.metadata_json) as Record<string, unknown>) : null)).find((j) => j !== undefined));
    const report: AgreementReport = {
        source,
        runs: [...runIds],
        responses: 0,
        agree: 0,
        rate: NaN,
        matrix: { bothCorrect: 0, bothWrong: 0, eddyOnly: 0, publishedOnly: 0 },
        excluded: { missing: 0, eddyHarness: 0 },
        scores: { eddy: { AS: NaN, CPS: NaN, CCS: NaN }, published: { AS: NaN, CPS: NaN, CCS: NaN } },
        templates: [],
        causes: Object.fromEntries(causeKinds(source).map((k) => [k, 0])),
        disagreements: [],
        notes: source === EVALPLUS ? [...new Set(runIds.flatMap((run) => evalPlusNotes(judged.get(run))))] : []
    };
    const perTemplate = new Map<string, { eddy: { instance: number; correct: boolean }[]; published: { instance: number; correct: boolean }[]; n: number; agree: number }>();
    for (const { run, p } of published) {
        const key = `${run}|${p.templateId}`;
        const t = perTemplate.get(key) ?? { eddy: [], published: [], n: 0, agree: 0 };
        perTemplate.set(key, t);
        t.published.push({ instance: p.instance, correct: p.correct });
        const e = rowOf(run, p);
        if (!e || e.missing === 1 || e.category === null) {
            report.excluded.missing++;
            continue;
        }
        if (HARNESS.has(e.category)) {
            report.excluded.eddyHarness++;
            report.causes.eddy_harness = (report.causes.eddy_harness ?? 0) + 1;
            continue;
        }
        const eddyCorrect = e.category === "passed";
        t.eddy.push({ instance: p.instance, correct: eddyCorrect });
        t.n++;
        report.responses++;
        if (eddyCorrect === p.correct) {
            t.agree++;
            report.agree++;
            if (eddyCorrect) report.matrix.bothCorrect++;
            else report.matrix.bothWrong++;
            continue;
        }
        if (eddyCorrect) report.matrix.eddyOnly++;
        else report.matrix.publishedOnly++;
        const group = groups.get(`${p.templateId}|${e.params_json}|${normalise(p.extracted ?? e.code)}`);
        const { cause, explanation, evidence } =
            source === EVALPLUS ? explainEvalPlus(p, e.category, e.detail ?? "", judged.get(run), machineLimit(e.category, e.detail ?? "")) : { ...explain(p, e.category, e.detail ?? "", e.code, group), evidence: [] as string[] };
        report.causes[cause] = (report.causes[cause] ?? 0) + 1;
        report.disagreements.push({
            run,
            template: p.templateId,
            instance: p.instance,
            params: JSON.parse(e.params_json),
            round: p.round,
            eddy: e.category,
            eddyDetail: e.detail ?? "",
            published: p.correct ? "correct" : "wrong",
            publishedStage: p.stage,
            publishedDetail: p.detail,
            cause,
            explanation,
            evidence,
            location: p.location,
            rerun: p.rerun ?? null
        });
    }
    report.rate = report.responses ? report.agree / report.responses : NaN;
    report.templates = [...perTemplate.entries()]
        .map(([key, t]) => ({ template: key.split("|")[1]!, responses: t.n, agree: t.agree, rate: t.n ? t.agree / t.n : NaN, eddy: scores3(t.eddy), published: scores3(t.published) }))
        .sort((a, b) => a.template.localeCompare(b.template));
    for (const side of ["eddy", "published"] as const)
        report.scores[side] = {
            AS: mean(report.templates.map((t) => t[side].AS)),
            CPS: mean(report.templates.map((t) => t[side].CPS)),
            CCS: mean(report.templates.map((t) => t[side].CCS))
        };
    return report;
}
