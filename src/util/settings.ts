import { z } from "zod";
import { EddyError } from "./errors.js";

/** A setting that must be an integer >= min, from a flag (string) or a config file (number). */
export function intSetting(name: string, v: unknown, min: number): number {
    const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
    if (typeof n !== "number" || !Number.isInteger(n) || n < min) throw new EddyError(`${name} must be an integer >= ${min} (got ${JSON.stringify(v)})`);
    return n;
}

/** A setting that must be a number in [min, max], from a flag (string) or a config file (number). */
export function numberSetting(name: string, v: unknown, min: number, max = Infinity): number {
    const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
    if (typeof n !== "number" || !Number.isFinite(n) || n < min || n > max) throw new EddyError(`${name} must be a number in [${min}, ${max}] (got ${JSON.stringify(v)})`);
    return n;
}

/** A zod field that reports a bad value as eddy's one-line message (the same words wherever the setting comes from). */
export const field = <T>(check: (v: unknown) => T) =>
    z.unknown().transform((v, ctx): T => {
        try {
            return check(v);
        } catch (err) {
            ctx.addIssue({ code: "custom", message: err instanceof Error ? err.message : String(err) });
            return z.NEVER;
        }
    });
export const boolField = field((v) => v === true || v === "true" || v === 1);
export const strField = field((v) => String(v));
export const intField = (name: string, min: number) => field((v) => intSetting(name, v, min));
