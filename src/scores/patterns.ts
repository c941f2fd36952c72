import type { ParamValue } from "../vocabulary.js";

/** A property of a parameter tuple derived from its values' numeric relations. */
export interface TupleFeature {
    /** Stable id, e.g. `eq:p1,p2`. */
    id: string;
    /** Readable description, e.g. `equal bounds (p1 = p2)`. */
    label: string;
    test: (params: readonly ParamValue[]) => boolean;
}

/** How strongly one feature sets the failing tuples apart. */
export interface PatternFinding {
    id: string;
    label: string;
    /** Failing tuples with the feature / failing tuples. */
    failing: [number, number];
    /** Other tuples with the feature / other tuples. */
    others: [number, number];
}

/**
 * Features over a tuple's values: for each pair of numeric positions, equal values ("equal bounds"),
 * values one apart ("bounds one apart") and the second at most one above the first (the boundary
 * zone where an inclusive and an exclusive reading of a range differ most: one element vs none);
 * for each numeric position, zero ("zero lower bound" for the first), negative, one; for strings
 * and lists, empty and length one. Positions are named p1, p2, … in template parameter order.
 */
export function tupleFeatures(sample: readonly ParamValue[]): TupleFeature[] {
    const out: TupleFeature[] = [];
    const num = (p: readonly ParamValue[], i: number) => (typeof p[i] === "number" ? (p[i] as number) : NaN);
    const len = (p: readonly ParamValue[], i: number) => {
        const v = p[i];
        return typeof v === "string" || Array.isArray(v) ? v.length : NaN;
    };
    const numeric = sample.map((v, i) => (typeof v === "number" ? i : -1)).filter((i) => i >= 0);
    for (const i of numeric) {
        const n = `p${i + 1}`;
        out.push({ id: `zero:${n}`, label: i === numeric[0] && numeric.length > 1 ? `zero lower bound (${n} = 0)` : `${n} = 0`, test: (p) => num(p, i) === 0 });
        out.push({ id: `neg:${n}`, label: `${n} < 0`, test: (p) => num(p, i) < 0 });
        out.push({ id: `one:${n}`, label: `${n} = 1`, test: (p) => num(p, i) === 1 });
    }
    for (let a = 0; a < numeric.length; a++)
        for (let b = a + 1; b < numeric.length; b++) {
            const i = numeric[a]!;
            const j = numeric[b]!;
            const pair = `p${i + 1},p${j + 1}`;
            out.push({ id: `eq:${pair}`, label: `equal bounds (p${i + 1} = p${j + 1})`, test: (p) => num(p, i) === num(p, j) });
            out.push({ id: `adj:${pair}`, label: `bounds one apart (|p${j + 1} − p${i + 1}| = 1)`, test: (p) => Math.abs(num(p, i) - num(p, j)) === 1 });
            out.push({
                id: `incl:${pair}`,
                label: `inclusive/exclusive boundary (0 ≤ p${j + 1} − p${i + 1} ≤ 1)`,
                test: (p) => num(p, j) - num(p, i) >= 0 && num(p, j) - num(p, i) <= 1
            });
        }
    sample.forEach((v, i) => {
        if (typeof v === "string" || Array.isArray(v)) {
            const n = `p${i + 1}`;
            out.push({ id: `empty:${n}`, label: `${n} empty`, test: (p) => len(p, i) === 0 });
            out.push({ id: `len1:${n}`, label: `${n} of length 1`, test: (p) => len(p, i) === 1 });
        }
    });
    return out;
}

/**
 * Features over-represented among failing tuples: held by at least half of them and at least
 * twice as common among them as among the other tuples. Sorted by how many failing tuples they cover.
 */
export function findPatterns(failing: readonly ParamValue[][], others: readonly ParamValue[][]): PatternFinding[] {
    if (failing.length === 0) return [];
    const out: PatternFinding[] = [];
    for (const f of tupleFeatures(failing[0]!)) {
        const a = failing.filter(f.test).length;
        const b = others.filter(f.test).length;
        const failShare = a / failing.length;
        const otherShare = others.length ? b / others.length : 0;
        if (failShare >= 0.5 && failShare >= 2 * otherShare) out.push({ id: f.id, label: f.label, failing: [a, failing.length], others: [b, others.length] });
    }
    return out.sort((x, y) => y.failing[0] - x.failing[0] || x.others[0] - y.others[0]);
}
