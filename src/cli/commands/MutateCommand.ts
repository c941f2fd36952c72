import { ensureTinyEmbedModel } from "../../embed/tinyEmbedModel.js";
import type { Command } from "commander";
import { BACKEND_NAMES } from "../../inference/backends.js";
import { Embedder } from "../../embed/Embedder.js";
import { buildMutateReport, MUTATE_RENDERERS, MUTATE_REPORT_FORMATS } from "../../mutate/report.js";
import { runMutateStudy } from "../../mutate/study.js";
import { DEFAULT_MIN_SIMILARITY, generateVariants, type VariantRecord } from "../../mutate/variants.js";
import { loadWrapper } from "../../prompts/PromptWrapper.js";
import { runStudy } from "../../run/runStudy.js";
import { openStore } from "../../store/Store.js";
import { EddyError } from "../../util/errors.js";
import { defaultDbPath } from "../../util/paths.js";
import { reportFormat, writeReport } from "./reportOutput.js";
import { TEMPERATURE_OPTION, addStudyExecutionOptions, addStudyShapeOptions, addStudyStoreOptions, collect, stopOnSigint, studyConfigFromFlags, type StudyConfigFlags, type StudyOptionTexts } from "./studyOptions.js";
import { templateLibrary } from "../templateLibrary.js";
import { logLine, note, noteWithCommand, resumeCommand } from "../messages.js";
import { wrapText } from "../../util/textWidth.js";
import { renderTable, terminalWidth } from "../../report/terminalTable.js";

const TEXTS: StudyOptionTexts = {
    temperature: TEMPERATURE_OPTION.list,
    wrapper: "the ORIGINAL prompt wrapper to mutate: built-in id or YAML file (default 'default')",
    threads: "inference threads (default: tuned by the backend)",
    config: "YAML or JSON file with the study keys (flags win)"
};

interface VariantFlags {
    embedModel?: string;
    minSimilarity?: string;
    variants?: string;
}

/** The embedding model folder: --embed-model, else EDDY_EMBED_MODEL. */
function embedModelOf(f: VariantFlags): string {
    const m = f.embedModel ?? process.env.EDDY_EMBED_MODEL;
    if (!m) throw new EddyError("no embedding model: pass --embed-model <folder> (a Hugging Face folder with onnx/model.onnx) or set EDDY_EMBED_MODEL");
    return ensureTinyEmbedModel(m);
}

function thresholdOf(f: VariantFlags): number {
    const v = f.minSimilarity === undefined ? DEFAULT_MIN_SIMILARITY : Number(f.minSimilarity);
    if (!Number.isFinite(v) || v < -1 || v > 1) throw new EddyError(`--min-similarity must be a number between -1 and 1 (got '${f.minSimilarity}')`);
    return v;
}

function countOf(f: VariantFlags): number {
    const v = f.variants === undefined ? 8 : Number(f.variants);
    if (!Number.isInteger(v) || v < 1) throw new EddyError(`--variants must be a positive integer (got '${f.variants}')`);
    return v;
}

function printVariants(vs: VariantRecord[]): void {
    for (const v of vs)
        note(`${v.kept ? "kept    " : "rejected"} ${v.id}  cos ${v.similarity.toFixed(3)}  ${v.operations.join(" + ")}`);
}

const addVariantOptions = (cmd: Command): Command =>
    cmd
        .option("-e, --embed-model <dir>", "sentence-embedding model folder (Hugging Face layout, onnx/model.onnx); default EDDY_EMBED_MODEL")
        .option("--min-similarity <x>", `keep a variant only at cosine similarity >= x with the original (default ${DEFAULT_MIN_SIMILARITY})`)
        .option("--variants <n>", "variants to keep (default 8)");

/** `eddy mutate variants|run|report`: prompt-wrapper mutation and sensitivity (SPEC §8). */
export function registerMutateCommand(program: Command): void {
    const mutate = program
        .command("mutate")
        .description("Prompt sensitivity: semantic-preserving wrapper variants (checked by embeddings), a study across them, Z / MPI / Kendall's W / top-k IoU")
        .addHelpText("after", "\nExamples (eddy's tiny models stand in for yours):\n  $ eddy mutate run -m models/eddy-tiny-f32.gguf -t copy_block -M 2 -R 1 -e models/eddy-tiny-embed");

    addVariantOptions(
        mutate.command("variants").description("Show the variants of a wrapper and their cosine similarity to it (nothing is run)").option("--wrapper <id>", "wrapper id or YAML file (default 'default')").option("--json", "print the variants as JSON")
    ).action(async (f: VariantFlags & { wrapper?: string; json?: boolean }) => {
        const original = loadWrapper(f.wrapper ?? "default");
        const embedder = await Embedder.load(embedModelOf(f));
        try {
            const vs = await generateVariants(original, embedder, { count: countOf(f), minSimilarity: thresholdOf(f) });
            if (f.json) process.stdout.write(JSON.stringify(vs, null, 2) + "\n");
            else {
                const rows = vs.map((v) => [v.id, v.kept ? "kept" : "rejected", v.similarity.toFixed(3), v.operations.join(" + ")]);
                process.stdout.write(renderTable([{ head: "variant", fixed: true }, { head: "kept", fixed: true }, { head: "cosine", fixed: true }, "operations"], rows, { width: terminalWidth() }) + "\n");
                process.stdout.write(wrapText(`kept: cosine similarity to '${original.id}' >= ${thresholdOf(f)} (--min-similarity); --json for every value`) + "\n");
            }
        } finally {
            await embedder.close();
        }
    });

    const run = mutate
        .command("run")
        .description("Make the variants, keep those similar enough, and run one study over the original and the kept variants; prints the run id")
        .option("-m, --model <file>", "GGUF model file (repeatable: Kendall's W and IoU compare models)", collect);
    addStudyShapeOptions(run, TEXTS)
        .option("--backend <name>", BACKEND_NAMES.join(" | "));
    addVariantOptions(run).option("--variants-dir <dir>", "where the variant wrapper files go (default: mutants/ beside the database)");
    addStudyExecutionOptions(run, TEXTS).option("--resume <id>", "continue this mutation study's run");
    addStudyStoreOptions(run, TEXTS)
        .addHelpText("after", "\nExamples (eddy's tiny models stand in for yours):\n  $ eddy mutate run -m models/eddy-tiny-f32.gguf -t copy_block -M 2 -R 1 -e models/eddy-tiny-embed\n  $ eddy mutate report latest --format html --out sensitivity.html")
        .action(async (f: StudyConfigFlags & VariantFlags & { variantsDir?: string }) => {
            const wrappers = f.wrapper ?? [];
            if (wrappers.length > 1) throw new EddyError("mutate takes one original --wrapper (its variants are made for you)");
            const config = studyConfigFromFlags({ ...f, wrapper: undefined } as StudyConfigFlags);
            const stop = stopOnSigint();
            try {
                const hooks = {
                    library: templateLibrary(),
                    signal: stop.signal,
                    onLog: logLine,
                    onRunId: (id: string) => note(`run ${id} (database ${config.db ?? defaultDbPath()})`)
                };
                const result = f.resume
                    ? await runStudy(config, hooks)
                    : (
                          await runMutateStudy(
                              config,
                              { original: wrappers[0] ?? "default", embedModel: embedModelOf(f), minSimilarity: thresholdOf(f), count: countOf(f), ...(f.variantsDir ? { variantsDir: f.variantsDir } : {}) },
                              { ...hooks, onVariants: printVariants }
                          )
                      ).result;
                process.stdout.write(result.runId + "\n");
                if (result.status !== "complete") {
                    process.exitCode = stop.signal.aborted ? 130 : 1;
                    noteWithCommand(`run ${result.runId} is not complete; continue with`, resumeCommand(result.runId, config.db, ["mutate", "run"]));
                }
            } finally {
                stop.dispose();
            }
        });

    mutate
        .command("report")
        .description("Z and MPI per configuration and template, Kendall's W across variants, top-k IoU between configurations")
        .argument("<runs...>", "mutation-study run ids (several: their configurations are compared over the shared variants)")
        .option("--format <format>", "text | json | html (default: from --out's extension, else text)")
        .option("--out <file>", "write to a file instead of stdout")
        .option("--top-k <k,...>", "k values for the top-k IoU (default 1,3,5)")
        .option("--db <file>", `database file (default ${defaultDbPath()})`)
        .addHelpText("after", "\nExamples (latest: the newest run, when 'eddy mutate run' made it; or its id):\n  $ eddy mutate report latest\n  $ eddy mutate report latest --format html --out sensitivity.html --top-k 1,3")
        .action((runs: string[], o: { format?: string; out?: string; topK?: string; db?: string }) => {
            const format = reportFormat(MUTATE_REPORT_FORMATS, o.format, o.out, "text");
            const ks = o.topK?.split(",").map((s) => Number(s.trim()));
            if (ks && ks.some((k) => !Number.isInteger(k) || k < 1)) throw new EddyError(`--top-k takes positive integers (got '${o.topK}')`);
            const store = openStore(o.db ?? defaultDbPath(), { readonly: true });
            try {
                const r = buildMutateReport(store, runs, ks ? { ks } : {});
                writeReport(MUTATE_RENDERERS[format](r), format, o.out);
            } finally {
                store.close();
            }
        });
}
