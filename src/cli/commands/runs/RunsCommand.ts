import { mixedNodesNote } from "../../../inference/nodeSettings.js";
import type { Command } from "commander";
import { renderTable, terminalWidth } from "../../../report/terminalTable.js";
import { answersPhrase, runState } from "../../../vocabulary.js";
import { MESSAGE_WIDTH, wrapText } from "../../../util/textWidth.js";
import { safeJsonStringify, safeTerminalText } from "../../../util/safeText.js";
import { defaultDbPath } from "../../../util/paths.js";
import { openStore } from "../../../store/Store.js";
import { listRunInfos, runInfo, type RunInfo } from "../../../store/outcomes.js";
import { interpreterLine, numpyLine, recordedEnvironment } from "../../../judge/environment.js";

const dbOption = (): string => `database file (default ${defaultDbPath()})`;

/** One-line description of a run's study. */
function studyLine(r: RunInfo): string {
    const c = r.config as { templates?: string; instances?: number; rounds?: number; temperatures?: number[]; mode?: string; fast?: boolean };
    const mode = c.mode ?? (c.fast ? "fast" : undefined);
    return `M=${c.instances ?? "?"} R=${c.rounds ?? "?"} t=${(c.temperatures ?? []).join(",")}${mode ? ` ${mode}` : ""} ${c.templates ?? "?"}`;
}

/** `eddy runs list|show`: the runs stored in a database. */
export function registerRunsCommand(program: Command): void {
    const runs = program
        .command("runs")
        .description("List and inspect stored runs")
        .addHelpText("after", "\nExamples:\n  $ eddy runs list\n  $ eddy runs list --json --db study.db\n  $ eddy runs show latest");
    runs.command("list")
        .description("List the runs in the database, newest first")
        .option("--db <file>", dbOption())
        .option("--json", "print JSON on stdout (every value in full)")
        .option("--wide", "every value in full, and each run's study (the table is otherwise fitted to the terminal, or 100 columns)")
        .addHelpText("after", "\nExamples:\n  $ eddy runs list\n  $ eddy runs list --wide\n  $ eddy runs list --db study.db --json")
        .action((o: { db?: string; json?: boolean; wide?: boolean }) => {
            const store = openStore(o.db ?? defaultDbPath(), { readonly: true });
            try {
                const infos = listRunInfos(store);
                if (o.json) {
                    process.stdout.write(safeJsonStringify(infos.map(({ configurations, templates, ...rest }) => ({ ...rest, configurations: configurations.map((c) => c.label), templates: templates.length })), 2) + "\n");
                    return;
                }
                if (!infos.length) {
                    process.stdout.write(safeTerminalText(`no runs in ${store.path}\n`));
                    return;
                }
                // Compact: one line per run. Run ids are never cut in the middle (they are copied, and a prefix must stay
                // a prefix); columns give way from their ends (in full with --wide or --json).
                const table = renderTable(
                    [
                        // eddy's ids (15 characters) in full; a longer one (a merged or imported run) loses its end, so what is shown is a prefix that names it.
                        { head: "run", min: 15 },
                        { head: "created", fixed: true },
                        { head: "status", fixed: true },
                        { head: "backend", min: 9 },
                        { head: "responses", fixed: true },
                        { head: "passed/judged", fixed: true },
                        // Wrapped, never cut: a second temperature or wrapper must not disappear from the end.
                        { head: "configurations", min: 14, wrap: true },
                        ...(o.wide ? ["study"] : [])
                    ],
                    infos.map((r) => [
                        r.id,
                        o.wide ? r.created.replace("T", " ").slice(0, 19) : r.created.slice(5, 16).replace("T", " "),
                        runState(r.status, r.answers.missing, { short: true }),
                        r.backend,
                        r.counts.generations + (r.answers.missing ? ` +${r.answers.missing} missing` : ""),
                        `${r.answers.passed}/${r.answers.judged}`,
                        r.configurations.map((c) => c.label).join(", "),
                        ...(o.wide ? [studyLine(r)] : [])
                    ]),
                    { width: terminalWidth(), ...(o.wide ? { wide: true } : {}) }
                );
                process.stdout.write(table + "\n");
            } finally {
                store.close();
            }
        });
    runs.command("show <id>")
        .description("Show one run: configuration, backend metadata, templates, counts by category")
        .option("--db <file>", dbOption())
        .option("--json", "print JSON on stdout")
        .addHelpText("after", "\nExamples:\n  $ eddy runs show latest          # the newest run; latest~1 is the one before\n  $ eddy runs show latest --json   # a run id, or a unique prefix of 4+ characters, works too")
        .action((id: string, o: { db?: string; json?: boolean }) => {
            const store = openStore(o.db ?? defaultDbPath(), { readonly: true });
            try {
                const r = runInfo(store, id);
                if (o.json) {
                    process.stdout.write(safeJsonStringify(r, 2) + "\n");
                    return;
                }
                const lines = [
                    `run ${r.id}  (${runState(r.status, r.answers.missing)})`,
                    `created ${r.created}, updated ${r.updated}, eddy ${r.eddyVersion}, backend ${r.backend}, seed ${r.seed}`,
                    `judge isolation: ${r.isolationLevel ?? "unknown"}`,
                    `judge Python: ${judgePythonLine(r.isolation)}`,
                    `study: ${studyLine(r)}, max tokens ${(r.config as { maxTokens?: number }).maxTokens ?? "?"}`,
                    `templates (${r.templates.length}): ${r.templates.map((t) => t.id).join(", ")}`,
                    "configurations:"
                ];
                for (const c of r.configurations) {
                    const m = c.metadata ?? {};
                    const bits = ["quantization", "llamaCppRelease", "gpu", "threads", "sequences", "batchSize", "mode", "promptFormat"]
                        .filter((k) => (k === "quantization" ? c.quantization : m[k]) != null)
                        .map((k) => `${k}=${k === "quantization" ? c.quantization : String(m[k])}`);
                    lines.push(`  #${c.id} ${c.label}${c.modelSha256 ? ` sha256 ${c.modelSha256.slice(0, 12)}…` : ""} ${bits.join(" ")}`);
                    const mixed = mixedNodesNote(m);
                    if (mixed) lines.push(`    ${mixed}`);
                }
                const harness = (r.counts.categories.truncated ?? 0) + (r.counts.categories.judge_error ?? 0);
                lines.push(
                    `responses: ${r.counts.generations} (${r.counts.cached} from cache${r.counts.missing ? `, ${r.counts.missing} missing from replay` : ""}), verdicts: ${r.counts.verdicts}` +
                        (harness ? ` (${r.answers.judged} judged, ${harness} harness outcomes: truncated or judge_error)` : "")
                );
                lines.push(`answers: ${answersPhrase(r.answers)}`);
                lines.push("categories: " + (Object.entries(r.counts.categories).map(([k, n]) => `${k} ${n}`).join(", ") || "none yet"));
                if (r.error) lines.push(`error: ${r.error}`);
                // 100 columns: long lines (template lists, backend metadata) wrap under their first word.
                process.stdout.write(lines.map((l) => wrapText(safeTerminalText(l), MESSAGE_WIDTH, "    ")).join("\n") + "\n");
            } finally {
                store.close();
            }
        });
}

/** The judge's interpreter and what it offered answers, as the run recorded it, in one line (--json has every package). */
function judgePythonLine(isolation: unknown): string {
    const env = recordedEnvironment(isolation);
    if (!env) return "not recorded (a run from before eddy recorded it)";
    const n = Object.keys(env.packages).length;
    return `${interpreterLine(env)}, ${numpyLine(env)}, ${n} package${n === 1 ? "" : "s"} in its site folders${n ? " (--json lists them)" : ""}`;
}
