import path from "node:path";
import type { Command } from "commander";
import { EddyError } from "../../util/errors.js";
import { defaultDbPath } from "../../util/paths.js";
import { normalizeStudyConfig, readConfigFile, STUDY_DEFAULTS, type StudyConfig } from "../../run/config.js";
import { planStudy } from "../../run/plan.js";
import { createProgressDisplay } from "../../run/progress.js";
import { runStudy, type StudyResult } from "../../run/runStudy.js";

/** Collect a repeatable option, splitting commas. */
const collect = (v: string, prev: string[] = []): string[] => [...prev, ...v.split(",").map((s) => s.trim()).filter(Boolean)];

interface RunFlags {
    model?: string[];
    templates?: string;
    instances?: string;
    rounds?: string;
    temperature?: string;
    wrapper?: string[];
    seed?: string;
    maxTokens?: string;
    db?: string;
    backend?: string;
    replay?: string;
    threads?: string;
    sequences?: string;
    batchSize?: string;
    contextSize?: string;
    gpu?: string;
    judgeWorkers?: string;
    topK?: string;
    topP?: string;
    minP?: string;
    repeatPenalty?: string;
    reproducible?: boolean;
    cache?: boolean;
    resume?: string;
    config?: string;
    dryRun?: boolean;
    fresh?: boolean;
    json?: boolean;
    progress?: boolean;
}

/** Flags and config file merged (flags win) into a StudyConfig. */
export function studyConfigFromFlags(f: RunFlags): StudyConfig {
    const file = f.config ? readConfigFile(f.config) : {};
    const base = f.config ? path.dirname(path.resolve(f.config)) : process.cwd();
    const fromFile = normalizeStudyConfigInput(file, base);
    const flags: Record<string, unknown> = {
        models: f.model?.map((m) => path.resolve(m)),
        templates: f.templates,
        instances: f.instances,
        rounds: f.rounds,
        temperatures: f.temperature,
        wrappers: f.wrapper,
        seed: f.seed,
        maxTokens: f.maxTokens,
        backend: f.backend,
        replay: f.replay && path.resolve(f.replay),
        threads: f.threads,
        sequences: f.sequences,
        batchSize: f.batchSize,
        contextSize: f.contextSize,
        gpu: f.gpu,
        judgeWorkers: f.judgeWorkers,
        topK: f.topK,
        topP: f.topP,
        minP: f.minP,
        repeatPenalty: f.repeatPenalty,
        reproducible: f.reproducible,
        noCache: f.cache === false ? true : undefined,
        fresh: f.fresh,
        db: f.db && path.resolve(f.db),
        resume: f.resume
    };
    for (const k of Object.keys(flags)) if (flags[k] === undefined) delete flags[k];
    const merged = { ...fromFile, ...flags };
    if (f.resume) {
        // Only the run id and operational settings matter; the stored configuration supplies the rest.
        return { ...STUDY_DEFAULTS, models: [], ...merged, backend: "reference" } as StudyConfig;
    }
    return normalizeStudyConfig(merged);
}

/** Config-file keys with paths resolved against the file's folder. */
function normalizeStudyConfigInput(file: Record<string, unknown>, base: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(file)) {
        if (v === undefined || v === null) continue;
        if (k === "model" || k === "models") out.models = (Array.isArray(v) ? v : String(v).split(",")).map((m) => path.resolve(base, String(m).trim()));
        else if (k === "replay" || k === "db") out[k] = path.resolve(base, String(v));
        else out[k] = v;
    }
    return out;
}

/** A short end-of-run summary with per-stage throughput. */
export function summarize(r: StudyResult): string {
    const g = r.stats.generation;
    const j = r.stats.judging;
    const st = r.stats.store;
    return [
        `run ${r.runId}: ${r.status} in ${(r.stats.wallMs / 1000).toFixed(1)}s`,
        `  generate: ${g.responses} responses (${g.cached} cached${g.missing ? `, ${g.missing} missing` : ""}${g.errors ? `, ${g.errors} errors` : ""}), ${g.tokens} tokens in ${(g.wallMs / 1000).toFixed(1)}s — ${g.tokensPerS.toFixed(0)} tok/s, ${g.responsesPerS.toFixed(1)} responses/s`,
        `  judge:    ${j.verdicts} verdicts (${j.cached} cached) in ${(j.wallMs / 1000).toFixed(1)}s — ${j.verdictsPerS.toFixed(1)} verdicts/s`,
        `  store:    ${st.rows} rows in ${st.transactions} transactions, ${st.ms.toFixed(0)} ms — ${st.rowsPerS.toFixed(0)} rows/s`
    ].join("\n");
}

/** `eddy run`: plan, generate, judge and store a study (or continue one). */
export function registerRunCommand(program: Command): void {
    program
        .command("run")
        .description("Run (or continue) a study: models × templates × temperatures × wrappers, M instances, R rounds; prints the run id")
        .option("-m, --model <file>", "GGUF model file (repeatable, or a comma list)", collect)
        .option("-t, --templates <spec>", `templates: all, a problem group, or comma-separated ids (default ${STUDY_DEFAULTS.templates})`)
        .option("-M, --instances <M>", `instances per template (default ${STUDY_DEFAULTS.instances})`)
        .option("-R, --rounds <R>", `rounds per instance (default ${STUDY_DEFAULTS.rounds})`)
        .option("--temperature <t[,t...]>", "sampling temperature(s); 0 is greedy (default 0)")
        .option("--wrapper <id>", "prompt wrapper id or YAML file (repeatable, or a comma list; default 'default')", collect)
        .option("--seed <S>", `run seed: instances and per-request seeds derive from it (default ${STUDY_DEFAULTS.seed})`)
        .option("--max-tokens <N>", `maximum generated tokens per response (default ${STUDY_DEFAULTS.maxTokens})`)
        .option("--backend <name>", "llama | reference (model solutions; must score AS = 1) | replay (answers from a JSONL file)")
        .option("--replay <file>", "JSONL of responses for --backend replay (template, instance, round, response per line)")
        .option("--threads <n>", "inference threads (default: tuned by the backend)")
        .option("--sequences <n>", "parallel sequences (default: chosen from memory and model size)")
        .option("--batch-size <n>", "batch size for prompt processing")
        .option("--context-size <n>", "context size in tokens")
        .option("--gpu <kind>", "auto | cuda | metal | vulkan | cpu")
        .option("--reproducible", "exact reproduction of seeded sampling at some speed cost")
        .option("--top-k <k>", "top-k when sampling")
        .option("--top-p <p>", "top-p when sampling")
        .option("--min-p <p>", "min-p when sampling")
        .option("--repeat-penalty <x>", "repeat penalty (off unless given)")
        .option("--judge-workers <n>", "parallel judge processes")
        .option("--no-cache", "generate again even when an identical query was answered in an earlier run")
        .option("--resume <id>", "continue this run where it stopped")
        .option("--fresh", "start a new run even if one with this configuration exists")
        .option("--config <file>", "YAML or JSON file with the same keys as these flags (flags win)")
        .option("--db <file>", `database file (default ${path.relative(process.cwd(), defaultDbPath()) || defaultDbPath()})`)
        .option("--dry-run", "print the plan (queries, expected tokens) and exit")
        .option("--json", "print the result (or the plan) as JSON on stdout")
        .option("--no-progress", "no progress display")
        .addHelpText(
            "after",
            `
Examples:
  $ eddy run --model models/qwen2.5-coder-1.5b-q4_k_m.gguf --templates list --instances 100 --rounds 5
  $ eddy run --model a.gguf,b.gguf --temperature 0,0.8 --templates sum_index_range --dry-run
  $ eddy run --backend reference --templates all --instances 10 --rounds 1
  $ eddy run --backend replay --replay answers.jsonl --templates list
  $ eddy run --resume 20261122-3fa9c1`
        )
        .action(async (flags: RunFlags) => {
            const config = studyConfigFromFlags(flags);
            if (flags.dryRun) {
                if (config.resume) throw new EddyError("--dry-run plans a new study; it cannot be combined with --resume");
                const plan = planStudy(config);
                const out = {
                    models: plan.models.map((m) => m.label),
                    templates: plan.templates.map((t) => t.id),
                    instances: config.instances,
                    rounds: config.rounds,
                    temperatures: config.temperatures,
                    wrappers: plan.wrappers.map((w) => w.id),
                    queries: plan.queries,
                    prompt_tokens_estimate: plan.promptTokensEstimate,
                    max_generated_tokens: plan.maxGeneratedTokens
                };
                if (flags.json) process.stdout.write(JSON.stringify(out, null, 2) + "\n");
                else
                    process.stdout.write(
                        [
                            `models:       ${out.models.join(", ")}`,
                            `templates:    ${out.templates.length} (${out.templates.slice(0, 8).join(", ")}${out.templates.length > 8 ? ", …" : ""})`,
                            `instances:    ${out.instances} per template, ${out.rounds} round(s) each`,
                            `temperatures: ${out.temperatures.join(", ")}   wrappers: ${out.wrappers.join(", ")}`,
                            `queries:      ${out.queries}`,
                            `tokens:       ~${out.prompt_tokens_estimate} prompt (chars/4), at most ${out.max_generated_tokens} generated (${config.maxTokens} per query)`
                        ].join("\n") + "\n"
                    );
                return;
            }
            const controller = new AbortController();
            let interrupts = 0;
            const onSigint = (): void => {
                interrupts++;
                if (interrupts > 1) process.exit(130);
                process.stderr.write("\neddy: stopping — finishing what is in flight and writing it (Ctrl-C again to quit now)\n");
                controller.abort();
            };
            process.on("SIGINT", onSigint);
            const display = flags.progress === false ? undefined : createProgressDisplay();
            try {
                const result = await runStudy(config, {
                    signal: controller.signal,
                    onProgress: (p) => display?.update(p),
                    onLog: (l) => process.stderr.write(`eddy: ${l}\n`),
                    onRunId: (id) => process.stderr.write(`eddy: run ${id} (database ${config.db ?? defaultDbPath()})\n`)
                });
                display?.stop();
                process.stderr.write(summarize(result) + "\n");
                if (flags.json) process.stdout.write(JSON.stringify(result, null, 2) + "\n");
                else process.stdout.write(result.runId + "\n");
                if (result.status === "interrupted") {
                    process.exitCode = controller.signal.aborted ? 130 : 1;
                    if (!controller.signal.aborted) process.stderr.write(`eddy: run ${result.runId} is not complete (see errors above); resume with 'eddy run --resume ${result.runId}'\n`);
                    else process.stderr.write(`eddy: interrupted; resume with 'eddy run --resume ${result.runId}'\n`);
                }
            } finally {
                display?.stop();
                process.off("SIGINT", onSigint);
            }
        });
}
