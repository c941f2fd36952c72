import { safeTerminalText } from "../util/safeText.js";
import { SCORES, scoreCsvColumns, scoresIn } from "./scoreTable.js";
import type { ReportData } from "./types.js";

/** Columns before the scores, between the primary scores and the rest (category), and after them. */
const KEYS = ["run", "config", "model", "quantization", "temperature", "wrapper", "mode", "template", "group", "subgroups", "M", "M_total", "R", "responses", "correct"] as const;
const PRIMARY = scoresIn("scores").flatMap(scoreCsvColumns);
const SECONDARY = SCORES.filter((c) => c.section !== "scores").flatMap(scoreCsvColumns);
const TAIL = ["pass@k_max", "truncated", "judge_error", "missing"] as const;

/** The CSV header: the score columns come from the one table of scores (scoreTable.ts). */
export const CSV_COLUMNS: readonly string[] = [...KEYS, ...PRIMARY.map((c) => c.head), "category", ...SECONDARY.map((c) => c.head), ...TAIL];

/** One CSV row per run × configuration × template (RFC 4180 quoting). */
export function renderCsv(d: ReportData): string {
    const lines = [CSV_COLUMNS.join(",")];
    for (const r of d.runs)
        for (const t of r.templates) {
            const row: unknown[] = [
                r.id,
                t.config,
                t.model,
                t.quantization,
                t.temperature,
                t.wrapper,
                t.mode,
                t.template,
                t.group,
                t.subgroups.join(";"),
                t.M,
                t.Mtotal,
                t.R,
                t.responses,
                t.correct,
                ...PRIMARY.map((c) => c.value(t)),
                t.category,
                ...SECONDARY.map((c) => c.value(t)),
                Object.keys(t.passAtK).length,
                t.harness.truncated,
                t.harness.judge_error,
                t.harness.missing
            ];
            lines.push(row.map(csvField).join(","));
        }
    return lines.join("\n") + "\n";
}

/**
 * One CSV field (RFC 4180: quoted when it holds a comma, quote or line break; inner quotes doubled).
 * null, undefined and NaN are empty; objects and arrays are written as JSON. Control characters
 * other than line feed and tab are escaped (`\x1b`), so a CSV printed on a terminal cannot drive it;
 * JSON outputs keep every byte. Hand-written: a few lines, and no CSV package is among the project's dependencies.
 */
export function csvField(v: unknown): string {
    if (v === null || v === undefined || (typeof v === "number" && Number.isNaN(v))) return "";
    const s = safeTerminalText(typeof v === "object" ? JSON.stringify(v) : String(v));
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
