import { note } from "../messages.js";
import type { Command } from "commander";
import { EddyError } from "../../util/errors.js";
import { defaultDbPath } from "../../util/paths.js";
import { openStore } from "../../store/Store.js";
import { writePrivateFile } from "../../util/privateFiles.js";
import { EXPORT_FORMATS, exportFormat } from "../../export/formats.js";
import type { ExportOutput } from "../../export/types.js";
import path from "node:path";

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
        .option("--format <fmt>", EXPORT_FORMATS.map((f) => `${f.id} (${f.help})`).join(" | "), "jsonl")
        .option("--config <label>", `${EXPORT_FORMATS.filter((f) => f.oneConfiguration).map((f) => f.id).join(", ")} hold one model: the configuration to export when the run has several ('<model> t=<t> <wrapper>')`)
        .option("--out <file>", "write to this file instead of stdout")
        .option("--db <file>", `database file (default ${defaultDbPath()})`)
        .addHelpText("after", "\nExamples:\n  $ eddy export latest --format csv --out run.csv   # latest: the newest run; or a run id\n  $ eddy export latest | head -3\n  $ eddy export latest --db study.db --format evalplus --out samples.jsonl\n  (then: evalplus.evaluate --dataset humaneval --samples samples.jsonl)\n  $ eddy export latest --db study.db --format inspect --out run.json   # then: inspect view\n  $ eddy export latest --db study.db --format eee --out eee\n  (writes eee/data/eddy/<developer>/<model>/<uuid>.json and <uuid>_samples.jsonl)")
        .action((runId: string, o: { format: string; config?: string; out?: string; db?: string }) => {
            const format = exportFormat(o.format);
            if (format.folder && !o.out) throw new EddyError(`--format ${format.id} writes several files: pass --out <folder>`);
            const store = openStore(o.db ?? defaultDbPath(), { readonly: true });
            let out: ExportOutput;
            try {
                out = format.write({ store, runId, ...(o.config !== undefined ? { config: o.config } : {}) });
            } finally {
                store.close();
            }
            if ("files" in out) {
                const files = out.files.map((f) => path.join(o.out!, f.path));
                out.files.forEach((f, i) => writeOut(files[i]!, f.body));
                process.stdout.write(files.join("\n") + "\n");
            } else if (o.out) {
                writeOut(o.out, out.text);
                // stdout stays the data's (nothing else on it); what was written is said on stderr.
                const rows = out.rows !== undefined ? `, ${out.rows} row${out.rows === 1 ? "" : "s"}` : "";
                note(`export written to ${o.out} (${format.id}${rows}, ${Buffer.byteLength(out.text)} bytes)`);
            } else process.stdout.write(out.text);
        });
}
