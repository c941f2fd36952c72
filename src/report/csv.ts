import { safeTerminalText } from "../util/safeText.js";
import type { ReportData } from "./types.js";

const COLUMNS = ["run", "config", "model", "quantization", "temperature", "wrapper", "mode", "template", "group", "subgroups", "M", "M_total", "R", "responses", "correct", "AS", "CPS", "CCS", "category", "RLPR", "RLPR_lo", "RLPR_hi", "PSR", "PSR_lo", "PSR_hi", "gap", "AV", "AV_lo", "AV_hi", "pass@1", "pass@k_max", "truncated", "judge_error", "missing"] as const;

/** One CSV row per run × configuration × template (RFC 4180 quoting). */
export function renderCsv(d: ReportData): string {
    const lines = [COLUMNS.join(",")];
    for (const r of d.runs)
        for (const t of r.templates) {
            const row: (string | number | null)[] = [
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
                t.AS,
                t.CPS,
                t.CCS,
                t.category,
                t.RLPR,
                t.RLPR_CI.lo,
                t.RLPR_CI.hi,
                t.PSR,
                t.PSR_CI.lo,
                t.PSR_CI.hi,
                t.gap,
                t.AV,
                t.AV_CI.lo,
                t.AV_CI.hi,
                t.passAtK["1"] ?? null,
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
