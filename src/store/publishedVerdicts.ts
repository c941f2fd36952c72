import type { Category } from "../vocabulary.js";
import { capDetail } from "../util/detail.js";
import { connection } from "./connection.js";
import type { Store } from "./Store.js";

/** One side of a re-run of the other harness's own test: on the response, or on the model solution. */
export interface RerunSide {
    /** The judge's category for the run as a whole: passed (every seed passed), assertion_error (some seed failed), or why the code did not run. */
    category: string;
    /** One letter per seed, P (their test passed) or F; null when the code did not run. */
    seeds: string | null;
    /** The first failure ("seed 3: test_x: AssertionError: …"), or why the code did not run; null when every seed passed. */
    failure: string | null;
}

/** A sandboxed re-run of the published test, seeded, on the response and on the model solution. */
export interface PublishedRerun {
    seeds: number;
    response: RerunSide;
    reference: RerunSide;
}

/** What a probe of one answer on one input found (src/import/humaneval/probe.ts), compared in the trusted worker. */
export interface ProbeFacts {
    /** The input probed: `<group>:<index>` among the imported problem's inputs. */
    at?: string;
    /** The imported problem's own rule (EvalPlus's current) accepts the output. */
    eddyAccepts?: boolean | null;
    /** out == expected. */
    exact?: boolean;
    sameType?: boolean;
    /** Both lists or tuples of one length (null: not both sequences). */
    sameLength?: boolean | null;
    /** EvalPlus's is_floats(expected), now and before de8c082 (an empty list counted as floats). */
    floats?: boolean;
    floatsBefore?: boolean;
    /** The tolerance EvalPlus held at this input, before and after its float rule. */
    atolBefore?: number | null;
    atol?: number | null;
    /** np.allclose(out, expected, rtol=1e-07, atol) (atol 1e-6 where it is 0). */
    allclose?: boolean | null;
    /** The largest distance between the output's numbers and the expected ones, in units in the last place, and as a number. */
    ulps?: number | null;
    difference?: number | null;
    /** Both values, cut to 48 characters. */
    output?: string;
    expected?: string;
    /** eddy's limit of this input at import (reference-machine ms): max(min limit, 4 x the canonical solution's time). */
    limitMs?: number | null;
    /** Compared by its digest (an output too large to keep). */
    digest?: boolean;
    /** The input EvalPlus named is not among the imported problem's inputs. */
    notFound?: boolean;
    error?: string;
    /** CPU time of the one call, as the answer's own process measured it (time.process_time around it), ms on this machine. */
    callMs?: number;
}

/** One probe run: `answered` with what was found, or the judge's category when the call gave no output (it raised, ran out of time). */
export interface ProbeOutcome {
    category: string;
    /** CPU time of the one call (the answer's process times it: evidence, not a verdict), ms on this machine; null when it gave no output. */
    cpuMs: number | null;
    facts?: ProbeFacts;
    detail?: string;
}

/**
 * What eddy found out about one response where its verdict and the published one differ (EvalPlus
 * samples): the input that decided and whose failure names it, what the answer and the canonical
 * solution do there in eddy's sandbox, and the host factor that turns this machine's CPU time
 * into the reference machine's (reference ms = ms here / factor).
 */
export interface PeerEvidence {
    /** Whose failure names the input: the published verdict's (its failing input) or eddy's (its failing fixed test). */
    side: "published" | "eddy";
    /** The problem's dataset and entry point (EvalPlus's special oracles and defects are by entry point). */
    dataset?: string;
    entryPoint?: string;
    /** Its group (base | plus), and the published status of that group. */
    group: string | null;
    status: string | null;
    /** The input as the results file names it (cut), when it names one. */
    reported: string | null;
    answer?: ProbeOutcome;
    canonical?: ProbeOutcome | null;
    cpuFactor?: number;
    /** Names in the answer that EvalPlus's sandbox (reliability_guard) disables. */
    guarded?: string[];
    /** Why nothing was probed. */
    note?: string;
}

/** A verdict another harness published for one response of a run. */
export interface PublishedVerdict {
    templateId: string;
    instance: number;
    round: number;
    source: string;
    correct: boolean;
    /** Where that harness stopped: passed | rejected (no usable function) | fixed_tests | fuzzing | unknown. */
    stage: "passed" | "rejected" | "fixed_tests" | "fuzzing" | "unknown";
    /** A failure of that harness itself, not of the response. */
    fault: "timeout" | "crash" | null;
    detail: string;
    /** The code as that harness extracted it from the response, when it can be reproduced. */
    extracted: string | null;
    location: string;
    /** The published response file as it is (a printed SDK object, JSON or text). */
    raw?: string | null;
    /** How it was read (responseForms.ts). */
    form?: string | null;
    /** Where eddy and that harness disagree: its test re-run in eddy's sandbox. */
    rerun?: PublishedRerun | null;
    /** Where eddy and that harness disagree: what eddy found out about the response (EvalPlus samples). */
    evidence?: PeerEvidence | null;
}

/** Stores the published verdicts of a run (a re-import replaces them); details are capped by {@link capDetail}. */
export function writePublishedVerdicts(store: Store, runId: string, rows: PublishedVerdict[]): void {
    store.write(() => {
        const ins = connection(store).prepare(
            `INSERT OR REPLACE INTO published_verdicts (run_id, template_id, instance_idx, round, source, correct, stage, fault, detail, extracted, location, raw, form, rerun_json, evidence_json)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
        );
        for (const r of rows)
            ins.run(
                runId,
                r.templateId,
                r.instance,
                r.round,
                r.source,
                r.correct ? 1 : 0,
                r.stage,
                r.fault,
                capDetail(r.detail),
                r.extracted,
                r.location,
                r.raw ?? null,
                r.form ?? null,
                r.rerun ? JSON.stringify(r.rerun) : null,
                r.evidence ? JSON.stringify(r.evidence) : null
            );
    });
}

/** Records re-runs of the published test for some responses of a run. */
export function writePublishedReruns(store: Store, runId: string, rows: { templateId: string; instance: number; round: number; rerun: PublishedRerun }[]): void {
    store.write(() => {
        const up = connection(store).prepare("UPDATE published_verdicts SET rerun_json = ? WHERE run_id = ? AND template_id = ? AND instance_idx = ? AND round = ?");
        for (const r of rows) up.run(JSON.stringify(r.rerun), runId, r.templateId, r.instance, r.round);
    });
}

/** The published verdicts of a run, or none; an older database without the table (or its later columns) has none of them. */
export function publishedVerdicts(store: Store, runId: string): PublishedVerdict[] {
    const table = connection(store).prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'published_verdicts'").get();
    if (!table) return [];
    const rows = connection(store).prepare("SELECT * FROM published_verdicts WHERE run_id = ? ORDER BY template_id, instance_idx, round").all(runId) as {
        template_id: string;
        instance_idx: number;
        round: number;
        source: string;
        correct: number;
        stage: PublishedVerdict["stage"];
        fault: PublishedVerdict["fault"];
        detail: string;
        extracted: string | null;
        location: string;
        raw?: string | null;
        form?: string | null;
        rerun_json?: string | null;
        evidence_json?: string | null;
    }[];
    return rows.map((r) => ({
        templateId: r.template_id,
        instance: r.instance_idx,
        round: r.round,
        source: r.source,
        correct: r.correct === 1,
        stage: r.stage,
        fault: r.fault,
        detail: r.detail,
        extracted: r.extracted,
        location: r.location,
        raw: r.raw ?? null,
        form: r.form ?? null,
        rerun: r.rerun_json ? (JSON.parse(r.rerun_json) as PublishedRerun) : null,
        evidence: r.evidence_json ? (JSON.parse(r.evidence_json) as PeerEvidence) : null
    }));
}

/** eddy's side of one response of a run: its instance, extracted code and verdict (category null: not judged). */
export interface JudgedResponse {
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

/** Every response of the runs with eddy's verdict, keyed `run|template|instance|round`. */
export function judgedResponses(store: Store, runIds: readonly string[]): Map<string, JudgedResponse> {
    const stmt = connection(store).prepare(
        `SELECT c.run_id, g.template_id, g.instance_idx, g.round, i.params_json, g.code, g.missing, v.category, v.detail
         FROM generations g JOIN configurations c ON c.id = g.config_id
         JOIN instances i ON i.run_id = c.run_id AND i.template_id = g.template_id AND i.idx = g.instance_idx
         LEFT JOIN verdicts v ON v.generation_id = g.id
         WHERE c.run_id = ?`
    );
    const out = new Map<string, JudgedResponse>();
    for (const run of runIds) for (const r of stmt.all(run) as JudgedResponse[]) out.set(`${r.run_id}|${r.template_id}|${r.instance_idx}|${r.round}`, r);
    return out;
}
