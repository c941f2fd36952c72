import { logLine, note } from "../messages.js";
import path from "node:path";
import type { Command } from "commander";
import { createProgressDisplay } from "../../run/progress.js";
import { renderQuantHtml } from "../../quant/report/renderQuantHtml.js";
import { renderQuantText } from "../../quant/report/renderQuantText.js";
import { runQuantStudy } from "../../quant/study/runQuantStudy.js";
import { EddyError } from "../../util/errors.js";
import { defaultDbPath } from "../../util/paths.js";
import { TEMPERATURE_OPTION, addStudyExecutionOptions, addStudyShapeOptions, addStudyStoreOptions, collect, stopOnSigint, studyConfigFromFlags, type StudyFlags, type StudyOptionTexts } from "./studyOptions.js";
import { writePrivateFile } from "../../util/privateFiles.js";
import { templateLibrary } from "../templateLibrary.js";
import { axisValues, KV_CACHE_AXIS, teacherForcingBackend } from "../../inference/backends.js";
import { makeLadder, type LadderResult } from "../../quant/make/makeLadder.js";
import { selectTemplates } from "../../templates/loadTemplates.js";
import { loadWrapper } from "../../prompts/index.js";

/** Flags of `eddy quant`: the study flags of `eddy run` (backend fixed to llama) plus the comparison's own. */
interface QuantFlags extends StudyFlags {
    reference?: string;
    types?: string;
    quantDir?: string;
    imatrix?: string;
    driftTexts?: string;
    json?: boolean;
    out?: string;
    progress?: boolean;
}

/** Help texts of the shared study options as `eddy quant` words them (one configuration per file). */
const QUANT_OPTION_TEXTS: StudyOptionTexts = {
    temperature: TEMPERATURE_OPTION.one,
    wrapper: "prompt wrapper id or YAML file, one (default 'default')",
    threads: "inference threads, for the study and the drift measurement (default: tuned by the backend; drift uses the same)",
    config: "YAML or JSON file with the same keys as eddy run's flags (flags win)"
};

/** `eddy quant <gguf files...>`: the same study on every quantisation of one model, compared with a reference. */
export function registerQuantCommand(program: Command): void {
    const cmd = program
        .command("quant")
        .description("Compare quantisations of one model: one identical study on each, score deltas, McNemar, flips, token drift (top-1 agreement, KL) and cost")
        .argument("<files...>", "GGUF files: quantisations of one model (same architecture, tokenizer and tensor shapes); or one full-precision file with --types")
        .option("--reference <file>", "the file the others are compared with (default: the most precise, F32 > F16 > BF16 > Q8_0 > Q6_K > … > Q2_K)")
        .option("--types <list>", "with one full-precision file: make these quantisations with llama-quantize first (e.g. Q8_0,Q6_K,Q4_K_M,IQ4_XS,IQ3_XXS), then study them against it")
        .option("--quant-dir <dir>", "where --types writes the ladder and its manifest (default <source folder>/<source name>-quants)")
        .option(KV_CACHE_AXIS.flags, KV_CACHE_AXIS.description)
        .option("--imatrix <mode>", "with --types: auto (computed by llama-imatrix on the study's prompts and solutions), none, or an imatrix file (default auto)");
    // `eddy quant make …`: options after the subcommand belong to it, not to `eddy quant` (commander hands a
    // subcommand's options over only when every command above it takes options by position).
    program.enablePositionalOptions();
    cmd.enablePositionalOptions();
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
Examples (eddy's tiny models stand in for yours):
  $ eddy quant models/eddy-tiny-*.gguf -t list_every_kth -M 2 -R 1 --threads 1 --json > quant.json
  $ eddy quant models/eddy-tiny-*.gguf -t list_every_kth -M 3 -R 1 --threads 1 --out quant.html
  (--reference models/eddy-tiny-q8_0.gguf: compare with that file rather than the most precise)

From one full-precision file (llama.cpp's tools: scripts/build-llama-tools.sh, once):
  $ eddy quant models/eddy-tiny-f32.gguf --types Q8_0,Q4_K_M --imatrix none -t copy_block -M 2 -R 1
  (your F16 file: --types Q8_0,Q6_K,Q4_K_M,IQ4_XS,IQ3_XXS --kv-cache f16,q8_0 -t list -M 50 -R 5)

A real study: your GGUF files of one model (F16, Q8_0, Q4_K_M…), e.g. -t list -M 50 -R 5.

The same options again continue (or reuse) the same run: nothing is generated twice.`
        )
        .action(async (given: string[], flags: QuantFlags) => {
            // An axis here, one value per run: taken off the flags each run's settings come from.
            const kvCaches = axisValues(flags as Record<string, unknown>, KV_CACHE_AXIS);
            let files = given;
            if (flags.types !== undefined || flags.quantDir !== undefined || flags.imatrix !== undefined) {
                if (given.length !== 1) throw new EddyError("--types makes a ladder from one full-precision file: give exactly one GGUF file (or no --types to compare files you have)");
                if (!flags.types) throw new EddyError("give the quantisation types to make with --types (e.g. Q8_0,Q6_K,Q4_K_M,IQ4_XS)");
                const source = path.resolve(given[0]!);
                const ladder = await makeLadderFromFlags(source, flags.quantDir ? path.resolve(flags.quantDir) : defaultQuantDir(source), flags);
                files = [source, ...ladder.files.map((f) => f.path)];
                flags.reference ??= source;
            } else if (given.length === 1) {
                throw new EddyError("give at least two GGUF files (quantisations of one model) to compare, or one full-precision file with --types Q8_0,Q4_K_M,… to make the ladder first");
            }
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
                    ...(kvCaches ? { kvCaches } : {}),
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

    const make = cmd
        .command("make")
        .description("Make quantisations of one full-precision GGUF with llama-quantize (an importance matrix from llama-imatrix on the study's own code), verified, with a manifest; kept files are reused")
        .argument("<source>", "the full-precision GGUF (F32, F16 or BF16)")
        .requiredOption("--types <list>", "quantisation types, comma-separated (e.g. Q8_0,Q6_K,Q5_K_M,Q4_K_M,Q3_K_S,IQ4_XS,IQ3_XXS)")
        .option("--out <dir>", "folder for the files and eddy-quant-manifest.json (default <source folder>/<source name>-quants)")
        .option("--imatrix <mode>", "auto (computed on the prompts and solutions of the study's templates), none, or an imatrix file (default auto; the I-quants need one)")
        .option("-t, --templates <spec>", "templates whose prompts and solutions calibrate the importance matrix (default: the study default)")
        .option("-M, --instances <M>", "instances per template in the calibration text (default: the study default)")
        .option("--seed <S>", "seed of the instances (default: the study default)")
        .option("--wrapper <id>", "prompt wrapper the questions are put in (default 'default')", collect)
        .option("--threads <n>", "threads for llama-quantize and llama-imatrix (default 1)")
        .option("--json", "print the ladder (files, manifest, imatrix) as JSON")
        .addHelpText(
            "after",
            `
Examples:
  $ eddy quant make models/eddy-tiny-f32.gguf --types Q8_0,Q4_K_M,IQ4_XS -t copy_block -M 3
  $ eddy quant make models/eddy-tiny-f32.gguf --types Q8_0,Q4_0 --imatrix none --out quants

eddy's tiny model stands in for your F16 file. llama-quantize and llama-imatrix come from
scripts/build-llama-tools.sh (once per llama.cpp release and CPU). The same command again keeps
every verified file and makes only what is missing.`
        )
        .action(async (source: string, flags: QuantFlags & { out?: string }) => {
            const abs = path.resolve(source);
            const ladder = await makeLadderFromFlags(abs, flags.out ? path.resolve(flags.out) : defaultQuantDir(abs), flags);
            if (flags.json) process.stdout.write(JSON.stringify(ladder, null, 2) + "\n");
            else process.stdout.write(renderLadderText(ladder) + "\n");
        });
    void make;
}

/** Where a ladder goes unless told: `<source folder>/<source name>-quants`. */
export function defaultQuantDir(source: string): string {
    return path.join(path.dirname(source), `${path.basename(source).replace(/\.gguf$/i, "")}-quants`);
}

async function makeLadderFromFlags(source: string, outDir: string, flags: QuantFlags): Promise<LadderResult> {
    const study = studyConfigFromFlags({ ...flags, model: [source], backend: teacherForcingBackend().name });
    const threads = flags.threads === undefined ? 1 : Number(flags.threads);
    if (!Number.isInteger(threads) || threads < 1) throw new EddyError(`--threads must be a whole number >= 1 (got ${flags.threads})`);
    const types = String(flags.types ?? "").split(",").map((s) => s.trim()).filter(Boolean);
    const imatrix = flags.imatrix ?? "auto";
    const stop = stopOnSigint();
    try {
        return await makeLadder({
            source,
            types,
            outDir,
            imatrix,
            threads,
            ...(imatrix === "auto"
                ? { calibration: { templates: selectTemplates(templateLibrary(), study.templates), instances: study.instances, seed: study.seed, wrapper: loadWrapper(study.wrappers[0] ?? "default") } }
                : {}),
            signal: stop.signal,
            onLog: (line) => note(line)
        });
    } finally {
        stop.dispose();
    }
}

/** The ladder as the terminal shows it. */
export function renderLadderText(l: LadderResult): string {
    const rows = [["file", "type", "bits/weight", "size", "imatrix", "made"]];
    for (const f of l.files) rows.push([f.file, f.type, f.bits_per_weight.toFixed(2), `${(f.size_bytes / 2 ** 20).toFixed(2)} MiB`, f.imatrix ? f.imatrix.sha256.slice(0, 12) : "-", f.reused ? "kept" : `${f.seconds.toFixed(1)} s`]);
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    const lines = rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd());
    const m = l.imatrix;
    const on = m ? (m.computed_on.kind === "given" ? `given (${m.computed_on.path})` : `${m.computed_on.questions} questions of ${m.computed_on.templates.join(", ")} (${m.computed_on.characters} characters, context ${m.computed_on.context})`) : "none";
    return [`source     ${l.source.path} (${l.source.quantization ?? "?"}, sha256 ${l.source.sha256.slice(0, 12)}…)`, `imatrix    ${on}`, `manifest   ${l.manifest}`, "", ...lines].join("\n");
}
