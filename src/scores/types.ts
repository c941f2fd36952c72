import type { Category } from "../judge/types.js";
import type { ParamValue } from "../templates/types.js";

/**
 * One judged response as the scoring side sees it: the contract between the store
 * (src/store, which produces these rows) and scores/reports (which only read them).
 */
export interface Outcome {
    runId: string;
    /** Configuration label, unique within the compared runs: model × quantisation × temperature × prompt wrapper. */
    config: string;
    model: string;
    quantization: string | null;
    temperature: number;
    wrapper: string;
    template: string;
    group: string;
    subgroups: string[];
    instance: number;
    params: ParamValue[];
    round: number;
    seed: number;
    category: Category;
    detail: string;
    code: string | null;
    response: string;
}
