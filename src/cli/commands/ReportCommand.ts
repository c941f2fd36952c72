import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { loadStudy } from "../../report/loadStudy.js";
import { terminalWidth } from "../../report/terminalTable.js";
import { REPORT_FORMATS, type ReportFormat } from "../../report/types.js";
import { EddyError } from "../../util/errors.js";
import { defaultDbPath, defaultReportsDir } from "../../util/paths.js";
import { reportFormat, writeReport } from "./reportOutput.js";

const EXTENSIONS: Record<ReportFormat, string> = { text: "txt", html: "html", json: "json", csv: "csv", md: "md" };

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
        .option("--wide", "text: every value in full (tables are otherwise fitted to the terminal, or 100 columns)")
        .option("--viewer-url <url>", "html: link each answer shown to its page in 'eddy view' serving this database at <url>")
        .addHelpText(
            "after",
            "\nExamples:\n  $ eddy report latest                 # the newest run (latest~1: the one before; or a run id)\n  $ eddy report latest --wide\n  $ eddy report latest --format html --out report.html\n  $ eddy report latest latest~1 --format json > scores.json\n  $ eddy report latest --out           # HTML into .eddy/reports/\n  $ eddy report latest --out r.html --viewer-url http://127.0.0.1:7733"
        )
        .action(async (runs: string[], o: { db?: string; format?: string; out?: string | boolean; drilldown: string; wide?: boolean; viewerUrl?: string }) => {
            const outFile = typeof o.out === "string" ? o.out : undefined;
            const format = reportFormat(REPORT_FORMATS, o.format, outFile, o.out === true ? "html" : "text");
            const drill = Number(o.drilldown);
            if (!Number.isInteger(drill) || drill < 0) throw new EddyError(`--drilldown must be a non-negative integer, got '${o.drilldown}'`);
            const loopText = await loopReport(o.db ?? defaultDbPath(), runs, format);
            if (loopText !== undefined) return emit(loopText, format, o.out, runs);
            if (o.viewerUrl !== undefined && format !== "html") throw new EddyError(`--viewer-url links the answers of the HTML report; this one is ${format}`);
            const viewerUrl = o.viewerUrl === undefined ? undefined : checkedViewerUrl(o.viewerUrl);
            const { outcomes, runs: infos, planned, determinism } = loadStudy(o.db ?? defaultDbPath(), runs);
            const viewer = viewerUrl === undefined ? undefined : { url: viewerUrl, configIds: await viewerConfigIds(o.db ?? defaultDbPath()) };
            // Loaded on use: the charting libraries are heavy, and every other command starts faster without them.
            const { renderReport } = await import("../../report/renderReport.js");
            // Fitted to the terminal only when the text goes to it; a file gets the 100-column layout.
            const width = o.out === undefined ? terminalWidth() : 100;
            // Runs with published verdicts (Turbulence, EvalPlus) also show eddy's agreement with them: a section of the report data.
            const agreement = (await import("../../report/agreementRender.js")).loadAgreement(o.db ?? defaultDbPath(), infos.map((r) => r.id));
            const text = await renderReport(outcomes, infos, format, { drilldownPerTemplate: drill, planned, determinism, width, ...(o.wide ? { wide: true } : {}), ...(agreement ? { agreement } : {}), ...(viewer ? { viewer } : {}) });
            emit(text, format, o.out, infos.map((r) => r.id));
        });
}

/** The report to stdout, to `out`, or (`--out` without a file) into .eddy/reports/. */
function emit(text: string, format: ReportFormat, out: string | boolean | undefined, ids: string[]): void {
    const file = out === undefined ? undefined : typeof out === "string" ? out : path.join(defaultReportsDir(), `report-${ids.join("+")}.${EXTENSIONS[format]}`);
    writeReport(text, format, file);
}

/**
 * EvaLOOP runs live in their own tables; `eddy report <loop run>` renders them as `eddy loop report`
 * does, so every study a user ran is reported by the same command. Undefined when the ids are study runs.
 */
async function loopReport(db: string, ids: string[], format: ReportFormat): Promise<string | undefined> {
    if (!existsSync(db)) return undefined; // loadStudy says what is missing
    const { openStore } = await import("../../store/Store.js");
    const store = openStore(db, { readonly: true });
    try {
        if (ids.some((id) => store.getRun(id) !== undefined)) return undefined;
        if (!store.loops.present()) return undefined;
        const loops = store.loops;
        try {
            for (const id of ids) loops.requireRun(id);
        } catch {
            return undefined; // not loop runs either: loadStudy names the unknown id
        }
        const { buildLoopReport, LOOP_RENDERERS } = await import("../../loop/report.js");
        if (!Object.hasOwn(LOOP_RENDERERS, format)) throw new EddyError(`a loop run is reported as ${Object.keys(LOOP_RENDERERS).join(", ")}, not ${format}`);
        return LOOP_RENDERERS[format as keyof typeof LOOP_RENDERERS](buildLoopReport(store, ids));
    } finally {
        store.close();
    }
}

/** `--viewer-url`: an http(s) address, without a trailing slash (answers' paths are appended to it). */
function checkedViewerUrl(v: string): string {
    let u: URL;
    try {
        u = new URL(v);
    } catch {
        throw new EddyError(`--viewer-url must be the address 'eddy view' printed, such as http://127.0.0.1:7733, not '${v}'`);
    }
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new EddyError(`--viewer-url must be an http:// or https:// address, not '${v}'`);
    return u.href.replace(/\/+$/, "");
}

/** Each configuration's id in the database (what the viewer's answer addresses name), by run and label. */
async function viewerConfigIds(db: string): Promise<Map<string, number>> {
    const { openStore } = await import("../../store/Store.js");
    const { viewerConfigKey } = await import("../../report/types.js");
    const store = openStore(db, { readonly: true });
    try {
        return new Map(store.view.configurations().map((c) => [viewerConfigKey(c.runId, c.label), c.id]));
    } finally {
        store.close();
    }
}
