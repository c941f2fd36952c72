import { shellQuote } from "../messages.js";
import { logLine, note } from "../messages.js";
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { defaultDbPath } from "../../util/paths.js";
import { loadAllTemplates, selectTemplates } from "../../templates/loadTemplates.js";
import { JudgePool } from "../../judge/JudgePool.js";
import { demoStudies } from "../../inference/backends.js";
import { normalizeStudyConfig, parseStudySettings } from "../../run/config.js";
import { runStudy } from "../../run/runStudy.js";
import { createProgressDisplay } from "../../run/progress.js";
import { loadStudy } from "../../report/loadStudy.js";
import { renderReport } from "../../report/index.js";
import { scoreNeighbourhoods, summariseConfigs } from "../../scores/index.js";
import { COMPARED_SCORES, scoreValue } from "../../report/scoreTable.js";
import { decodingMode } from "../../report/buildReport.js";
import { renderTable, terminalWidth, wrap } from "../../report/terminalTable.js";
import { safeTerminalText } from "../../util/safeText.js";
import { writePrivateFile } from "../../util/privateFiles.js";
import { summarize } from "../../run/summary.js";
import { templateLibrary } from "../templateLibrary.js";

/** A few templates, one per problem group where possible, so the demo touches the whole taxonomy. */
function demoTemplates(n: number): string {
    const all = loadAllTemplates(templateLibrary());
    const picked: string[] = [];
    for (const g of new Set(all.map((t) => t.group))) {
        const t = all.find((x) => x.group === g);
        if (t && picked.length < n) picked.push(t.id);
    }
    return picked.join(",");
}

/** `eddy demo` (`npm start`): a small study end to end, its scores table and report. */
export function registerDemoCommand(program: Command): void {
    program
        .command("demo")
        .description("A small study end to end on eddy's own tiny model, a simulated flawed model (replayed oracle mutants) and the reference backend; prints the scores table (what `npm start` runs)")
        .option("--db <file>", `database file (default ${defaultDbPath()})`)
        .option("--templates <spec>", "templates to use (default: one per problem group, up to 4)")
        .option("-M, --instances <M>", "instances per template", "6")
        .option("-R, --rounds <R>", "rounds per instance", "2")
        .option("--threads <n>", "inference threads", "1")
        .option("--wide", "every value in full (the table is otherwise fitted to the terminal, or 100 columns)")
        .addHelpText("after", "\nExamples:\n  $ eddy demo\n  $ npm start\n  $ eddy demo --templates list --instances 4 --db /tmp/demo.db")
        .action(async (o: { db?: string; templates?: string; instances: string; rounds: string; threads: string; wide?: boolean }) => {
            const db = path.resolve(o.db ?? defaultDbPath());
            const templates = o.templates ?? demoTemplates(4);
            const common = { templates, instances: o.instances, rounds: o.rounds, seed: 1, db, maxTokens: 48, threads: o.threads };
            // Validated first: a bad --instances or --rounds is one clear line before any work starts.
            const { instances, rounds, seed } = parseStudySettings(common);
            note(`demo: templates ${templates}; M=${o.instances} R=${o.rounds}`);
            mkdirSync(path.dirname(db), { recursive: true });
            // Each backend's part, as its descriptor makes it with what eddy ships: eddy's tiny model, a simulated
            // flawed model replayed (oracle mutants at per-template rates, judged: scores of a model that is sometimes
            // wrong, with no code model here), the model solutions.
            let pool: JudgePool | undefined;
            let parts: Awaited<ReturnType<typeof demoStudies>>;
            try {
                parts = await demoStudies({
                    dir: path.dirname(db),
                    templates: selectTemplates(templateLibrary(), templates),
                    instances: instances!,
                    rounds: rounds!,
                    seed: seed!,
                    judge: async () => (pool ??= await JudgePool.start({ workers: 1 }))
                });
            } finally {
                await pool?.close();
            }
            const studies = parts.map((p) => normalizeStudyConfig({ ...common, ...p.settings }));
            const runIds: string[] = [];
            for (const config of studies) {
                const display = createProgressDisplay({ everyMs: 5000 });
                const result = await runStudy(config, {
                    library: templateLibrary(),
                    onProgress: (p) => display.update(p),
                    onLog: logLine
                }).finally(() => display.stop());
                process.stderr.write(summarize(result) + "\n");
                runIds.push(result.runId);
            }
            const { outcomes, runs: meta, planned, determinism } = loadStudy(db, runIds);
            const summaries = summariseConfigs(scoreNeighbourhoods(outcomes, { planned }));
            const width = terminalWidth();
            // Compact: scores and category shares (PS/SF/IG/PF) per configuration; runs are listed below.
            const table = renderTable(
                [{ head: "configuration", min: 18, ellipsis: "middle" }, { head: "mode", fixed: true }, ...COMPARED_SCORES, "PS", "SF", "IG", "PF", "NC", "trunc"],
                summaries.map((s) => [
                    s.config,
                    decodingMode(meta.find((m) => m.id === s.runId), s.config),
                    ...COMPARED_SCORES.map((k) => scoreValue(k, s[k])),
                    share(s.categories.shares.perfect_success),
                    share(s.categories.shares.stochastic_failure),
                    share(s.categories.shares.inconsistent_generalisation),
                    share(s.categories.shares.perfect_failure),
                    share(s.categories.shares.incomplete + s.categories.shares.no_data),
                    s.harness.truncated
                ]),
                { width, ...(o.wide ? { wide: true } : {}) }
            );
            process.stdout.write(table + "\n");
            const reportFile = path.join(path.dirname(db), "reports", "demo.html");
            writePrivateFile(reportFile, await renderReport(outcomes, meta, "html", { planned, determinism })); // 0600, folders made 0700
            const prose = [
                "PS / SF / IG / PF: share of templates that are Perfect Success, Stochastic Failure, Inconsistent Generalisation, Perfect Failure; NC: not categorised (under 90% of a template's instances have a judged response). trunc: truncated responses.",
                ...parts.map((p) => p.explains)
            ];
            const out = [
                ...prose.map((p) => (o.wide ? safeTerminalText(p) : wrap(p, width))),
                safeTerminalText(`database: ${db}`),
                safeTerminalText(`runs:     ${runIds.join(" ")}`),
                safeTerminalText(`report:   ${reportFile}`),
                "again:",
                // Into a file: the HTML report is some 160 KB, not something for the terminal.
                shellLines(["eddy report", ...runIds, `--db ${shellQuote(db)}`, "--format html", `--out ${shellQuote(reportFile)}`], o.wide ? Infinity : width),
                shellLines(["eddy runs show", runIds[0]!, `--db ${shellQuote(db)}`], o.wide ? Infinity : width)
            ];
            process.stdout.write(out.join("\n") + "\n");
        });
}

/** A command line (words: unbreakable pieces, e.g. an option with its value) indented by 2, broken with shell continuations (` \\`) where it would pass `width`: still copyable. */
function shellLines(words: readonly string[], width: number): string {
    const lines: string[] = [];
    let line = "  " + safeTerminalText(words[0]!);
    for (const w of words.slice(1).map(safeTerminalText)) {
        if (line.length + 1 + w.length + 2 > width && line.trim().length > 0) {
            lines.push(line + " \\");
            line = "      " + w;
        } else line += " " + w;
    }
    lines.push(line);
    return lines.join("\n");
}

/** A share as a whole percentage (the demo's table stays narrow; the report has one decimal). */
function share(v: number): string {
    return `${Math.round(100 * v)}%`;
}
