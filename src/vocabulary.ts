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
