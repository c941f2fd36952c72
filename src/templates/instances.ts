import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { EddyError } from "../util/errors.js";
import { compileConstraint } from "./constraint.js";
import { sampleDomain } from "./domains/registry.js";
import { renderQuestion } from "./render.js";
import type { Instance, Template } from "./types.js";
import type { ParamValue } from "../vocabulary.js";

/** Random draws allowed per requested tuple before the domain is declared too small. */
const ATTEMPTS_PER_TUPLE = 200;
/** Attempts never go below this, so tiny requests still get a fair search. */
const MIN_ATTEMPTS = 10_000;

/** A tuple in `params` order as values by parameter name. */
function bindingsOf(t: Template, tuple: ParamValue[]): Record<string, ParamValue> {
    return Object.fromEntries(t.params.map((p, j) => [p.name, tuple[j] as ParamValue]));
}

/** One instance from a tuple in `params` order. */
export function makeInstance(t: Template, index: number, params: ParamValue[]): Instance {
    const bindings = bindingsOf(t, params);
    return { templateId: t.id, index, params, bindings, question: renderQuestion(t.question, bindings) };
}

/**
 * The first `m` instances of T's neighbourhood for `seed`: its edge tuples (file order, deduplicated),
 * then random tuples (per parameter: a digit-length bucket uniformly, then a value uniformly in it),
 * skipping duplicates and tuples that fail the constraint. pure-rand's xoroshiro128+ and integer
 * distribution are pure integer arithmetic, so the tuples are identical on every machine.
 */
export function sampleInstances(t: Template, m: number, seed: number): Instance[] {
    if (!Number.isInteger(m) || m < 0) throw new EddyError(`instance count must be a non-negative integer, got ${m}`);
    if (!Number.isInteger(seed)) throw new EddyError(`seed must be an integer, got ${seed}`);
    const check = t.constraint === undefined ? undefined : compileConstraint(t.constraint);
    const satisfies = (tuple: ParamValue[]) => {
        if (!check) return true;
        try {
            return check(bindingsOf(t, tuple));
        } catch (err) {
            throw new EddyError(`template ${t.id}: ${err instanceof Error ? err.message : String(err)}`);
        }
    };

    const seen = new Set<string>();
    const tuples: ParamValue[][] = [];
    for (const tuple of t.edge) {
        if (tuples.length >= m) break;
        const key = JSON.stringify(tuple);
        if (seen.has(key)) continue;
        seen.add(key);
        tuples.push(tuple);
    }

    // xoroshiro128plus takes a 32-bit seed; fold larger seeds so every integer is accepted deterministically.
    const rng = xoroshiro128plus(seed | 0);
    const maxAttempts = Math.max(MIN_ATTEMPTS, ATTEMPTS_PER_TUPLE * m);
    let attempts = 0;
    while (tuples.length < m) {
        if (attempts >= maxAttempts)
            throw new EddyError(`template ${t.id}: only ${tuples.length} distinct valid tuples found after ${attempts} attempts; asked for ${m}`);
        attempts++;
        const tuple = t.params.map((p) => sampleDomain(p.domain, rng));
        const key = JSON.stringify(tuple);
        if (seen.has(key)) continue;
        if (!satisfies(tuple)) continue;
        seen.add(key);
        tuples.push(tuple);
    }
    return tuples.map((tuple, index) => makeInstance(t, index, tuple));
}
