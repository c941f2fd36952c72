import { InvalidArgumentError } from "commander";
import type { Domain } from "../../../templates/domains/types.js";
import type { Template } from "../../../templates/types.js";

/** A template as `--json` listings show it: everything a script needs to choose and run it. */
export function templateSummary(t: Template) {
    return {
        id: t.id,
        function: t.function,
        arity: t.arity,
        group: t.group,
        subgroups: t.subgroups,
        returns: t.returns ?? null,
        params: t.params.map((p) => ({ name: p.name, domain: p.domain })),
        constraint: t.constraint ?? null,
        edgeTuples: t.edge.length,
        comparator: t.comparator,
        randomInputs: t.randomInputs,
        budget: t.budget,
        question: t.question,
        ambiguity: t.ambiguity ?? null,
        edges: t.edges ?? [],
        oracleHash: t.oracleHash
    };
}

/** A domain on one line for people: `int 0..9|10..99`, `char "abc"`, `choice [1, 2]`. */
export function domainText(d: Domain): string {
    if (d.kind === "int" && Array.isArray(d.buckets)) return "int " + (d.buckets as [number, number][]).map(([a, b]) => (a === b ? `${a}` : `${a}..${b}`)).join("|");
    if (d.kind === "char" && Array.isArray(d.alphabet)) return `char "${(d.alphabet as string[]).join("")}"`;
    if (d.kind === "choice" && Array.isArray(d.values)) return `choice ${JSON.stringify(d.values)}`;
    const { kind, ...rest } = d;
    return `${kind} ${JSON.stringify(rest)}`;
}

/** Parses a non-negative integer option value; commander reports the error with the option name. */
export function parseCount(value: string): number {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new InvalidCount(`'${value}' is not a non-negative integer`);
    return n;
}

/** Parses an integer seed (negative allowed). */
export function parseSeed(value: string): number {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new InvalidCount(`'${value}' is not an integer`);
    return n;
}

/** A bad option value; commander prints it with the option name. */
class InvalidCount extends InvalidArgumentError {}
