import { uniformInt } from "pure-rand/distribution/uniformInt";
import type { ParamValue } from "../../vocabulary.js";
import type { Domain, DomainKind } from "./types.js";

/** One of a fixed list of values (numbers, strings, booleans or lists), drawn uniformly. */
export interface ChoiceDomain extends Domain {
    kind: "choice";
    values: ParamValue[];
}

/** True when `v` is a value a question can carry: a number, string, boolean, or a list of those. */
export function isParamValue(v: unknown): v is ParamValue {
    if (typeof v === "number") return Number.isFinite(v);
    if (typeof v === "string" || typeof v === "boolean") return true;
    return Array.isArray(v) && v.every(isParamValue);
}

/** `{choice: [3, 5, 8]}` or `{choice: ["asc", "desc"]}`. */
export const choiceDomain: DomainKind<ChoiceDomain> = {
    kind: "choice",
    parse(raw) {
        if (!Array.isArray(raw) || raw.length === 0) throw new Error("choice needs a non-empty list of values");
        if (!raw.every(isParamValue)) throw new Error("choice values must be numbers, strings, booleans or lists of them");
        const seen = new Set<string>();
        const values = raw.filter((v) => !seen.has(JSON.stringify(v)) && seen.add(JSON.stringify(v)));
        return { kind: "choice", values };
    },
    sample(domain, rng) {
        return domain.values[uniformInt(rng, 0, domain.values.length - 1)]!;
    },
    reject(domain, value) {
        const key = JSON.stringify(value);
        return domain.values.some((v) => JSON.stringify(v) === key) ? null : `${key} is not one of the choices`;
    }
};
