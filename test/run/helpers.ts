import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";

/** Repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The built CLI (test/globalSetup.ts builds dist/ first). */
export const BIN = path.join(ROOT, "dist/cli/bin.js");

const made: string[] = [];
/** A fresh temporary folder, removed by `cleanTmp`. */
export function tmpDir(prefix = "eddy-run-"): string {
    const d = mkdtempSync(path.join(os.tmpdir(), prefix));
    made.push(d);
    return d;
}
/** Remove the folders made by `tmpDir`. */
export function cleanTmp(): void {
    for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** The final verdict table of a database, independent of row ids and timing: one line per response. */
export function verdictTable(dbFile: string, runId?: string): string[] {
    const db = new Database(dbFile, { readonly: true });
    try {
        const rows = db
            .prepare(
                `SELECT c.model, c.temperature, c.wrapper, g.template_id, g.instance_idx, g.round, g.seed, g.response, g.code, g.stop_reason, v.category, v.detail
                 FROM generations g JOIN configurations c ON c.id = g.config_id LEFT JOIN verdicts v ON v.generation_id = g.id
                 WHERE (? IS NULL OR c.run_id = ?)
                 ORDER BY c.model, c.temperature, c.wrapper, g.template_id, g.instance_idx, g.round`
            )
            .all(runId ?? null, runId ?? null) as Record<string, unknown>[];
        return rows.map((r) => JSON.stringify(r));
    } finally {
        db.close();
    }
}

/** Count rows of a table in a database (read-only). */
export function countRows(dbFile: string, table: string): number {
    const db = new Database(dbFile, { readonly: true, timeout: 5000 });
    try {
        return (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    } finally {
        db.close();
    }
}
