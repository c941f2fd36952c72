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

export interface Verdict {
    category: Category;
    /** Short detail: the first failing test, the first disagreeing input with both outputs, or the exception. */
    detail: string;
    /** Time the judge spent on it, milliseconds. */
    ms: number;
    /** True when it came from the verdict cache rather than a fresh run. */
    cached?: boolean;
}

/** How strongly candidate code is contained on this machine; recorded with every run. */
export interface IsolationReport {
    /** e.g. "netns+pidns+uid" or "rlimits+socket-block". */
    level: string;
    network: "namespace" | "socket-blocked" | "none";
    pidNamespace: boolean;
    unprivilegedUser: boolean;
    rlimits: string[];
    notes: string[];
}

/** One answer to judge: the template, the instance's parameter values and the extracted code. */
export interface JudgeRequest {
    template: import("../templates/types.js").Template;
    /** Parameter values by name (Instance.bindings). */
    bindings: Record<string, import("../templates/types.js").ParamValue>;
    /** Extracted code; null when nothing could be extracted (→ no_function). */
    code: string | null;
}

/** Where verdicts are remembered between identical judgements; the store may persist one. */
export interface VerdictCache {
    get(key: string): Verdict | undefined;
    set(key: string, v: Verdict): void;
}
