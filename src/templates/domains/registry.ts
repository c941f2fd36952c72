import type { ParamValue } from "../../vocabulary.js";
import type { RandomGenerator } from "pure-rand/types/RandomGenerator";
import { charDomain } from "./char.js";
import { choiceDomain } from "./choice.js";
import { intDomain } from "./int.js";
import type { Domain, DomainKind } from "./types.js";
import { isPlainObject } from "./util.js";

const kinds = new Map<string, DomainKind>();

/** Adds a domain kind; a new kind is one module plus one call here. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a kind of any domain; stored as the general kind
export function registerDomainKind(kind: DomainKind<any>): void {
    kinds.set(kind.kind, kind as DomainKind);
}

for (const kind of [intDomain, charDomain, choiceDomain]) registerDomainKind(kind);

/** Names of the registered kinds, for error messages and docs. */
export function domainKindNames(): string[] {
    return [...kinds.keys()];
}

function kindOf(domain: Domain): DomainKind {
    const kind = kinds.get(domain.kind);
    if (!kind) throw new Error(`unknown domain kind '${domain.kind}'`);
    return kind;
}

/** Parses a YAML domain such as `{int: {digits: [1, 2]}}`; throws a plain Error with a short reason. */
export function parseDomain(raw: unknown): Domain {
    if (!isPlainObject(raw) || Object.keys(raw).length !== 1)
        throw new Error(`a domain is a mapping with exactly one key, one of: ${domainKindNames().join(", ")}`);
    const [name, body] = Object.entries(raw)[0]!;
    const kind = kinds.get(name);
    if (!kind) throw new Error(`unknown domain kind '${name}' (known: ${domainKindNames().join(", ")})`);
    return kind.parse(body);
}

/** Draws one value from a parsed domain. */
export function sampleDomain(domain: Domain, rng: RandomGenerator): ParamValue {
    return kindOf(domain).sample(domain, rng);
}

/** Null when the value belongs to the domain, else a short reason. */
export function rejectFromDomain(domain: Domain, value: ParamValue): string | null {
    return kindOf(domain).reject(domain, value);
}
