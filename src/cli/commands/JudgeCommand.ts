import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { extractCode } from "../../extract/extractCode.js";
import { JudgePool } from "../../judge/JudgePool.js";
import { parseParamTuple } from "../../judge/parseParams.js";
import { loadTemplate } from "../../templates/loadTemplates.js";
import { EddyError, oneLine } from "../../util/errors.js";

interface JudgeOptions {
    template: string;
    params: string;
    code: string;
    raw?: boolean;
    json?: boolean;
    python?: string;
}

function readCode(where: string): string {
    try {
        return readFileSync(where === "-" ? 0 : where, "utf8");
    } catch (err) {
        throw new EddyError(`cannot read --code ${where === "-" ? "from stdin" : where}: ${oneLine(err)}`);
    }
}

/** `eddy judge`: judges one answer for one instance and prints the verdict. */
export function registerJudgeCommand(program: Command): void {
    program
        .command("judge")
        .description("Judge one answer (code or a raw model response) for one template instance in the isolated Python judge")
        .requiredOption("-t, --template <id>", "template id (see 'eddy templates list')")
        .requiredOption("-p, --params <json>", "the parameter tuple as a JSON array, in the template's parameter order")
        .requiredOption("-c, --code <file>", "file with the answer, or '-' for stdin; code is extracted from fences/prose first")
        .option("--raw", "judge the file as code exactly, without extracting it from a response")
        .option("--python <path>", "Python interpreter for the judge (default: $EDDY_PYTHON or python3)")
        .option("--json", "print the verdict as JSON (category, detail, ms, plus template, params, isolation)")
        .addHelpText(
            "after",
            "\nExamples:\n" +
                "  $ eddy judge --template list_every_kth --params '[2, 3]' --code answer.py\n" +
                "  $ cat response.md | eddy judge -t list_every_kth -p '[0, 1]' -c - --json\n" +
                "\nExit status is 0 whatever the verdict about the answer; 1 for bad input (unknown template, params,\n" +
                "unreadable file); 3 when the verdict is judge_error (the oracle or the harness failed, not the answer)."
        )
        .action(async (opts: JudgeOptions) => {
            const template = loadTemplate(opts.template);
            const bindings = parseParamTuple(template, opts.params);
            const text = readCode(opts.code);
            const code = opts.raw ? text : extractCode(text, template.function);
            const pool = await JudgePool.start(opts.python === undefined ? { workers: 1 } : { workers: 1, python: opts.python });
            try {
                const verdict = await pool.judge({ template, bindings, code });
                if (opts.json) {
                    const out = { category: verdict.category, detail: verdict.detail, ms: Math.round(verdict.ms * 10) / 10, template: template.id, params: template.params.map((p) => bindings[p.name]), isolation: pool.isolation.level };
                    process.stdout.write(JSON.stringify(out) + "\n");
                } else {
                    process.stdout.write(`${verdict.category}  ${verdict.detail}  (${verdict.ms.toFixed(0)} ms)\n`);
                }
                if (verdict.category === "judge_error") {
                    if (!opts.json) process.stderr.write(`eddy: the judge itself failed (not the answer's fault): ${verdict.detail}\n`);
                    process.exitCode = 3;
                }
            } finally {
                await pool.close();
            }
        });
}
