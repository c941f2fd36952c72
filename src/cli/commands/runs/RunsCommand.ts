import { mixedNodesNote } from "../../../inference/nodeSettings.js";
import type { Command } from "commander";
import { renderTable, terminalWidth } from "../../../report/terminalTable.js";
import { safeJsonStringify, safeTerminalText } from "../../../util/safeText.js";
import { defaultDbPath } from "../../../util/paths.js";
import { openStore } from "../../../store/Store.js";
import { listRunInfos, runInfo, type RunInfo } from "../../../store/outcomes.js";

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
        .option("--wide", "every value in full (the table is otherwise fitted to the terminal, or 100 columns)")
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
                // Compact: one line per run; long ids and study descriptions shortened (in full with --wide or --json).
                const table = renderTable(
                    [{ head: "run", ellipsis: "middle", min: 12 }, { head: "created", fixed: true }, "status", "backend", { head: "configurations", min: 14 }, { head: "study", min: 18 }, "responses", "passed/judged"],
                    infos.map((r) => [
                        r.id,
                        o.wide ? r.created.replace("T", " ").slice(0, 19) : r.created.slice(5, 16).replace("T", " "),
                        r.status,
                        r.backend,
                        r.configurations.map((c) => c.label).join(", "),
                        studyLine(r),
                        r.counts.generations + (r.counts.missing ? ` (+${r.counts.missing} missing)` : ""),
                        `${r.counts.categories.passed ?? 0}/${r.counts.verdicts}`
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
                    `run ${r.id}  (${r.status})`,
                    `created ${r.created}, updated ${r.updated}, eddy ${r.eddyVersion}, backend ${r.backend}, seed ${r.seed}`,
                    `judge isolation: ${r.isolationLevel ?? "unknown"}`,
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
                lines.push(`responses: ${r.counts.generations} (${r.counts.cached} from cache${r.counts.missing ? `, ${r.counts.missing} missing from replay` : ""}), verdicts: ${r.counts.verdicts}`);
                lines.push("categories: " + (Object.entries(r.counts.categories).map(([k, n]) => `${k} ${n}`).join(", ") || "none yet"));
                if (r.error) lines.push(`error: ${r.error}`);
                process.stdout.write(safeTerminalText(lines.join("\n") + "\n"));
            } finally {
                store.close();
            }
        });
}
