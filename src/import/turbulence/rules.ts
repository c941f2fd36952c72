import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { PROBLEM_GROUPS, type ProblemGroup } from "../../templates/taxonomy.js";
import { EddyError, oneLine } from "../../util/errors.js";

/**
 * How Turbulence turns one value of `input_generator()` into call arguments:
 * `spread` (a tuple becomes several arguments, anything else one argument), `single` (always
 * one argument, even a tuple), `list` (the value is the argument list itself).
 */
export const ARGUMENT_RULES = ["spread", "single", "list"] as const;
export type ArgumentRule = (typeof ARGUMENT_RULES)[number];

/** What eddy must know about one question that Turbulence's harness decides by its number. */
export interface QuestionRule {
    arguments?: ArgumentRule;
    /** An eddy comparator (ordered, unordered, set, float:<tol>), or a Turbulence rule with no eddy equivalent. */
    comparator?: string;
    group?: ProblemGroup;
    subgroup?: string;
    /** Why the rule exists; shown in warnings and written into the template. */
    note?: string;
}

/**
 * Turbulence's harness (benchmark_test.py) special-cases some questions by number. These are those
 * rules, as data: the importer writes them into each template (comparator field, declared argument
 * rule), so no eddy code depends on a question number. `--rules <file>` adds or overrides entries.
 */
export const TURBULENCE_RULES: Readonly<Record<string, QuestionRule>> = {
    "34": { arguments: "list", note: "the generator returns the argument list; the answer may take one argument or one per element" },
    "48": { arguments: "single", comparator: "turbulence:upper", note: "the answer is upper-cased before comparing" },
    "54": { arguments: "single", note: "a tuple from the generator is one argument" },
    "55": { comparator: "unordered", note: "list answers compared in any order" },
    "56": { comparator: "unordered", note: "list answers compared in any order" },
    "57": { comparator: "turbulence:matrices", note: "lists of matrices compared in any order" },
    "59": { arguments: "single", note: "a tuple from the generator is one argument" },
    "60": { arguments: "single", note: "a tuple from the generator is one argument" }
};

const COMPARATOR = /^(ordered|unordered|set|float:[0-9.eE+-]+|turbulence:[a-z_]+)$/;

/** Reads a `--rules` YAML/JSON file: `{ "<question number>": {arguments, comparator, group, subgroup, note} }`. */
export function readRulesFile(file: string): Record<string, QuestionRule> {
    let raw: unknown;
    try {
        raw = parseYaml(readFileSync(file, "utf8"));
    } catch (err) {
        throw new EddyError(`cannot read rules file ${file}: ${oneLine(err)}`);
    }
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new EddyError(`rules file ${file}: expected a mapping from question number to rule`);
    const out: Record<string, QuestionRule> = {};
    for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
        const where = `rules file ${file}: question ${key}`;
        if (!/^\d+$/.test(key)) throw new EddyError(`${where}: keys are question numbers`);
        if (!value || typeof value !== "object" || Array.isArray(value)) throw new EddyError(`${where}: expected a mapping`);
        const v = value as Record<string, unknown>;
        for (const k of Object.keys(v)) if (!["arguments", "comparator", "group", "subgroup", "note"].includes(k)) throw new EddyError(`${where}: unknown key '${k}'`);
        if (v.arguments !== undefined && !(ARGUMENT_RULES as readonly unknown[]).includes(v.arguments)) throw new EddyError(`${where}: arguments must be one of ${ARGUMENT_RULES.join(", ")}`);
        if (v.comparator !== undefined && (typeof v.comparator !== "string" || !COMPARATOR.test(v.comparator)))
            throw new EddyError(`${where}: comparator must be ordered, unordered, set or float:<tolerance>`);
        if (v.group !== undefined && !(PROBLEM_GROUPS as readonly unknown[]).includes(v.group)) throw new EddyError(`${where}: group must be one of ${PROBLEM_GROUPS.join(", ")}`);
        for (const k of ["subgroup", "note"]) if (v[k] !== undefined && typeof v[k] !== "string") throw new EddyError(`${where}: ${k} must be text`);
        out[key] = v as QuestionRule;
    }
    return out;
}

/** The rule for question `n`: the built-in entry with the user's entry on top. */
export function ruleFor(n: number, extra: Record<string, QuestionRule> = {}): QuestionRule {
    return { ...(TURBULENCE_RULES[String(n)] ?? {}), ...(extra[String(n)] ?? {}) };
}
