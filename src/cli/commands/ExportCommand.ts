import { note } from "../messages.js";
import type { Command } from "commander";
import { EddyError } from "../../util/errors.js";
import { defaultDbPath } from "../../util/paths.js";
import { openStore } from "../../store/Store.js";
import { exportRows } from "../../store/outcomes.js";
import { csvField } from "../../report/csv.js";
import { safeJsonStringify } from "../../util/safeText.js";
import { writePrivateFile } from "../../util/privateFiles.js";
import { configurationResponses } from "../../export/responses.js";
import { evalPlusSamples } from "../../export/evalplus.js";
import { inspectLog } from "../../export/inspect.js";
import { eeeExport } from "../../export/eee.js";
import path from "node:path";
import type { Store } from "../../store/Store.js";

const FORMATS = ["jsonl", "csv", "evalplus", "inspect", "eee"];

/** The export text of one run in one format. */
function exportText(store: Store, runId: string, format: string, config?: string): string {
    if (format === "evalplus") return evalPlusSamples(configurationResponses(store, runId, config).rows);
    if (format === "inspect") return JSON.stringify(inspectLog(store, configurationResponses(store, runId, config)), null, 1) + "\n";
    const rows = exportRows(store, runId);
    // JSONL keeps every character (control characters as JSON escapes); CSV fields escape them (see csvField).
    return format === "csv" ? toCsv(rows) : rows.map((r) => safeJsonStringify(r)).join("\n") + (rows.length ? "\n" : "");
}

/** Rows as CSV with a header line (columns from the first row). */
export function toCsv(rows: Record<string, unknown>[]): string {
    if (!rows.length) return "";
    const cols = Object.keys(rows[0]!);
    return [cols.join(","), ...rows.map((r) => cols.map((c) => csvField(r[c])).join(","))].join("\r\n") + "\r\n";
}

/** Private to its owner (0600, missing folders 0700): the rows quote verdict details. */
function writeOut(file: string, text: string): void {
    try {
        writePrivateFile(file, text);
    } catch (err) {
        throw new EddyError(`cannot write ${file}: ${(err as Error).message}`);
    }
}

/** `eddy export`: one row per response of a run (JSONL, CSV), or the run in another tool's format (EvalPlus samples, inspect_ai log, Every Eval Ever). */
export function registerExportCommand(program: Command): void {
    program
        .command("export <run>")
        .description("Export one row per response of a run (template, instance, params, round, seed, code, category, detail, …)")
        .option("--format <fmt>", "jsonl | csv | evalplus (samples.jsonl for evalplus.evaluate) | inspect (an inspect_ai eval log, JSON) | eee (Every Eval Ever aggregate + per-instance records, into the --out folder)", "jsonl")
        .option("--config <label>", "evalplus, inspect and eee hold one model: the configuration to export when the run has several ('<model> t=<t> <wrapper>')")
        .option("--out <file>", "write to this file instead of stdout")
        .option("--db <file>", `database file (default ${defaultDbPath()})`)
        .addHelpText("after", "\nExamples:\n  $ eddy export latest --format csv --out run.csv   # latest: the newest run; or a run id\n  $ eddy export latest | head -3\n  $ eddy export latest --db study.db --format evalplus --out samples.jsonl   # then: evalplus.evaluate --dataset humaneval --samples samples.jsonl\n  $ eddy export latest --db study.db --format inspect --out run.json        # then: inspect view\n  $ eddy export latest --db study.db --format eee --out eee                  # eee/data/eddy/<developer>/<model>/<uuid>.json + <uuid>_samples.jsonl")
        .action((runId: string, o: { format: string; config?: string; out?: string; db?: string }) => {
            if (!FORMATS.includes(o.format)) throw new EddyError(`unknown export format '${o.format}' (use ${FORMATS.join(", ")})`);
            if (o.format === "eee" && !o.out) throw new EddyError("--format eee writes two files: pass --out <folder>");
            const store = openStore(o.db ?? defaultDbPath(), { readonly: true });
            let text: string;
            if (o.format === "eee") {
                let files: [string, string][];
                try {
                    const e = eeeExport(store, configurationResponses(store, runId, o.config));
                    files = [
                        [path.join(o.out!, e.aggregatePath), JSON.stringify(e.aggregate, null, 1) + "\n"],
                        [path.join(o.out!, e.samplesPath), e.samples]
                    ];
                } finally {
                    store.close();
                }
                for (const [file, body] of files) writeOut(file, body);
                process.stdout.write(files.map(([f]) => f).join("\n") + "\n");
                return;
            }
            try {
                text = exportText(store, runId, o.format, o.config);
            } finally {
                store.close();
            }
            if (o.out) {
                writeOut(o.out, text);
                // stdout stays the data's (nothing else on it); what was written is said on stderr.
                const rows = o.format === "jsonl" || o.format === "evalplus" ? text.split("\n").filter((l) => l !== "").length : o.format === "csv" ? Math.max(0, text.split("\r\n").filter((l) => l !== "").length - 1) : undefined;
                note(`export written to ${o.out} (${o.format}${rows !== undefined ? `, ${rows} row${rows === 1 ? "" : "s"}` : ""}, ${Buffer.byteLength(text)} bytes)`);
            } else process.stdout.write(text);
        });
}
