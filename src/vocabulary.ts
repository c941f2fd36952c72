/**
 * The words every stage of eddy shares: what a prompt is made of (ChatMessage), what a question's
 * parameters are (ParamValue), what the judge can say (verdict categories) and what the scoring side
 * reads (Outcome). Defined once here so the store, the pipeline, the judge and the scores agree
 * without importing from each other.
 */

/** A parameter value substituted into a question: numbers, strings (incl. single characters), booleans, lists. */
export type ParamValue = number | string | boolean | ParamValue[];

/** One message of a chat prompt. */
export interface ChatMessage {
    role: "system" | "user" | "assistant";
    content: string;
}

/**
 * Verdict categories, in the order the judge checks them (SPEC §2; first match wins).
 * Kept identical to the Turbulence taxonomy so results stay comparable.
 */
export const MODEL_CATEGORIES = [
    "no_function",
    "wrong_function_name",
    "wrong_arg_count",
    "syntax_error",
    "static_error",
    "resource_exhaustion",
    "runtime_error",
    "assertion_error",
    "fuzzing_failure",
    "passed"
] as const;
export type ModelCategory = (typeof MODEL_CATEGORIES)[number];

/** Outcomes that are not the model's fault; reported apart, never counted as model failures. */
export const HARNESS_CATEGORIES = ["truncated", "judge_error"] as const;
export type HarnessCategory = (typeof HARNESS_CATEGORIES)[number];

export type Category = ModelCategory | HarnessCategory;

/**
 * Which configuration and which neighbourhood (template) a row belongs to: the identifying
 * fields shared by judged responses ({@link Outcome}) and the scores computed from them.
 */
export interface NeighbourhoodKey {
    /** The run the row comes from. */
    runId: string;
    /** Configuration label, unique within the compared runs: model × quantisation × temperature × prompt wrapper. */
    config: string;
    /** Model label. */
    model: string;
    /** Quantisation type of the model file, when known. */
    quantization: string | null;
    /** Sampling temperature. */
    temperature: number;
    /** Prompt wrapper id. */
    wrapper: string;
    /** Template (neighbourhood) id. */
    template: string;
    /** The template's problem group. */
    group: string;
    /** The template's subgroups. */
    subgroups: string[];
}

/**
 * One judged response as the scoring side sees it: the contract between the store
 * (src/store, which produces these rows) and scores/reports (which only read them).
 */
export interface Outcome extends NeighbourhoodKey {
    instance: number;
    params: ParamValue[];
    round: number;
    seed: number;
    category: Category;
    detail: string;
    code: string | null;
    response: string;
}

/** How responses are computed: `reproducible` (default; byte-identical across runs, resumes and batching) or `fast` (opt-in). */
export const DECODING_MODES = ["reproducible", "fast"] as const;
export type DecodingMode = (typeof DECODING_MODES)[number];

/**
 * The words for a run's answers, defined once (issue #47): `eddy run`'s summary, `runs list` and `runs show`,
 * `eddy report` in every format, the viewer and the exports count and say them with these, so "judged",
 * "missing" and "complete" mean one thing for one run everywhere.
 *
 * - An answer is **planned** for each configuration × instance × round of the run.
 * - An answer is **judged** when the judge gave it a model verdict (one of {@link MODEL_CATEGORIES}):
 *   `truncated` and `judge_error` are the harness's outcomes, never judgements of the model, and an
 *   answer not generated or not judged yet, or absent from a replay file, has none. "judged N of P":
 *   N judged answers of P planned ones. (An instance counts as judged when one of its answers is: the
 *   coverage behind a neighbourhood's category, always shown as "instances", e.g. "3 of 4".)
 * - An answer is **missing** when it is planned and has no outcome at all (no verdict, harness or model).
 * - A run is **complete** when its study finished and no planned answer is missing; a finished run with
 *   answers missing is **incomplete**, never "complete". A run that did not finish keeps its status
 *   (`interrupted`, `running`, `failed`).
 */
export interface AnswerCounts {
    planned: number;
    judged: number;
    passed: number;
    truncated: number;
    judge_error: number;
    missing: number;
}

/** Whether an answer's category is a judgement of the model (see {@link AnswerCounts}). */
export function isJudged(category: string | null | undefined): boolean {
    return (MODEL_CATEGORIES as readonly string[]).includes(category ?? "");
}

/**
 * A run's (or a configuration's) answers from its planned count and its outcomes by category; planned
 * is never below the outcomes there are (a run from before eddy recorded its rounds).
 */
export function countAnswers(planned: number, categories: Readonly<Partial<Record<string, number>>>): AnswerCounts {
    let judged = 0;
    for (const [category, n] of Object.entries(categories)) if (isJudged(category)) judged += n ?? 0;
    const truncated = categories.truncated ?? 0;
    const judge_error = categories.judge_error ?? 0;
    const outcomes = judged + truncated + judge_error;
    const all = Math.max(planned, outcomes);
    return { planned: all, judged, passed: categories.passed ?? 0, truncated, judge_error, missing: all - outcomes };
}

/** Judged answers of planned ones, as every table shows them: "3 of 8". */
export function judgedOf(c: Pick<AnswerCounts, "judged" | "planned">): string {
    return `${c.judged} of ${c.planned}`;
}

/** A run's answers in one phrase: "judged 3 of 8, 2 passed; 5 missing" (harness outcomes and missing ones named when there are any). */
export function answersPhrase(c: AnswerCounts): string {
    const apart = [c.truncated ? `${c.truncated} truncated` : "", c.judge_error ? `${c.judge_error} judge_error` : "", c.missing ? `${c.missing} missing` : ""].filter(Boolean);
    return `judged ${judgedOf(c)}, ${c.passed} passed${apart.length ? `; ${apart.join(", ")}` : ""}`;
}

/**
 * A run's state in words (see {@link AnswerCounts}): `complete`, `incomplete: 5 answers missing` (short:
 * `incomplete`), or its status with the answers missing (`interrupted, 20 answers missing`; short: the status).
 */
export function runState(status: string, missing: number, opts: { short?: boolean } = {}): string {
    if (missing === 0) return status;
    const words = `${missing} answer${missing === 1 ? "" : "s"} missing`;
    if (status === "complete") return opts.short ? "incomplete" : `incomplete: ${words}`;
    return opts.short ? status : `${status}, ${words}`;
}
