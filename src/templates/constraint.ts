import { compileExpression } from "filtrex";
import type { ParamValue } from "../vocabulary.js";

/** A compiled template constraint: true when the bindings satisfy it; throws a plain Error when it cannot be evaluated. */
export type ConstraintCheck = (bindings: Record<string, ParamValue>) => boolean;

const compiled = new Map<string, ConstraintCheck>();

/**
 * Compiles a filtrex expression (`lo <= hi and hi - lo != 3`, `c in ("a", "e")`, `x mod 2 == 0`)
 * once per distinct text. filtrex is used rather than JavaScript `eval` because template files
 * are data: an expression may compare and compute, never run code.
 */
export function compileConstraint(expression: string): ConstraintCheck {
    const hit = compiled.get(expression);
    if (hit) return hit;
    let fn: (obj: unknown) => unknown;
    try {
        fn = compileExpression(expression);
    } catch (err) {
        throw new Error(`constraint does not parse: ${(err instanceof Error ? err.message : String(err)).split("\n").pop()}`);
    }
    const check: ConstraintCheck = (bindings) => {
        // filtrex 3 returns runtime errors (unknown name, unknown function) instead of throwing them.
        const result = fn(bindings);
        if (result instanceof Error) throw new Error(`constraint '${expression}': ${result.message}`);
        return Boolean(result);
    };
    compiled.set(expression, check);
    return check;
}
