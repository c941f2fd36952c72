// The categories live in the shared vocabulary (src/vocabulary.ts); import them from there.
import type { Category, ParamValue } from "../vocabulary.js";

export interface Verdict {
    category: Category;
    /** Short detail: the first failing test, the first disagreeing input with both outputs, or the exception. */
    detail: string;
    /** Time the judge spent on it, milliseconds. */
    ms: number;
    /** True when it came from the verdict cache rather than a fresh run. */
    cached?: boolean;
    /** Which limit decided a resource_exhaustion: "cpu" (the CPU-time budget), "blocked" (sleeping), "wall" (backstop). */
    limit?: "cpu" | "blocked" | "wall";
    /** CPU time the answer's code used (ms), when the keeper measured it. */
    cpuMs?: number;
    /** The CPU-time budget it had (ms): the template's floor scaled to this machine, or 10× the model solution. */
    budgetMs?: number;
    /** Judged a second time, alone, because the first run was over budget by less than the margin. */
    rejudged?: boolean;
    /** For a fuzzing_failure: the smallest input found on which the answer and the model solution still differ (the verdict is unchanged). */
    shrunk?: ShrunkInput;
}

/**
 * The failing random input shrunk (eddy_judge/shrink.py): re-drawn from the template's own generator
 * with fewer and smaller draws, so it stays inside the question's domain, and checked in the sandbox.
 */
export interface ShrunkInput {
    /** The call, as the verdict's detail writes one: `f([1, -2], k=3)`. */
    call: string;
    /** What the model solution gives there. */
    expected: string;
    /** What the answer gives there (a value, or the exception it raised). */
    actual: string;
    /** The failing input it was shrunk from. */
    from: string;
    /** Inputs the answer was run on while shrinking, and how many of them made the input smaller. */
    tried: number;
    steps: number;
}

/** How strongly candidate code is contained on this machine; recorded with every run. */
export interface IsolationReport {
    /** e.g. "bwrap+userns+pidns+mountns+ipcns+netns+utsns+nocaps+seccomp-allowlist+rlimits", or "NO-SANDBOX+…" in the fallback. */
    level: string;
    /** False when no sandbox could be made: answers then run WITHOUT one (see notes). */
    sandboxed: boolean;
    /** "bwrap" (bubblewrap's world, per-candidate namespaces) or "none". */
    mode: "bwrap" | "none";
    /** The mechanism in words: bubblewrap version, namespaces, capabilities, seccomp, cgroup or not. */
    mechanism: string;
    /** bubblewrap's version line, or null without it. */
    bubblewrap: string | null;
    seccomp: "allow-list" | "deny-list" | "none";
    /** Whether memory is accounted by a cgroup (it is not: RLIMIT_AS and tmpfs sizes bound it). */
    cgroup: boolean;
    /** This machine's speed relative to the reference machine: CPU budgets are scaled by it. */
    cpuFactor: number;
    /** Where cpuFactor came from: fixed by EDDY_JUDGE_CPU_FACTOR ("env"), stored from a quiet
     * measurement on this machine ("cache"), measured quiet now and stored ("measured"), or measured
     * on a busy machine and not stored ("measured-busy"). */
    cpuFactorSource: "env" | "cache" | "measured" | "measured-busy";
    network: "namespace" | "seccomp" | "none";
    pidNamespace: boolean;
    /** Candidates run under a uid of their own (eddy started as root). */
    unprivilegedUser: boolean;
    rlimits: string[];
    notes: string[];
}

/**
 * The judge's Python environment (eddy_judge/environment.py): the interpreter and the third-party
 * packages it offers answers, from its own site folders (bound read-only into the sandbox, on the
 * answers' path after the standard library). Recorded with every run (isolation_json `python`).
 */
export interface JudgeEnvironment {
    /** The interpreter's real path (`sys.executable`, resolved). */
    executable: string;
    /** Its version, e.g. "3.11.2". */
    version: string;
    /** `sys.implementation.name`: "cpython", "pypy". */
    implementation: string;
    /** The site folders answers import from, in path order. */
    sitePackages: string[];
    /** Distribution name → version of each package installed there (numpy among them, where installed). */
    packages: Record<string, string>;
}

/** One answer to judge: the template, the instance's parameter values and the extracted code. */
export interface JudgeRequest {
    template: import("../templates/types.js").Template;
    /** Parameter values by name (Instance.bindings). */
    bindings: Record<string, ParamValue>;
    /** Extracted code; null when nothing could be extracted (→ no_function). */
    code: string | null;
    /** Shrink a fuzzing failure's input to the smallest that still fails (Verdict.shrunk); off by default. */
    shrink?: boolean;
    /** The answer's language (default: DEFAULT_LANGUAGE, src/languages). */
    language?: import("../languages/languages.js").Language;
}

/** Where verdicts are remembered between identical judgements; the store may persist one. */
export interface VerdictCache {
    get(key: string): Verdict | undefined;
    set(key: string, v: Verdict): void;
}
