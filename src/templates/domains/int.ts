import { uniformInt } from "pure-rand/distribution/uniformInt";
import type { Domain, DomainKind } from "./types.js";
import { isPlainObject } from "./util.js";

/** Integers, sampled by digit length: first a bucket uniformly, then a value uniformly inside it. */
export interface IntDomain extends Domain {
    kind: "int";
    /** Inclusive [lo, hi] ranges, one per digit length (and sign); never empty. */
    buckets: [number, number][];
}

const MAX_DIGITS = 15; // stays inside Number.MAX_SAFE_INTEGER

/** The inclusive range of non-negative integers with exactly `d` digits (0 counts as one digit). */
function digitRange(d: number): [number, number] {
    return d === 1 ? [0, 9] : [10 ** (d - 1), 10 ** d - 1];
}

/** Splits [min, max] into digit-length buckets so that small numbers are not drowned by large ones. */
function bucketsForRange(min: number, max: number, digits?: number[]): [number, number][] {
    const buckets: [number, number][] = [];
    // Negative buckets first (most negative first), then non-negative ones, so the order reads like a number line.
    for (let d = MAX_DIGITS; d >= 1; d--) {
        if (digits && !digits.includes(d)) continue;
        const [a, b] = digitRange(d);
        const lo = Math.max(min, -b);
        const hi = Math.min(max, d === 1 ? -1 : -a);
        if (lo <= hi) buckets.push([lo, hi]);
    }
    for (let d = 1; d <= MAX_DIGITS; d++) {
        if (digits && !digits.includes(d)) continue;
        const [a, b] = digitRange(d);
        const lo = Math.max(min, a);
        const hi = Math.min(max, b);
        if (lo <= hi) buckets.push([lo, hi]);
    }
    return buckets;
}

function safeInt(v: unknown, what: string): number {
    if (typeof v !== "number" || !Number.isSafeInteger(v)) throw new Error(`${what} must be an integer`);
    return v;
}

/** `{int: {digits: [1, 2, 3]}}` (non-negative by default; `negative: true` adds the mirrored buckets), `{int: {min: 0, max: 50}}`, or both (digits clipped to the range). */
export const intDomain: DomainKind<IntDomain> = {
    kind: "int",
    parse(raw) {
        if (!isPlainObject(raw)) throw new Error("int needs a mapping, e.g. {digits: [1, 2]} or {min: 0, max: 50}");
        for (const key of Object.keys(raw))
            if (!["digits", "min", "max", "negative"].includes(key)) throw new Error(`int: unknown key '${key}' (digits, min, max, negative)`);
        let digits: number[] | undefined;
        if (raw.digits !== undefined) {
            if (!Array.isArray(raw.digits) || raw.digits.length === 0) throw new Error("int.digits must be a non-empty list such as [1, 2, 3]");
            digits = raw.digits.map((d) => {
                const n = safeInt(d, "int.digits entries");
                if (n < 1 || n > MAX_DIGITS) throw new Error(`int.digits entries must be between 1 and ${MAX_DIGITS}`);
                return n;
            });
        } else if (raw.min === undefined || raw.max === undefined) {
            throw new Error("int needs digits, or both min and max");
        }
        if (raw.negative !== undefined && typeof raw.negative !== "boolean") throw new Error("int.negative must be true or false");
        const limit = 10 ** MAX_DIGITS - 1;
        const min = raw.min === undefined ? (raw.negative ? -limit : 0) : safeInt(raw.min, "int.min");
        const max = raw.max === undefined ? limit : safeInt(raw.max, "int.max");
        if (min > max) throw new Error(`int.min (${min}) is greater than int.max (${max})`);
        const buckets = bucketsForRange(min, max, digits);
        if (buckets.length === 0) throw new Error("int domain is empty (no digit length fits between min and max)");
        return { kind: "int", buckets };
    },
    sample(domain, rng) {
        const bucket = domain.buckets[uniformInt(rng, 0, domain.buckets.length - 1)]!;
        return uniformInt(rng, bucket[0], bucket[1]);
    },
    reject(domain, value) {
        if (typeof value !== "number" || !Number.isSafeInteger(value)) return `${JSON.stringify(value)} is not an integer`;
        return domain.buckets.some(([lo, hi]) => lo <= value && value <= hi) ? null : `${value} is outside the int domain`;
    }
};
