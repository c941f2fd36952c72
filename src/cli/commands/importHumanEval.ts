import { logLine, print } from "../messages.js";
import type { Command } from "commander";
import { importHumanEval } from "../../import/humaneval/importProblems.js";
import { importEvalPlusSamples } from "../../import/humaneval/importSamples.js";
import { positiveInt, replayImportFlags, replayImportOptions, type ReplayImportFlags } from "./importOptions.js";

const DEFAULT_OUT = "eddy-humaneval";
const DEFAULT_MBPP_OUT = "eddy-mbpp";
/** Original problems and samples in EvalPlus's layouts, written for eddy. */
const SAMPLE = "test/import/humaneval-sample";
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
            .option("--json", "print the import summary as JSON")
            .addHelpText(
                "after",
                `\nEach ${name} problem becomes templates/<id>.yaml (one instance: its only parameter task_id takes one value), oracles/<id>.py and oracles/<id>.expected.pkl (the expected outputs, computed once here and read by every run). With base_input/plus_input each input is judged as EvalPlus judges it; a sample is correct when all pass. A summary goes to <out>/humaneval-import.json.\n\nExamples:\n  $ eddy import ${dataset} ${dataset === "mbpp" ? `${PLUS_SAMPLE}/MbppPlus-eddy.jsonl` : `${PLUS_SAMPLE}/HumanEvalPlus-eddy.jsonl`} --out ${dataset === "mbpp" ? DEFAULT_MBPP_OUT : DEFAULT_OUT}\n  $ EDDY_TEMPLATES=${dataset === "mbpp" ? DEFAULT_MBPP_OUT : DEFAULT_OUT}/templates EDDY_ORACLES=${dataset === "mbpp" ? DEFAULT_MBPP_OUT : DEFAULT_OUT}/oracles eddy run --backend reference --rounds 1 --wrapper completion`
            )
            .action(async (file: string, o: { out: string; strict?: boolean; workers?: number; json?: boolean }) => {
                const summary = await importHumanEval(file, {
                    out: o.out,
                    dataset,
                    ...(o.strict ? { strict: true } : {}),
                    ...(o.workers ? { workers: o.workers } : {}),
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
                for (const s of summary.skipped) print(`skipped ${s.taskId}: ${s.reason}`);
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
        .option("--json", "print the run made as JSON")
        .addHelpText(
            "after",
            `\nEach task's samples are the rounds of its one instance. Then 'eddy report <run id>' shows eddy's verdicts, scores and, with <samples>.eval_results.json (or _eval_results.json) beside the samples, the agreement with EvalPlus.\n\nExample (after 'eddy import humaneval ${PLUS_SAMPLE}/HumanEvalPlus-eddy.jsonl --out ${DEFAULT_OUT}'):\n  $ eddy import evalplus-samples ${PLUS_SAMPLE}/samples.jsonl --templates ${DEFAULT_OUT}`
        )
        .action(async (samples: string, o: ReplayImportFlags & { json?: boolean }) => {
            const r = await importEvalPlusSamples(samples, replayImportOptions(o));
            if (o.json) {
                process.stdout.write(JSON.stringify(r, null, 2) + "\n");
                return;
            }
            print(`run ${r.runId}: ${r.model} t=${r.temperature}, ${r.templates.length} task(s), ${r.samples} sample(s) in up to ${r.rounds} round(s)${r.missing ? `, ${r.missing} missing` : ""}${r.published ? `; EvalPlus statuses from ${r.published}` : ""}`);
            process.stdout.write(`next: eddy report ${r.runId}\n`);
        });
}
