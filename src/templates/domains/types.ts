import type { RandomGenerator } from "pure-rand/types/RandomGenerator";
import type { ParamValue } from "../../vocabulary.js";

/** A parsed parameter domain: plain data (kept in `ParamSpec.domain`), tagged by its kind. */
export type Domain = Record<string, unknown> & { kind: string };

/**
 * One kind of parameter domain (`int`, `char`, `choice`, …). A kind is one module that
 * registers itself in `registry.ts`; the loader and the sampler only talk to this interface.
 */
export interface DomainKind<D extends Domain = Domain> {
    /** The YAML key that selects this kind, e.g. `int` in `lo: {int: {digits: [1, 2]}}`. */
    readonly kind: string;
    /** Checks the YAML value under the key and returns the parsed domain; throws a plain Error with a short reason. */
    parse(raw: unknown): D;
    /** Draws one value. Must use only `rng` so that neighbourhoods are identical on every machine. */
    sample(domain: D, rng: RandomGenerator): ParamValue;
    /** Null when `value` belongs to the domain, else a short reason (used to check edge tuples). */
    reject(domain: D, value: ParamValue): string | null;
}
