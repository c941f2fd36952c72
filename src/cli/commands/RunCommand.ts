import type { Command } from "commander";
import { DEFAULT_LANGUAGE, LANGUAGES } from "../../languages/languages.js";
import { backendHelp, DEFAULT_BACKEND, resumeFlags } from "../../inference/backends.js";
import { EddyError } from "../../util/errors.js";
import { defaultDbPath } from "../../util/paths.js";
import { planStudy } from "../../run/plan.js";
import { createProgressDisplay } from "../../run/progress.js";
import { runStudy } from "../../run/runStudy.js";
import { summarize } from "../../run/summary.js";
import { templateLibrary } from "../templateLibrary.js";
import { logLine, note, noteWithCommand, resumeCommand, sameCommand } from "../messages.js";
import { TEMPERATURE_OPTION, addStudyExecutionOptions, addStudyShapeOptions, addStudyStoreOptions, collect, stopOnSigint, studyConfigFromFlags, type StudyConfigFlags, type StudyOptionTexts } from "./studyOptions.js";

/** Flags of `eddy run`: the shared study flags plus model, backend, resume and output choices. */
interface RunFlags extends StudyConfigFlags {
    dryRun?: boolean;
    json?: boolean;
    progress?: boolean;
    queue?: string;
    insecureQueue?: boolean;
}

/** Help texts of the shared study options as `eddy run` words them (several values allowed). */
const RUN_OPTION_TEXTS: StudyOptionTexts = {
    temperature: TEMPERATURE_OPTION.list,
    wrapper: "prompt wrapper id or YAML file (repeatable, or a comma list; default 'default')",
    threads: "inference threads (default: tuned by the backend)",
    config: "YAML or JSON file with the same keys as these flags (flags win)"
};

/** `eddy run`: plan, generate, judge and store a study (or continue one). */
export function registerRunCommand(program: Command): void {
    const cmd = program
        .command("run")
        .description("Run (or continue) a study: models × templates × temperatures × wrappers, M instances, R rounds; prints the run id")
        .option("-m, --model <file>", "GGUF model file, or with --backend server the served model's name (repeatable, or a comma list)", collect);
    addStudyShapeOptions(cmd, RUN_OPTION_TEXTS)
        .option("--backend <name>", `${backendHelp()} (default ${DEFAULT_BACKEND})`)
        .option("--language <lang>", `ask and judge in this language: ${LANGUAGES.join(", ")} (default ${DEFAULT_LANGUAGE}; part of the run's identity)`);
    addStudyExecutionOptions(cmd, RUN_OPTION_TEXTS).option("--resume <id>", "continue this run where it stopped");
    addStudyStoreOptions(cmd, RUN_OPTION_TEXTS)
        .option("--dry-run", "print the plan (queries, expected tokens) and exit")
        .option("--json", "print the result (or the plan) as JSON on stdout")
        .option("--no-progress", "no progress display")
        .option("--queue <url>", "plan the study as shards on this Redis (redis://[:password@]host:6379[/db], rediss:// for TLS) for `eddy worker` nodes to run; rows are collected into --db")
        .option("--insecure-queue", "allow a Redis that is neither on loopback nor password-protected")
        .addHelpText(
            "after",
            `
Examples (eddy's tiny models stand in for your GGUF files):
  $ eddy run -m models/eddy-tiny-q8_0.gguf -t list_every_kth -M 3 -R 2 --threads 1
  $ eddy run -m models/eddy-tiny-f32.gguf,models/eddy-tiny-q8_0.gguf --temperature 0,0.8 --dry-run
  $ eddy run --backend reference --templates math --instances 5 --rounds 1
  $ eddy run --backend replay --replay answers.jsonl -t list_every_kth -M 3 -R 1
  $ eddy run --backend server --base-url http://127.0.0.1:8080/v1 -m qwen2.5-coder --concurrency 4
  $ eddy run --backend reference --language javascript -t list_rotate_right -M 3 -R 1
  $ eddy run --resume latest            # the newest run, or a run id
  $ eddy run --backend reference -t list --queue redis://:s3cret@lab-redis:6379
  (shards for 'eddy worker' nodes to run)

A real study uses the defaults, --instances 100 --rounds 5, over the templates you choose.`
        )
        .action(async (flags: RunFlags) => {
            const config = studyConfigFromFlags(flags);
            if (flags.dryRun) {
                if (config.resume) throw new EddyError("--dry-run plans a new study; it cannot be combined with --resume");
                const plan = planStudy(config, templateLibrary());
                const out = {
                    models: plan.models.map((m) => m.label),
                    templates: plan.templates.map((t) => t.id),
                    instances: config.instances,
                    rounds: config.rounds,
                    temperatures: config.temperatures,
                    wrappers: plan.wrappers.map((w) => w.id),
                    queries: plan.queries,
                    prompt_tokens_estimate: plan.promptTokensEstimate,
                    max_generated_tokens: plan.maxGeneratedTokens,
                    language: config.language ?? DEFAULT_LANGUAGE,
                    skipped: plan.skipped,
                    ...(plan.small ? { note: plan.small } : {})
                };
                if (flags.json) process.stdout.write(JSON.stringify(out, null, 2) + "\n");
                else
                    process.stdout.write(
                        [
                            `models:       ${out.models.join(", ")}`,
                            ...(config.language ? [`language:     ${config.language}`] : []),
                            ...out.skipped.map((s) => `skipped:      ${s}`),
                            `templates:    ${out.templates.length} (${out.templates.slice(0, 8).join(", ")}${out.templates.length > 8 ? ", …" : ""})`,
                            `instances:    ${out.instances} per template, ${out.rounds} round(s) each`,
                            ...(plan.small ? [`note:         ${plan.small}`] : []),
                            `temperatures: ${out.temperatures.join(", ")}   wrappers: ${out.wrappers.join(", ")}`,
                            `queries:      ${out.queries}`,
                            `tokens:       ~${out.prompt_tokens_estimate} prompt (chars/4), at most ${out.max_generated_tokens} generated (${config.maxTokens} per query)`
                        ].join("\n") + "\n"
                    );
                return;
            }
            if (flags.queue) {
                // Imported here: the queue pulls in BullMQ and ioredis, which a local run never needs.
                const { runOnQueue } = await import("../../queue/runOnQueue.js");
                const r = await runOnQueue(config, flags.queue, { insecureQueue: flags.insecureQueue, progress: flags.progress, library: templateLibrary() });
                process.stdout.write((flags.json ? JSON.stringify(r, null, 2) : r.runId) + "\n");
                return;
            }
            const stop = stopOnSigint();
            const display = flags.progress === false ? undefined : createProgressDisplay();
            try {
                const result = await runStudy(config, {
                    library: templateLibrary(),
                    signal: stop.signal,
                    onProgress: (p) => display?.update(p),
                    onLog: logLine,
                    onRunId: (id) => note(`run ${id} (database ${config.db ?? defaultDbPath()})`)
                });
                display?.stop();
                process.stderr.write(summarize(result) + "\n");
                if (flags.json) process.stdout.write(JSON.stringify(result, null, 2) + "\n");
                else process.stdout.write(result.runId + "\n");
                if (result.status === "interrupted") {
                    process.exitCode = stop.signal.aborted ? 130 : 1;
                    // Queries that failed (their errors are above) are asked again by the same command, with the
                    // flags a resume alone would lack (a server's --base-url is not stored with the run).
                    if (!stop.signal.aborted) noteWithCommand(`run ${result.runId} is not complete (its failed queries are named above); the same command asks them again`, sameCommand());
                    else noteWithCommand("interrupted; resume with", resumeCommand(result.runId, config.db, ["run"], resumeFlags(config)));
                }
            } finally {
                display?.stop();
                stop.dispose();
            }
        });
}
