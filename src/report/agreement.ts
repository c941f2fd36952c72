import { publishedVerdicts, type PublishedVerdict } from "../import/store.js";
import { HARNESS_CATEGORIES, type Category } from "../judge/types.js";
import { scoresOverInstances } from "../scores/rates.js";
import type { Store } from "../store/Store.js";
import type { ParamValue } from "../templates/types.js";

/** AS, CPS and CCS of one neighbourhood (or their means over neighbourhoods). */
export interface Scores3 {
    AS: number;
    CPS: number;
    CCS: number;
}

/** Why eddy and the other harness disagree on one response, when eddy can tell. */
export type CauseKind = "their_harness" | "eddy_harness" | "extraction" | "oracle";

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
    location: string;
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
    causes: Record<CauseKind, number>;
    disagreements: Disagreement[];
}

interface Row {
    run_id: string;
    template_id: string;
    instance_idx: number;
    round: number;
    params_json: string;
    code: string | null;
    missing: number;
    category: Category | null;
    detail: string | null;
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

function explain(p: PublishedVerdict, eddy: Category, eddyDetail: string, code: string | null): { cause: CauseKind; explanation: string } {
    const eddyPassed = eddy === "passed";
    if (p.fault === "timeout") return { cause: "their_harness", explanation: `their harness timed out (${p.detail}); eddy: ${eddy}` };
    if (p.fault === "crash") return { cause: "their_harness", explanation: `their harness crashed (${p.detail}); eddy: ${eddy}` };
    if (p.stage === "rejected" && p.extracted !== null && normalise(p.extracted) !== normalise(code) && (eddyPassed || !REJECTING.has(eddy)))
        return { cause: "extraction", explanation: "their harness took different code from the response (text outside the first code block) and found no usable function; eddy extracted the function" };
    if (eddyPassed) return { cause: "oracle", explanation: `their tests failed it at ${p.stage} (${p.detail}); eddy's oracle accepts it` };
    return { cause: "oracle", explanation: `eddy: ${eddy}: ${eddyDetail}; their harness passed it` };
}

/** The agreement of eddy's verdicts with the published ones over the given runs; undefined when none of them has published verdicts. */
export function buildAgreement(store: Store, runIds: readonly string[]): AgreementReport | undefined {
    const published = runIds.flatMap((run) => publishedVerdicts(store, run).map((p) => ({ run, p })));
    if (published.length === 0) return undefined;
    const stmt = store.db.prepare(
        `SELECT c.run_id, g.template_id, g.instance_idx, g.round, i.params_json, g.code, g.missing, v.category, v.detail
         FROM generations g JOIN configurations c ON c.id = g.config_id
         JOIN instances i ON i.run_id = c.run_id AND i.template_id = g.template_id AND i.idx = g.instance_idx
         LEFT JOIN verdicts v ON v.generation_id = g.id
         WHERE c.run_id = ?`
    );
    const eddyRows = new Map<string, Row>();
    for (const run of runIds) for (const r of stmt.all(run) as Row[]) eddyRows.set(`${r.run_id}|${r.template_id}|${r.instance_idx}|${r.round}`, r);

    const report: AgreementReport = {
        source: published[0]!.p.source,
        runs: [...runIds],
        responses: 0,
        agree: 0,
        rate: NaN,
        matrix: { bothCorrect: 0, bothWrong: 0, eddyOnly: 0, publishedOnly: 0 },
        excluded: { missing: 0, eddyHarness: 0 },
        scores: { eddy: { AS: NaN, CPS: NaN, CCS: NaN }, published: { AS: NaN, CPS: NaN, CCS: NaN } },
        templates: [],
        causes: { their_harness: 0, eddy_harness: 0, extraction: 0, oracle: 0 },
        disagreements: []
    };
    const perTemplate = new Map<string, { eddy: { instance: number; correct: boolean }[]; published: { instance: number; correct: boolean }[]; n: number; agree: number }>();
    for (const { run, p } of published) {
        const key = `${run}|${p.templateId}`;
        const t = perTemplate.get(key) ?? { eddy: [], published: [], n: 0, agree: 0 };
        perTemplate.set(key, t);
        t.published.push({ instance: p.instance, correct: p.correct });
        const e = eddyRows.get(`${run}|${p.templateId}|${p.instance}|${p.round}`);
        if (!e || e.missing === 1 || e.category === null) {
            report.excluded.missing++;
            continue;
        }
        if (HARNESS.has(e.category)) {
            report.excluded.eddyHarness++;
            report.causes.eddy_harness++;
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
        const { cause, explanation } = explain(p, e.category, e.detail ?? "", e.code);
        report.causes[cause]++;
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
            location: p.location
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
