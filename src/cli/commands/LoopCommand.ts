import { ensureTinyEmbedModel } from "../../embed/tinyEmbedModel.js";
import type { Command } from "commander";
import path from "node:path";
import { BACKEND_NAMES, backendDescriptor, DEFAULT_BACKEND } from "../../inference/backends.js";
import { LOOP_DEFAULTS, normalizeLoopConfig, parseLoopSettings } from "../../loop/config.js";
import { OPERATIONAL_KEYS, STUDY_DEFAULTS } from "../../run/config.js";
import { buildLoopReport, LOOP_REPORT_FORMATS, renderLoopReport } from "../../loop/report.js";
import { runLoop } from "../../loop/runLoop.js";
import { openStore } from "../../store/Store.js";
import { defaultDbPath } from "../../util/paths.js";
import { safeTerminalLine } from "../../util/safeText.js";
import { renderTable, terminalWidth } from "../../report/terminalTable.js";
import { reportFormat, writeReport } from "./reportOutput.js";
import { TEMPERATURE_OPTION, addStudyExecutionOptions, addStudyStoreOptions, collect, settingsFromFlags, stopOnSigint, type StudyConfigFlags, type StudyOptionTexts } from "./studyOptions.js";
import { templateLibrary } from "../templateLibrary.js";
import { logLine, note, noteWithCommand, resumeCommand, warn } from "../messages.js";

/** Flags of `eddy loop run`: the study's (as `eddy run` parses them) and the loop's own. */
interface LoopFlags extends StudyConfigFlags {
    loops?: string;
    summariser?: string;
    embedModel?: string;
    translate?: string;
}

/** Help texts of the shared study options as `eddy loop run` words them (one temperature, one wrapper). */
const LOOP_OPTION_TEXTS: StudyOptionTexts = {
    temperature: TEMPERATURE_OPTION.one,
    wrapper: "prompt wrapper for the code requests (default 'default')",
    threads: "inference threads (default: tuned by the backend)",
    config: "YAML or JSON file with the same keys as these flags (flags win), plus maxLoops, summariser, embedModel, translate"
};

/** `eddy loop run|report|list`: EvaLOOP self-consistency studies (SPEC §7). */
export function registerLoopCommand(program: Command): void {
    const loop = program
        .command("loop")
        .description("EvaLOOP self-consistency: code → summary → code until the oracle fails; ASL per template and model")
        .addHelpText("after", "\nExamples:\n  $ eddy loop run --backend reference -t list -M 2");

    const cmd = loop
        .command("run")
        .description("Run (or continue) a loop study for each model; prints one loop run id per model")
        .option("-m, --model <file>", "GGUF model file (repeatable: one loop run per model, e.g. several quantisations)", collect)
        .option("--backend <name>", `${BACKEND_NAMES.join(" | ")}: reference answers with model solutions (every loop sustains), replay from a JSONL file (default ${DEFAULT_BACKEND})`)
        .option("--summariser <file>", "GGUF model that writes the summaries (default: the model itself)")
        .option("--translate <chain>", "the translation loop instead of the summary loop: a comma list of languages (e.g. python,javascript,ruby,python); each loop translates the last passing code along the chain, s = 1; replay's round is the step − 1")
        .option("-t, --templates <spec>", `templates: all, a group, or comma-separated ids (default ${STUDY_DEFAULTS.templates})`)
        .option("-M, --instances <M>", `instances per template (default ${LOOP_DEFAULTS.instances})`)
        .option("-N, --loops <N>", `loops at most (default ${LOOP_DEFAULTS.maxLoops})`)
        .option(...LOOP_OPTION_TEXTS.temperature)
        .option("--wrapper <id>", LOOP_OPTION_TEXTS.wrapper, collect)
        .option("--seed <S>", `seed for instances and per-request seeds (default ${STUDY_DEFAULTS.seed})`)
        .option("--max-tokens <N>", `maximum generated tokens per response (default ${STUDY_DEFAULTS.maxTokens})`)
        .option("--embed-model <dir>", "sentence-embedding model folder (Hugging Face layout): similarity at the failure boundary and summary drift");
    // The decoding, backend and judging settings of `eddy run`, with its names, bounds and parser.
    addStudyExecutionOptions(cmd, LOOP_OPTION_TEXTS).option("--resume <id>", "continue this loop run");
    addStudyStoreOptions(cmd, LOOP_OPTION_TEXTS)
        .addHelpText("after", "\nA replayed file's 'round' is the turn: 2(k−1) = loop k's code, 2k−1 = its summary (with --translate: the step − 1).\n\nExamples:\n  $ eddy loop run -m models/eddy-tiny-f32.gguf -t list_every_kth -M 3 -N 5 --threads 1\n  $ eddy loop run --backend reference -t list -M 2\n  $ eddy loop run --backend reference -t list_rotate_right -M 2 -N 2 --translate python,ruby,python\n  $ eddy loop report latest --format html --out loop.html   # latest: the newest loop run; or its id")
        .action(async (o: LoopFlags) => {
            const { merged, flags } = settingsFromFlags(o, { maxLoops: o.loops, summariser: o.summariser && path.resolve(o.summariser), embedModel: o.embedModel && ensureTinyEmbedModel(path.resolve(o.embedModel)), translate: o.translate });
            // Bad values and unknown settings (a config file's) are one line before anything runs.
            const s = parseLoopSettings(merged);
            if (s.resume !== undefined) {
                // As for a run: the stored settings win over everything but the operational ones.
                const ignored = Object.keys(flags).filter((k) => !(OPERATIONAL_KEYS as readonly string[]).includes(k));
                if (ignored.length)
                    warn(`--resume continues loop run ${s.resume} as it was configured; ignoring ${ignored.join(", ")} (start a new run with --fresh to change them)`);
            }
            // One loop run per model (several: e.g. quantisations side by side).
            const modelled = backendDescriptor(s.backend ?? DEFAULT_BACKEND).models !== "none";
            const perModel = s.resume === undefined && modelled && (s.models?.length ?? 0) > 1 ? s.models!.map((m) => ({ ...merged, models: [m] })) : [merged];
            const configs = perModel.map((raw) => normalizeLoopConfig(raw));
            const stop = stopOnSigint();
            try {
                for (const config of configs) {
                    const r = await runLoop(config, {
                        library: templateLibrary(),
                        signal: stop.signal,
                        onLog: logLine,
                        onRunId: (id) => note(`loop run ${id} (database ${config.db ?? defaultDbPath()})`),
                        onProgress: (p) => note(`${p.phase} loop ${p.loop}: ${p.active} of ${p.tasks} tasks active`)
                    });
                    process.stdout.write(r.runId + "\n");
                    if (r.status !== "complete") {
                        process.exitCode = stop.signal.aborted ? 130 : 1;
                        noteWithCommand(`loop run ${r.runId} is ${r.status}; continue with`, resumeCommand(r.runId, config.db, ["loop", "run"]));
                        if (stop.signal.aborted) break;
                    }
                }
            } finally {
                stop.dispose();
            }
        });

    loop.command("report")
        .description("ASL per template and model, the loop at which each task first fails, summary drift and code diffs")
        .argument("<runs...>", "loop run ids (several: side by side, e.g. models or quantisations)")
        .option("--format <format>", "text | json | html (default: from --out's extension, else text)")
        .option("--out <file>", "write to a file instead of stdout")
        .option("--diffs", "text: show the diff between successive codes")
        .option("--db <file>", `database file (default ${defaultDbPath()})`)
        .action((runs: string[], o: { format?: string; out?: string; diffs?: boolean; db?: string }) => {
            const format = reportFormat(LOOP_REPORT_FORMATS, o.format, o.out, "text");
            const store = openStore(o.db ?? defaultDbPath(), { readonly: true });
            try {
                const r = buildLoopReport(store, runs);
                writeReport(renderLoopReport(r, format, { diffs: o.diffs ?? false }), format, o.out);
            } finally {
                store.close();
            }
        });

    loop.command("list")
        .description("Loop runs in the database")
        .option("--db <file>", `database file (default ${defaultDbPath()})`)
        .action((o: { db?: string }) => {
            const store = openStore(o.db ?? defaultDbPath(), { readonly: true });
            try {
                const runs = store.loops.listRuns();
                if (runs.length === 0) process.stdout.write(`no loop runs in ${safeTerminalLine(store.path)}\n`);
                else
                    process.stdout.write(
                        renderTable(
                            [{ head: "loop run", fixed: true }, { head: "created", fixed: true }, { head: "status", fixed: true }, { head: "backend", fixed: true }, "model", { head: "quant", fixed: true }],
                            runs.map((r) => [r.id, r.created.slice(5, 16).replace("T", " "), r.status, r.backend, r.model, r.quantization ?? "—"]),
                            { width: terminalWidth() }
                        ) + "\n"
                    );
            } finally {
                store.close();
            }
        });
}
