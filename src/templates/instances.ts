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

/** Largest product of choice lists enumerated to find a finite neighbourhood's every tuple. */
const ENUMERATE_LIMIT = 100_000;

/**
 * Every valid tuple of a template whose parameters all take their values from lists (`choice`),
 * in enumeration order (the first parameter varies slowest); undefined when some parameter is
 * drawn from a range, or the lists' product is over ENUMERATE_LIMIT.
 */
export function finiteTuples(t: Template, satisfies: (tuple: ParamValue[]) => boolean): ParamValue[][] | undefined {
    const lists: ParamValue[][] = [];
    let product = 1;
    for (const p of t.params) {
        if (p.domain.kind !== "choice") return undefined;
        const values = (p.domain as unknown as { values: ParamValue[] }).values;
        product *= values.length;
        if (product > ENUMERATE_LIMIT) return undefined;
        lists.push(values);
    }
    let tuples: ParamValue[][] = [[]];
    for (const values of lists) tuples = tuples.flatMap((head) => values.map((v) => [...head, v]));
    return tuples.filter(satisfies);
}

/**
 * How many instances T's neighbourhood holds when that is fewer than `m` (a neighbourhood of
 * listed values, such as an imported problem's one task_id); undefined when it can give `m`.
 */
export function neighbourhoodShortfall(t: Template, m: number): number | undefined {
    const check = t.constraint === undefined ? undefined : compileConstraint(t.constraint);
    const all = finiteTuples(t, (tuple) => !check || check(bindingsOf(t, tuple)));
    return all !== undefined && all.length < m ? all.length : undefined;
}

/**
 * The first `m` instances of T's neighbourhood for `seed`: its edge tuples (file order, deduplicated),
 * then random tuples (per parameter: a digit-length bucket uniformly, then a value uniformly in it),
 * skipping duplicates and tuples that fail the constraint. pure-rand's xoroshiro128+ and integer
 * distribution are pure integer arithmetic, so the tuples are identical on every machine.
 * A neighbourhood of listed values that holds fewer than `m` tuples gives them all (edge tuples
 * first, then the others in enumeration order): a small neighbourhood is normal, not an error.
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

    if (tuples.length < m) {
        const all = finiteTuples(t, satisfies);
        if (all !== undefined && all.length < m) {
            for (const tuple of all) {
                const key = JSON.stringify(tuple);
                if (seen.has(key)) continue;
                seen.add(key);
                tuples.push(tuple);
            }
            return tuples.map((tuple, index) => makeInstance(t, index, tuple));
        }
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
