import { SCORES, score, type ScoreColumn, type Scored } from "../scores/table.js";

// The table itself is src/scores/table.ts (the scores' own folder, which compare and the exports read
// too); this module is how renderers print it, and hands its names on so they import one place.
export { COMPARED_SCORES, EXPORTED_SCORES, SCORES, score, scoresIn, type ComparedScore, type ScoreColumn, type Scored } from "../scores/table.js";
import { fix } from "./format.js";

/** A score's value as tables print it. */
export function formatScore(c: ScoreColumn, s: Scored): string {
    return fix(c.get(s), c.digits);
}

/**
 * The one rule for numbers (issue #47), in every terminal table, report and viewer page: a score (AS, CPS,
 * CCS, RLPR, PSR, gap, AV, pass@k) is a fraction with its decimals ("0.667"), never a percentage; a
 * difference of two scores is signed with the same decimals ("+0.125", "-0.050"); percentages are for
 * shares of counts only (neighbourhood categories, verdicts, agreement, top-1 token agreement).
 */
export function scoreValue(name: string, v: number | null | undefined): string {
    return v == null ? "–" : fix(v, score(scoreName(name)).digits);
}

/** A difference of two scores, by {@link scoreValue}'s rule: signed, with the score's decimals ("–" when undefined). */
export function scoreDelta(name: string, d: number | null | undefined): string {
    if (d == null || Number.isNaN(d)) return "–";
    const text = fix(Math.abs(d), score(scoreName(name)).digits);
    return `${d < 0 && Number(text) !== 0 ? "-" : "+"}${text}`;
}

/** pass@k for any k reads as pass@1 does. */
const scoreName = (name: string): string => (/^pass@\d+$/.test(name) ? "pass@1" : name);

/** A score with its interval when it has one: "0.812 [0.70, 0.89]". */
export function formatScoreWithInterval(c: ScoreColumn, s: Scored, digits = 2): string {
    const i = c.interval?.(s);
    return i ? `${fix(c.get(s), c.digits)} [${fix(i.lo, digits)}, ${fix(i.hi, digits)}]` : formatScore(c, s);
}

/** The CSV columns of a score: its value, then `_lo` and `_hi` when it has an interval. */
export function scoreCsvColumns(c: ScoreColumn): { head: string; value: (s: Scored) => number | null }[] {
    if (!c.interval) return [{ head: c.name, value: (s) => c.get(s) ?? null }];
    return [
        { head: c.name, value: (s) => c.get(s) },
        { head: `${c.name}_lo`, value: (s) => c.interval!(s)?.lo ?? null },
        { head: `${c.name}_hi`, value: (s) => c.interval!(s)?.hi ?? null }
    ];
}

/** The table's legend in one line per score: "AS: Accuracy Score… (0–1, higher is better…)". */
export function scoreLegend(cols: readonly ScoreColumn[] = SCORES): string[] {
    return cols.map((c) => `${c.label}: ${c.description} (${c.read}).`);
}
