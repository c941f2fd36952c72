import { logLine, note } from "../messages.js";
import path from "node:path";
import type { Command } from "commander";
import { createProgressDisplay } from "../../run/progress.js";
import { renderQuantHtml } from "../../quant/report/renderQuantHtml.js";
import { renderQuantText } from "../../quant/report/renderQuantText.js";
import { runQuantStudy } from "../../quant/study/runQuantStudy.js";
import { EddyError } from "../../util/errors.js";
import { defaultDbPath } from "../../util/paths.js";
import { addStudyExecutionOptions, addStudyShapeOptions, addStudyStoreOptions, stopOnSigint, studyConfigFromFlags, type StudyFlags, type StudyOptionTexts } from "./studyOptions.js";
import { writePrivateFile } from "../../util/privateFiles.js";
import { templateLibrary } from "../templateLibrary.js";
import { teacherForcingBackend } from "../../inference/backends.js";

/** Flags of `eddy quant`: the study flags of `eddy run` (backend fixed to llama) plus the comparison's own. */
interface QuantFlags extends StudyFlags {
    reference?: string;
    driftTexts?: string;
    json?: boolean;
    out?: string;
    progress?: boolean;
}

/** Help texts of the shared study options as `eddy quant` words them (one configuration per file). */
const QUANT_OPTION_TEXTS: StudyOptionTexts = {
    temperature: ["--temperature <t>", "sampling temperature, one value; 0 is greedy (default 0)"],
    wrapper: "prompt wrapper id or YAML file, one (default 'default')",
    threads: "inference threads, for the study and the drift measurement (default: tuned by the backend; drift uses the same)",
    config: "YAML or JSON file with the same keys as eddy run's flags (flags win)"
};

/** `eddy quant <gguf files...>`: the same study on every quantisation of one model, compared with a reference. */
export function registerQuantCommand(program: Command): void {
    const cmd = program
        .command("quant")
        .description("Compare quantisations of one model: one identical study on each, score deltas, McNemar, flips, token drift (top-1 agreement, KL) and cost")
        .argument("<files...>", "GGUF files: quantisations of one model (same architecture, tokenizer and tensor shapes)")
        .option("--reference <file>", "the file the others are compared with (default: the most precise, F32 > F16 > BF16 > Q8_0 > Q6_K > … > Q2_K)");
    addStudyShapeOptions(cmd, QUANT_OPTION_TEXTS);
    addStudyExecutionOptions(cmd, QUANT_OPTION_TEXTS);
    addStudyStoreOptions(cmd, QUANT_OPTION_TEXTS)
        .option("--drift-texts <n>", "most distinct reference answers teacher-forced for token drift; 0 skips drift (default 40)")
        .option("--json", "print the comparison as JSON on stdout")
        .option("--out <file>", "also write the HTML report (quality-versus-cost chart, tables, flips drill-down) to this file")
        .option("--no-progress", "no progress display")
        .addHelpText(
            "after",
            `
Examples:
  $ eddy quant models/eddy-tiny-f32.gguf models/eddy-tiny-q8_0.gguf models/eddy-tiny-q4_0.gguf -t list_every_kth -M 3 -R 1 --threads 1   # eddy's tiny models stand in for yours
  $ eddy quant models/eddy-tiny-*.gguf --reference models/eddy-tiny-q8_0.gguf -t list_every_kth -M 2 -R 1 --threads 1 --json > quant.json
  $ eddy quant models/eddy-tiny-f32.gguf models/eddy-tiny-q8_0.gguf models/eddy-tiny-q4_0.gguf -t list_every_kth -M 3 -R 1 --threads 1 --out quant.html

A real study: your GGUF files of one model (F16, Q8_0, Q4_K_M…), e.g. -t list -M 50 -R 5.

The same options again continue (or reuse) the same run: nothing is generated twice.`
        )
        .action(async (files: string[], flags: QuantFlags) => {
            const driftTexts = flags.driftTexts === undefined ? 40 : Number(flags.driftTexts);
            if (!Number.isInteger(driftTexts) || driftTexts < 0) throw new EddyError(`--drift-texts must be an integer >= 0 (got ${flags.driftTexts})`);
            const study = studyConfigFromFlags({ ...flags, model: files.map((f) => path.resolve(f)), backend: teacherForcingBackend().name });
            const stop = stopOnSigint();
            const display = flags.progress === false ? undefined : createProgressDisplay();
            try {
                const report = await runQuantStudy({
                    files,
                    ...(flags.reference ? { reference: flags.reference } : {}),
                    study,
                    driftTexts,
                    hooks: {
                        library: templateLibrary(),
                        signal: stop.signal,
                        onProgress: (p) => display?.update(p),
                        onLog: logLine,
                        onRunId: (id) => note(`run ${id} (database ${study.db ?? defaultDbPath()})`)
                    },
                    onDriftProgress: (file, done, total) => {
                        if (flags.progress !== false && done === total) note(`token drift of ${path.basename(file)} measured on ${total} texts`);
                    }
                });
                display?.stop();
                if (flags.out) {
                    const out = path.resolve(flags.out);
                    writePrivateFile(out, await renderQuantHtml(report)); // 0600, folders made 0700: it quotes verdict details
                    note(`report written to ${out}`);
                }
                process.stdout.write(flags.json ? JSON.stringify(report, null, 2) + "\n" : renderQuantText(report) + "\n");
            } finally {
                display?.stop();
                stop.dispose();
            }
        });
}
