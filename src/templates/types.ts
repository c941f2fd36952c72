import type { ProblemGroup, ReturnType } from "./taxonomy.js";

// ParamValue lives in the shared vocabulary (src/vocabulary.ts); import it from there.
import type { ParamValue } from "../vocabulary.js";

/** One named parameter and the domain its values are drawn from (see src/templates/domains). */
export interface ParamSpec {
    name: string;
    /** The parsed domain; its shape is owned by src/templates/domains. */
    domain: Record<string, unknown> & { kind: string };
}

/** Limits for one candidate run; the judge applies them to every forked child. */
export interface Budget {
    timeMs: number;
    memoryMb: number;
}

/** A question template (templates/<id>.yaml) joined with its oracle (oracles/<id>.py). */
export interface Template {
    id: string;
    /** Name the answer's function must have. */
    function: string;
    /** Number of arguments it must take. */
    arity: number;
    group: ProblemGroup;
    /** Canonical subgroup names of `group` (src/templates/taxonomy.ts). */
    subgroups: string[];
    /** The answer's declared type (`returns:`); required of shipped templates. */
    returns?: ReturnType;
    /** The reading a careful programmer might take, and how the wording or the oracle rules it out; required of shipped templates. */
    ambiguity?: string;
    /** Question text with `{{name}}` placeholders. */
    question: string;
    params: ParamSpec[];
    /** Expression over the parameter names that every tuple must satisfy, e.g. `lo <= hi`. */
    constraint?: string;
    /** Hand-chosen edge tuples, in `params` order; they come first in every neighbourhood. */
    edge: ParamValue[][];
    /** Named edge cases (`edges:`) that the oracle's `edge_cases(args, **params)` recognises in an input. */
    edges?: string[];
    /** Comparator name for differential testing (ordered, unordered, float:1e-9, …) unless the oracle defines `compare`. */
    comparator: string;
    budget: Budget;
    /** K: random differential-testing inputs per instance. */
    randomInputs: number;
    /** Problems that do not stop the template from loading (a missing `ambiguity:` or `returns:`). */
    warnings?: string[];
    /** Absolute paths of the YAML and the oracle. */
    file: string;
    oracleFile: string;
    /** sha256 over the YAML and oracle bytes: recorded with every run, part of the verdict cache key. */
    oracleHash: string;
}

/** A template with one concrete parameter tuple: one question of the neighbourhood. */
export interface Instance {
    templateId: string;
    /** Position in the seeded neighbourhood (0-based): edge tuples first. */
    index: number;
    /** The tuple, in the template's `params` order. */
    params: ParamValue[];
    /** The same values by name. */
    bindings: Record<string, ParamValue>;
    /** The rendered question. */
    question: string;
}
