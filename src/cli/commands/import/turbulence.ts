import { logLine, print } from "../../messages.js";
import type { Command } from "commander";
import { importTurbulence } from "../../../import/turbulence/importQuestions.js";
import { DEFAULT_RERUN_SEEDS, importTurbulenceResults } from "../../../import/turbulence/importResults.js";
import { readRulesFile } from "../../../import/turbulence/rules.js";
import { nonNegativeInt, positiveInt, replayImportFlags, replayImportOptions, type ReplayImportFlags } from "./options.js";
import { EddyError } from "../../../util/errors.js";

const DEFAULT_OUT = "eddy-turbulence";
/** A small benchmark and results in Turbulence's layout, written for eddy (original questions). */
const SAMPLE = "test/import/turbulence-sample";

function questionList(v: string): number[] {
    return v.split(",").map((s) => {
        const n = Number(s.trim().replace(/^Q/i, ""));
        if (!Number.isInteger(n) || n < 0) throw new EddyError(`--questions takes numbers such as 1,2,55, got '${s}'`);
        return n;
    });
}

/** `eddy import turbulence <dir>` and `eddy import turbulence-results <dir>`. */
export function registerTurbulenceImports(cmd: Command): void {
    cmd.command("turbulence")
        .description("Turn a Turbulence benchmark's Q<n>/ folders into eddy templates and oracles (each validated before anything is written)")
        .argument("<dir>", "the benchmark folder holding Q1/, Q2/, … (question.txt.template, solution.py.template, tests.py.template, gen_function_params.py)")
        .option("--out <folder>", "where templates/ and oracles/ go", DEFAULT_OUT)
        .option("--questions <list>", "only these questions, e.g. 1,2,55", questionList)
        .option("--rules <file>", "YAML of harness rules by question number (arguments, comparator, group, subgroup), on top of the built-in ones")
        .option("--results <folder>", "a published results folder (<Model>_T_<t>/): each question's neighbourhood is the tuples of its params_report.json files, in folder order")
        .option("--strict", "stop at the first question that cannot be imported and leave --out as it was (default: import the others and list what was skipped)")
        .option("--workers <n>", "questions checked at once, and judge worker processes", positiveInt)
        .option("--json", "print the import summary as JSON")
        .addHelpText(
            "after",
            `\nEach Q<n> becomes templates/turbulence_q<n>.yaml and oracles/turbulence_q<n>.py. A summary is written to <out>/turbulence-import.json. <dir> may also be a model folder of the v2 repository whose Q<n>/ folders hold the question files beside the results.\n\nExamples (the sample holds original questions in Turbulence's layout):\n  $ eddy import turbulence ${SAMPLE}/benchmark --out ${DEFAULT_OUT}\n  $ eddy import turbulence ${SAMPLE}/benchmark --questions 1,55 --json\n  (--results ${SAMPLE}/results/Tinycoder_T_0: the tuples each question was asked with there)\n  $ EDDY_TEMPLATES=${DEFAULT_OUT}/templates eddy templates validate --instances 4`
        )
        .action(async (dir: string, o: { out: string; questions?: number[]; rules?: string; results?: string; strict?: boolean; workers?: number; json?: boolean }) => {
            const summary = await importTurbulence(dir, {
                out: o.out,
                ...(o.questions ? { only: o.questions } : {}),
                ...(o.rules ? { rules: readRulesFile(o.rules) } : {}),
                ...(o.results ? { results: o.results } : {}),
                ...(o.strict ? { strict: true } : {}),
                ...(o.workers ? { workers: o.workers } : {}),
                onLog: logLine
            });
            if (o.json) {
                process.stdout.write(JSON.stringify(summary, null, 2) + "\n");
                return;
            }
            const now = summary.templates.filter((t) => summary.imported.includes(t.id));
            for (const t of now) {
                const m = t.mutants;
                print(
                    `${t.id}: ${t.function}, ${t.instances} instance(s) from ${t.paramsSource}, comparator ${t.comparator}, arguments ${t.arguments}, mutants ${m.derived.length} derived + ${m.generic.length} generic, validation ${t.validation.how}${t.warnings.length ? `, ${t.warnings.length} warning(s)` : ""}`
                );
            }
            for (const s of summary.skipped) print(`skipped ${s.location}: ${s.reason}`);
            print(`${now.length} template(s) imported into ${summary.out}${summary.skipped.length ? `, ${summary.skipped.length} question(s) skipped` : ""} (summary: turbulence-import.json)`);
        });

    replayImportFlags(
        cmd
            .command("turbulence-results")
            .description("Re-judge one model's published Turbulence results in a replay run, keeping Turbulence's own verdict beside eddy's")
            .argument("<dir>", "a results folder such as Claude_3_5_Haiku_T_0/ holding Q<n>/<model>_results_<run>/Folder_<c>/"),
        {
            templates: "the folder 'eddy import turbulence' wrote",
            defaultTemplates: DEFAULT_OUT,
            model: "the model whose <model>_results_<run> folders to read, when there are several",
            temperature: "the temperature, when the folder name does not end in _T_<t>"
        }
    )
        .option("--rerun-seeds <n>", `where eddy and Turbulence disagree, re-run the published test in the sandbox with this many seeds (0: no re-run)`, nonNegativeInt, DEFAULT_RERUN_SEEDS)
        .option("--strict", "stop at the first response that cannot be imported (default: import the others and list what was skipped)")
        .option("--json", "print the runs made as JSON")
        .addHelpText(
            "after",
            `\nEach import makes new runs with their own replay files; earlier runs are never changed. Responses are read as published: printed SDK objects (OpenAI ChatCompletion, Anthropic Message, Mistral), Cohere's Generation, chat-completion JSON or plain text. A folder ending in _T_D needs --temperature. Then 'eddy report <run id>' shows eddy's agreement with Turbulence.\n\nExamples (after 'eddy import turbulence ${SAMPLE}/benchmark --out ${DEFAULT_OUT}'):\n  $ eddy import turbulence-results ${SAMPLE}/results/Tinycoder_T_0\n  $ eddy import turbulence-results ${SAMPLE}/results/Tinycoder_T_0 --json\n  (--model <name>: which model's results, where the folder holds several's; --templates <folder>: where\n  'eddy import turbulence' wrote them, when not ${DEFAULT_OUT})`
        )
        .action(
            async (dir: string, o: ReplayImportFlags & { rerunSeeds: number; strict?: boolean; json?: boolean }) => {
                const summary = await importTurbulenceResults(dir, { ...replayImportOptions(o), rerunSeeds: o.rerunSeeds, ...(o.strict ? { strict: true } : {}) });
                if (o.json) {
                    process.stdout.write(JSON.stringify(summary, null, 2) + "\n");
                    return;
                }
                for (const r of summary.runs)
                    print(
                        `run ${r.runId}: ${summary.model} t=${summary.temperature}, ${r.templates.length} template(s) × ${r.instances} instance(s) × ${r.rounds} round(s), ${r.responses} response(s)${r.missing ? `, ${r.missing} missing` : ""}${r.reruns ? `, ${r.reruns} published test(s) re-run` : ""}`
                    );
                print(`responses read as: ${Object.entries(summary.forms).map(([f, n]) => `${f} ${n}`).join(", ") || "none"}`);
                for (const s of summary.skipped) print(`skipped ${s.location}: ${s.reason}`);
                process.stdout.write(`next: eddy report ${summary.runs.map((r) => r.runId).join(" ")}\n`);
            }
        );
}
