import type { Command } from "commander";
import Table from "cli-table3";
import { defaultDbPath } from "../../../util/paths.js";
import { openStore } from "../../../store/Store.js";
import { listRunInfos, runInfo, type RunInfo } from "../../../store/outcomes.js";

const dbOption = (): string => `database file (default ${defaultDbPath()})`;

/** One-line description of a run's study. */
function studyLine(r: RunInfo): string {
    const c = r.config as { templates?: string; instances?: number; rounds?: number; temperatures?: number[] };
    return `${c.templates ?? "?"} M=${c.instances ?? "?"} R=${c.rounds ?? "?"} t=${(c.temperatures ?? []).join(",")}`;
}

/** `eddy runs list|show`: the runs stored in a database. */
export function registerRunsCommand(program: Command): void {
    const runs = program
        .command("runs")
        .description("List and inspect stored runs")
        .addHelpText("after", "\nExamples:\n  $ eddy runs list\n  $ eddy runs list --json --db study.db\n  $ eddy runs show 20261122-3fa9c1");
    runs.command("list")
        .description("List the runs in the database, newest first")
        .option("--db <file>", dbOption())
        .option("--json", "print JSON on stdout")
        .addHelpText("after", "\nExamples:\n  $ eddy runs list\n  $ eddy runs list --db study.db --json")
        .action((o: { db?: string; json?: boolean }) => {
            const store = openStore(o.db ?? defaultDbPath(), { readonly: true });
            try {
                const infos = listRunInfos(store);
                if (o.json) {
                    process.stdout.write(JSON.stringify(infos.map(({ configurations, templates, ...rest }) => ({ ...rest, configurations: configurations.map((c) => c.label), templates: templates.length })), null, 2) + "\n");
                    return;
                }
                if (!infos.length) {
                    process.stdout.write(`no runs in ${store.path}\n`);
                    return;
                }
                const t = new Table({ head: ["run", "created", "status", "backend", "configurations", "study", "responses", "verdicts", "passed"], ...(process.stdout.isTTY ? {} : { style: { head: [], border: [] } }) });
                for (const r of infos)
                    t.push([r.id, r.created.replace("T", " ").slice(0, 19), r.status, r.backend, r.configurations.map((c) => c.label).join("\n"), studyLine(r), r.counts.generations + (r.counts.missing ? ` (+${r.counts.missing} missing)` : ""), r.counts.verdicts, r.counts.categories.passed ?? 0]);
                process.stdout.write(t.toString() + "\n");
            } finally {
                store.close();
            }
        });
    runs.command("show <id>")
        .description("Show one run: configuration, backend metadata, templates, counts by category")
        .option("--db <file>", dbOption())
        .option("--json", "print JSON on stdout")
        .addHelpText("after", "\nExamples:\n  $ eddy runs show 20261122-3fa9c1\n  $ eddy runs show 2026 --json   # a unique prefix works")
        .action((id: string, o: { db?: string; json?: boolean }) => {
            const store = openStore(o.db ?? defaultDbPath(), { readonly: true });
            try {
                const r = runInfo(store, id);
                if (o.json) {
                    process.stdout.write(JSON.stringify(r, null, 2) + "\n");
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
                }
                lines.push(`responses: ${r.counts.generations} (${r.counts.cached} from cache${r.counts.missing ? `, ${r.counts.missing} missing from replay` : ""}), verdicts: ${r.counts.verdicts}`);
                lines.push("categories: " + (Object.entries(r.counts.categories).map(([k, n]) => `${k} ${n}`).join(", ") || "none yet"));
                if (r.error) lines.push(`error: ${r.error}`);
                process.stdout.write(lines.join("\n") + "\n");
            } finally {
                store.close();
            }
        });
}
