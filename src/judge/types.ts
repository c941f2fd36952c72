// The categories live in the shared vocabulary (src/vocabulary.ts); re-exported for existing imports.
import type { Category } from "../vocabulary.js";
export { MODEL_CATEGORIES, HARNESS_CATEGORIES, type ModelCategory, type HarnessCategory, type Category } from "../vocabulary.js";

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
    /** e.g. "namespaces+netns+pidns+mountns+ipcns+utsns+uid+rlimits+seccomp", or "NO-SANDBOX+…" in the fallback. */
    level: string;
    /** False when no namespace could be made: answers then run WITHOUT a sandbox (see notes). */
    sandboxed: boolean;
    /** "namespaces" (root), "userns" (unprivileged user namespace) or "none". */
    mode: "namespaces" | "userns" | "none";
    network: "namespace" | "seccomp" | "none";
    pidNamespace: boolean;
    /** Candidates run under a uid of their own (eddy started as root). */
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
