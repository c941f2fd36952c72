import { exportRows } from "../store/outcomes.js";
import { csvField } from "../report/csv.js";
import { safeJsonStringify } from "../util/safeText.js";
import type { ExportFormat } from "./types.js";

/** Rows as CSV with a header line (columns from the first row). */
export function toCsv(rows: Record<string, unknown>[]): string {
    if (!rows.length) return "";
    const cols = Object.keys(rows[0]!);
    return [cols.join(","), ...rows.map((r) => cols.map((c) => csvField(r[c])).join(","))].join("\r\n") + "\r\n";
}

/** One JSON object per response: every character kept (control characters as JSON escapes). */
export const JSONL_FORMAT: ExportFormat = {
    id: "jsonl",
    help: "one JSON object per response",
    oneConfiguration: false,
    folder: false,
    write: ({ store, runId }) => {
        const rows = exportRows(store, runId);
        return { text: rows.map((r) => safeJsonStringify(r)).join("\n") + (rows.length ? "\n" : ""), rows: rows.length };
    }
};

/** The same rows as CSV (fields escape control characters, see csvField). */
export const CSV_FORMAT: ExportFormat = {
    id: "csv",
    help: "the same rows as CSV",
    oneConfiguration: false,
    folder: false,
    write: ({ store, runId }) => {
        const rows = exportRows(store, runId);
        return { text: toCsv(rows), rows: rows.length };
    }
};
