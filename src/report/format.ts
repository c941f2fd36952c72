import type { Interval } from "../stats/wilson.js";
import { runState, type ParamValue } from "../vocabulary.js";

/** A share as a percentage with one decimal ("–" when undefined). */
export function pct(v: number | undefined): string {
    return v === undefined || Number.isNaN(v) ? "–" : `${(100 * v).toFixed(1)}%`;
}

/** A number with `digits` decimals ("–" when undefined). */
export function fix(v: number | undefined, digits = 3): string {
    return v === undefined || Number.isNaN(v) ? "–" : v.toFixed(digits);
}

/** A p-value: 3 significant digits, "<0.001" below that. */
export function pval(p: number): string {
    if (Number.isNaN(p)) return "–";
    return p < 0.001 ? "<0.001" : p.toFixed(3);
}

/** An interval as "[lo, hi]". */
export function interval(i: Interval, digits = 3): string {
    return `[${fix(i.lo, digits)}, ${fix(i.hi, digits)}]`;
}

/** A parameter tuple as "(a, b, …)". */
export function tuple(params: readonly ParamValue[]): string {
    return `(${params.map((p) => JSON.stringify(p)).join(", ")})`;
}

/** A run's status as reports print it: a run with missing answers never reads as plainly "complete". */
export function runStatus(r: { status?: string | undefined; missing: number }): string {
    const status = r.status ?? "";
    if (r.missing === 0) return status;
    // One word for a run with answers missing, everywhere (runs list, report, viewer, exports): src/vocabulary.ts.
    if (status) return runState(status, r.missing);
    return `${r.missing} answer${r.missing === 1 ? "" : "s"} missing`;
}
