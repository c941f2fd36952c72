import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import Table from "cli-table3";
import { defaultDbPath } from "../../util/paths.js";
import { ensureTinyModels } from "../../inference/gguf/tinyModel.js";
import { loadAllTemplates, selectTemplates } from "../../templates/loadTemplates.js";
import { JudgePool } from "../../judge/JudgePool.js";
import { writeSimulatedAnswers } from "../../inference/replay/simulatedAnswers.js";
import { normalizeStudyConfig } from "../../run/config.js";
import { runStudy } from "../../run/runStudy.js";
import { createProgressDisplay } from "../../run/progress.js";
import { openStore } from "../../store/Store.js";
import { loadOutcomes, runInfo } from "../../store/outcomes.js";
import { renderReport } from "../../report/index.js";
import { scoreNeighbourhoods, summariseConfigs } from "../../scores/index.js";
import { fix, pct } from "../../report/format.js";
import { summarize } from "./RunCommand.js";

/** A few templates, one per problem group where possible, so the demo touches the whole taxonomy. */
function demoTemplates(n: number): string {
    const all = loadAllTemplates();
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
        .addHelpText("after", "\nExamples:\n  $ eddy demo\n  $ npm start\n  $ eddy demo --templates list --instances 10 --db /tmp/demo.db")
        .action(async (o: { db?: string; templates?: string; instances: string; rounds: string; threads: string }) => {
            const db = path.resolve(o.db ?? defaultDbPath());
            const tiny = ensureTinyModels();
            const templates = o.templates ?? demoTemplates(4);
            const common = { templates, instances: o.instances, rounds: o.rounds, seed: 1, db, maxTokens: 48 };
            process.stderr.write(`eddy demo: templates ${templates}; M=${o.instances} R=${o.rounds}\n`);
            // A simulated flawed model (oracle mutants at per-template rates), judged through the replay
            // backend: what the scores look like for a model that is sometimes wrong, with no code model here.
            const simulated = path.join(path.dirname(db), "demo-simulated-answers.jsonl");
            mkdirSync(path.dirname(simulated), { recursive: true });
            // Validated first: a bad --instances or --rounds is one clear line before any work starts.
            const studies = [
                { ...common, backend: "llama", models: [tiny.f32], temperatures: [0], threads: o.threads, contextSize: 1024 },
                { ...common, backend: "replay", replay: simulated },
                { ...common, backend: "reference" }
            ].map((raw) => normalizeStudyConfig(raw));
            const { instances, rounds, seed } = studies[1]!;
            const pool = await JudgePool.start({ workers: 1 });
            try {
                await writeSimulatedAnswers(pool, selectTemplates(templates), { instances, rounds, seed, file: simulated });
            } finally {
                await pool.close();
            }
            const runIds: string[] = [];
            for (const config of studies) {
                const display = createProgressDisplay({ everyMs: 5000 });
                const result = await runStudy(config, {
                    onProgress: (p) => display.update(p),
                    onLog: (l) => process.stderr.write(`eddy: ${l}\n`)
                }).finally(() => display.stop());
                process.stderr.write(summarize(result) + "\n");
                runIds.push(result.runId);
            }
            const store = openStore(db, { readonly: true });
            let outcomes;
            let meta;
            try {
                outcomes = loadOutcomes(store, runIds);
                meta = runIds.map((id) => runInfo(store, id));
            } finally {
                store.close();
            }
            const summaries = summariseConfigs(scoreNeighbourhoods(outcomes));
            const table = new Table({ head: ["configuration", "run", "templates", "AS", "CPS", "CCS", "pass@1", "perfect success", "stochastic failure", "inconsistent gen.", "perfect failure", "truncated"], ...(process.stdout.isTTY ? {} : { style: { head: [], border: [] } }) });
            for (const s of summaries)
                table.push([
                    s.config,
                    s.runId,
                    s.templates,
                    fix(s.AS),
                    fix(s.CPS),
                    fix(s.CCS),
                    fix(s.passAtK["1"]),
                    pct(s.categories.shares.perfect_success),
                    pct(s.categories.shares.stochastic_failure),
                    pct(s.categories.shares.inconsistent_generalisation),
                    pct(s.categories.shares.perfect_failure),
                    s.harness.truncated
                ]);
            process.stdout.write(table.toString() + "\n");
            const reportFile = path.join(path.dirname(db), "reports", "demo.html");
            mkdirSync(path.dirname(reportFile), { recursive: true });
            writeFileSync(reportFile, await renderReport(outcomes, meta.map((m) => ({ id: m.id, created: m.created, status: m.status, backend: m.backend, seed: m.seed, eddyVersion: m.eddyVersion, isolationLevel: m.isolationLevel })), "html"));
            process.stdout.write(
                [
                    "The tiny model has random weights: it never writes code and never stops by itself, so its answers",
                    "are cut off at max tokens and recorded as `truncated` (a harness outcome, left out of the scores: –).",
                    `The replay row judges a simulated flawed model (${path.basename(simulated)}): each template's answers are`,
                    "its model solution or, at a per-template rate (0, 25, 50, 100%), one of its oracle's mutants.",
                    "The reference backend answers with each oracle's model solution: its row is what a perfect model scores.",
                    `database: ${db}`,
                    `runs:     ${runIds.join(" ")}   (eddy runs show <id> --db ${db})`,
                    `report:   ${reportFile}   (eddy report ${runIds.join(" ")} --db ${db} --format html)`
                ].join("\n") + "\n"
            );
        });
}
