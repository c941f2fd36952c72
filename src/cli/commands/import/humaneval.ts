import { logLine, print } from "../../messages.js";
import { createProgressDisplay } from "../../../run/progress.js";
import type { Command } from "commander";
import { DEFAULT_GROUND_TRUTH } from "../../../import/humaneval/groundTruth.js";
import { importHumanEval } from "../../../import/humaneval/importProblems.js";
import { importEvalPlusSamples } from "../../../import/humaneval/importSamples.js";
import { positiveInt, replayImportFlags, replayImportOptions, type ReplayImportFlags } from "./options.js";

const DEFAULT_OUT = "eddy-humaneval";
const DEFAULT_MBPP_OUT = "eddy-mbpp";
/** Original problems in EvalPlus's HumanEval+ and MBPP+ release layouts, written for eddy. */
const PLUS_SAMPLE = "test/import/evalplus-sample";

/** `eddy import humaneval <file>`, `eddy import mbpp <file>` and `eddy import evalplus-samples <samples>`. */
export function registerHumanEvalImports(cmd: Command): void {
    for (const dataset of ["humaneval", "mbpp"] as const) {
        const name = dataset === "mbpp" ? "MBPP+" : "HumanEval";
        const c = cmd
            .command(dataset)
            .description(
                dataset === "mbpp"
                    ? "Turn EvalPlus's MBPP+ release (MbppPlus.jsonl[.gz]) into eddy templates and oracles, expected outputs computed once here, each validated before anything is written"
                    : "Turn HumanEval-format problems (HumanEval.jsonl[.gz], EvalPlus's HumanEvalPlus.jsonl[.gz]) into eddy templates and oracles, expected outputs computed once here, each validated before anything is written"
            )
            .argument(
                "<file>",
                dataset === "mbpp"
                    ? "MbppPlus.jsonl (or .jsonl.gz) with task_id, prompt, canonical_solution, entry_point, base_input, plus_input, atol"
                    : "JSONL (or gzip'd JSONL) with task_id, prompt, canonical_solution, test, entry_point, and optionally base_input, plus_input, atol"
            )
            .option("--out <folder>", "where templates/ and oracles/ go", dataset === "mbpp" ? DEFAULT_MBPP_OUT : DEFAULT_OUT)
            .option("--strict", `stop at the first problem that cannot be imported and leave --out as it was (default: import the others and list what was skipped)`)
            .option("--workers <n>", "problems computed at once, and judge worker processes for validation", positiveInt)
            .option("--canonical-cpu <seconds>", `CPU time each problem's own code may take at import, on all its inputs, in the judge's sandbox (reference-machine seconds, scaled by the host factor; default ${DEFAULT_GROUND_TRUTH.cpuS}): a problem over it is skipped`, positiveInt)
            .option("--allow-unsandboxed", "run the problems' own code even where no sandbox can be had (it can then read and write your files)")
            .option("--evalplus-version <v>", "time each input as this EvalPlus did (a release such as 0.3.1, 'main', or a date YYYY-MM-DD; default its current: max(4 s, 4 x the canonical solution))")
            .option("--json", "print the import summary as JSON")
            .addHelpText(
                "after",
                `\nEach ${name} problem becomes templates/<id>.yaml (one instance: its only parameter task_id takes one value), oracles/<id>.py and oracles/<id>.expected.json (the expected outputs, computed once here and read by every run). The problems' own code (prompt, canonical solution, check()) runs only in the judge's sandbox, under a CPU limit (--canonical-cpu) and 4 GiB of memory; a problem whose code fails, hangs or returns what cannot be stored is skipped with its reason. With base_input/plus_input each input is judged as EvalPlus judges it; a sample is correct when all pass. A summary goes to <out>/humaneval-import.json.\n\nExamples:\n  $ eddy import ${dataset} ${dataset === "mbpp" ? `${PLUS_SAMPLE}/MbppPlus-eddy.jsonl` : `${PLUS_SAMPLE}/HumanEvalPlus-eddy.jsonl`} --out ${dataset === "mbpp" ? DEFAULT_MBPP_OUT : DEFAULT_OUT}\n  $ EDDY_TEMPLATES=${dataset === "mbpp" ? DEFAULT_MBPP_OUT : DEFAULT_OUT}/templates eddy run --backend reference -R 1 --wrapper completion`
            )
            .action(async (file: string, o: { out: string; strict?: boolean; workers?: number; canonicalCpu?: number; allowUnsandboxed?: boolean; evalplusVersion?: string; json?: boolean }) => {
                const summary = await importHumanEval(file, {
                    out: o.out,
                    dataset,
                    ...(o.strict ? { strict: true } : {}),
                    ...(o.workers ? { workers: o.workers } : {}),
                    ...(o.canonicalCpu ? { canonical: { cpuS: o.canonicalCpu } } : {}),
                    ...(o.allowUnsandboxed ? { allowUnsandboxed: true } : {}),
                    ...(o.evalplusVersion !== undefined ? { evalplusVersion: o.evalplusVersion } : {}),
                    // Progress, and every problem skipped with its reason (stderr).
                    onLog: logLine
                });
                if (o.json) {
                    process.stdout.write(JSON.stringify(summary, null, 2) + "\n");
                    return;
                }
                for (const t of summary.templates) {
                    const tests = t.fixedTests.check ? `check() ${t.fixedTests.check} call(s)` : `${t.fixedTests.base} base + ${t.fixedTests.plus} plus input(s)`;
                    print(`${t.id}: ${t.taskId} ${t.function}/${t.arity}, ${tests}${t.atol ? `, atol ${t.atol}` : ""}, ${t.mutants.length} mutant(s)`);
                }
                print(`${summary.templates.length} template(s) imported into ${summary.out}${summary.skipped.length ? `, ${summary.skipped.length} problem(s) skipped` : ""} (summary: humaneval-import.json)`);
            });
        void c;
    }

    replayImportFlags(
        cmd
            .command("evalplus-samples")
            .description("Judge EvalPlus samples over problems 'eddy import humaneval' imported, in a replay run; EvalPlus's own statuses (an eval_results.json beside them) are kept beside eddy's verdicts")
            .argument("<samples>", "samples.jsonl ({task_id, solution | completion} per line) or a folder of <task_id with / as _>/<n>.py"),
        {
            templates: "the folder 'eddy import humaneval' wrote",
            defaultTemplates: DEFAULT_OUT,
            model: "model label of the run (default: the samples file or folder name)",
            temperature: "the temperature the samples were drawn at (default 0)"
        }
    )
        .option("--evalplus-version <v>", "the EvalPlus that judged the results beside the samples (a release such as 0.3.1, 'main', or a date YYYY-MM-DD); default: by the results' date")
        .option("--no-progress", "no progress display")
        .option("--json", "print the run made as JSON")
        .addHelpText(
            "after",
            `\nEach task's samples are the rounds of its one instance. Then 'eddy report <run id>' shows eddy's verdicts, scores and, with <samples>.eval_results.json (or _eval_results.json) beside the samples, the agreement with EvalPlus: each disagreement with its cause (their harness, a defect of their version, their version's limits, another dataset, eddy's harness, or unknown) and the evidence for it, found by running the sample on the input that decided in eddy's sandbox.\n\nExample (after 'eddy import humaneval ${PLUS_SAMPLE}/HumanEvalPlus-eddy.jsonl --out ${DEFAULT_OUT}'):\n  $ eddy import evalplus-samples ${PLUS_SAMPLE}/samples.jsonl`
        )
        .action(async (samples: string, o: ReplayImportFlags & { evalplusVersion?: string; progress?: boolean; json?: boolean }) => {
            // The replay run's progress, as 'eddy run' shows it: the judging of many samples takes minutes.
            const display = o.progress === false ? undefined : createProgressDisplay();
            let r: Awaited<ReturnType<typeof importEvalPlusSamples>>;
            try {
                r = await importEvalPlusSamples(samples, {
                    ...replayImportOptions(o),
                    ...(o.evalplusVersion !== undefined ? { evalplusVersion: o.evalplusVersion } : {}),
                    ...(display ? { onProgress: (p) => display.update(p) } : {})
                });
            } finally {
                display?.stop();
            }
            if (o.json) {
                process.stdout.write(JSON.stringify(r, null, 2) + "\n");
                return;
            }
            print(`run ${r.runId}: ${r.model} t=${r.temperature}, ${r.templates.length} task(s), ${r.samples} sample(s) in up to ${r.rounds} round(s)${r.missing ? `, ${r.missing} missing` : ""}${r.published ? `; EvalPlus statuses from ${r.published}${r.evalplus ? ` (${r.evalplus.disagreements} disagreement(s), each with its cause in the report)` : ""}` : ""}`);
            process.stdout.write(`next: eddy report ${r.runId}\n`);
        });
}
