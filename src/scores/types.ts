import type { Category } from "../judge/types.js";
import type { ParamValue } from "../templates/types.js";

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
