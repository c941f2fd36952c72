import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { loadStudy } from "../../report/loadStudy.js";
import { REPORT_FORMATS, type ReportFormat } from "../../report/types.js";
import { EddyError } from "../../util/errors.js";
import { defaultDbPath, defaultReportsDir } from "../../util/paths.js";

const EXTENSIONS: Record<ReportFormat, string> = { text: "txt", html: "html", json: "json", csv: "csv", md: "md" };

/** Format named by an output file's extension, if any. */
function formatFromFile(file: string): ReportFormat | undefined {
    const ext = path.extname(file).slice(1).toLowerCase();
    if (ext === "htm") return "html";
    if (ext === "txt") return "text";
    if (ext === "markdown") return "md";
    return (REPORT_FORMATS as readonly string[]).includes(ext) ? (ext as ReportFormat) : undefined;
}

/** `eddy report <run...>`: the scores and comparisons of one or more runs in one of the report formats. */
export function registerReportCommand(program: Command): void {
    program
        .command("report")
        .description("Scores, categories, discontinuities and comparisons of one or more runs, as text, Markdown, JSON, CSV or a self-contained HTML page")
        .argument("<run...>", "run ids (or unique prefixes); several runs are reported and compared together")
        .option("--db <file>", `database file (default ${defaultDbPath()})`)
        .option("--format <format>", `output format: ${REPORT_FORMATS.join(" | ")} (default: from --out's extension, else text)`)
        .option("--out [file]", `write to a file instead of stdout (no file: ${path.join(defaultReportsDir(), "report-<run>.<ext>")})`)
        .option("--drilldown <n>", "failing responses kept per template in the HTML drill-down", "12")
        .addHelpText(
            "after",
            "\nExamples:\n  $ eddy report 20261122-3fa9c1\n  $ eddy report 20261122-3fa9c1 --format html --out report.html\n  $ eddy report runA runB --format json > scores.json\n  $ eddy report runA --out   # HTML into .eddy/reports/"
        )
        .action(async (runs: string[], o: { db?: string; format?: string; out?: string | boolean; drilldown: string }) => {
            const outFile = typeof o.out === "string" ? o.out : undefined;
            const format = (o.format ?? (outFile ? formatFromFile(outFile) : undefined) ?? (o.out === true ? "html" : "text")) as ReportFormat;
            if (!(REPORT_FORMATS as readonly string[]).includes(format)) throw new EddyError(`unknown --format '${format}' (one of ${REPORT_FORMATS.join(", ")})`);
            const drill = Number(o.drilldown);
            if (!Number.isInteger(drill) || drill < 0) throw new EddyError(`--drilldown must be a non-negative integer, got '${o.drilldown}'`);
            const { outcomes, runs: infos } = loadStudy(o.db ?? defaultDbPath(), runs);
            // Loaded on use: the charting libraries are heavy, and every other command starts faster without them.
            const { renderReport } = await import("../../report/renderReport.js");
            const text = await renderReport(outcomes, infos, format, { drilldownPerTemplate: drill });
            if (o.out === undefined) {
                process.stdout.write(text);
                return;
            }
            const file = outFile ?? path.join(defaultReportsDir(), `report-${infos.map((r) => r.id).join("+")}.${EXTENSIONS[format]}`);
            try {
                mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
                writeFileSync(file, text);
            } catch (err) {
                throw new EddyError(`cannot write ${file}: ${(err as Error).message}`, 73, { cause: err });
            }
            process.stderr.write(`report written to ${file} (${format}, ${Buffer.byteLength(text)} bytes)\n`);
        });
}
