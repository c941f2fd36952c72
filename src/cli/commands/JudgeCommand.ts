import { note, warn } from "../messages.js";
import { open } from "node:fs/promises";
import { DEFAULT_LANGUAGE, LANGUAGES, parseLanguage } from "../../languages/languages.js";
import type { Command } from "commander";
import { extractCode } from "../../extract/extractCode.js";
import { JudgePool } from "../../judge/JudgePool.js";
import { parseParamTuple } from "../../judge/parseParams.js";
import { loadTemplate } from "../../templates/loadTemplates.js";
import { neighbourhoodShortfall, sampleInstances } from "../../templates/instances.js";
import type { Template } from "../../templates/types.js";
import type { ParamValue } from "../../vocabulary.js";
import { EddyError, oneLine } from "../../util/errors.js";
import { safeTerminalLine } from "../../util/safeText.js";
import { templateLibrary } from "../templateLibrary.js";

interface JudgeOptions {
    template: string;
    params?: string;
    code: string;
    raw?: boolean;
    language?: string;
    json?: boolean;
    python?: string;
    allowUnsandboxed?: boolean;
}

/** Most bytes `--code` reads: a response far larger than any the judge accepts (256 KB of code). */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/** Deepest nesting `--params` may have (template parameters are at most lists of lists). */
const MAX_PARAMS_DEPTH = 32;

/**
 * Reads a file or stdin with ordinary async reads (a slow or non-blocking pipe just waits),
 * refusing more than MAX_RESPONSE_BYTES (so `/dev/zero` is a clear error, not an abort).
 */
async function readCode(where: string): Promise<string> {
    const label = where === "-" ? "from stdin" : where;
    try {
        const chunks: Buffer[] = [];
        let total = 0;
        const tooBig = () => new EddyError(`cannot read --code ${label}: more than ${MAX_RESPONSE_BYTES / (1024 * 1024)} MB`);
        if (where === "-") {
            for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
                total += chunk.length;
                if (total > MAX_RESPONSE_BYTES) throw tooBig();
                chunks.push(chunk);
            }
        } else {
            const fh = await open(where, "r");
            try {
                for (;;) {
                    const buf = Buffer.alloc(1 << 16);
                    const { bytesRead } = await fh.read(buf, 0, buf.length, null);
                    if (bytesRead === 0) break;
                    total += bytesRead;
                    if (total > MAX_RESPONSE_BYTES) throw tooBig();
                    chunks.push(buf.subarray(0, bytesRead));
                }
            } finally {
                await fh.close();
            }
        }
        return Buffer.concat(chunks).toString("utf8");
    } catch (err) {
        if (err instanceof EddyError) throw err;
        const code = (err as NodeJS.ErrnoException).code;
        // Said in words, with what to do (the help's example names a file the reader writes first).
        if (code === "ENOENT") throw new EddyError(`cannot read --code ${label}: there is no such file (write the answer to it first, or give '-' and pipe the answer in)`, 66);
        if (code === "EACCES") throw new EddyError(`cannot read --code ${label}: no permission to read it`, 77);
        if (code === "EISDIR") throw new EddyError(`cannot read --code ${label}: it is a folder, not a file`, 66);
        throw new EddyError(`cannot read --code ${label}: ${oneLine(err)}`);
    }
}

/** Refuses `--params` nested deeper than any template takes, before JSON.parse recurses into it. */
function checkParamsDepth(text: string): void {
    let depth = 0;
    let inString = false;
    for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (inString) {
            if (c === "\\") i++;
            else if (c === '"') inString = false;
        } else if (c === '"') inString = true;
        else if (c === "[" || c === "{") {
            if (++depth > MAX_PARAMS_DEPTH) throw new EddyError(`--params is nested more than ${MAX_PARAMS_DEPTH} deep`, 2);
        } else if (c === "]" || c === "}") depth--;
    }
}

/** The bindings of a template's one instance (an imported problem's); without --params, a template with more is an error naming how many. */
function onlyInstance(t: Template): Record<string, ParamValue> {
    const n = neighbourhoodShortfall(t, 2);
    if (n !== 1)
        throw new EddyError(`--params is needed: template ${t.id} has ${n === undefined ? "more than one instance" : `${n} instances`} (give the tuple in parameter order: ${t.params.map((p) => p.name).join(", ")})`, 2);
    return sampleInstances(t, 1, 0)[0]!.bindings;
}

/** `eddy judge`: judges one answer for one instance and prints the verdict. */
export function registerJudgeCommand(program: Command): void {
    program
        .command("judge")
        .description("Judge one answer (code or a raw model response) for one template instance in the isolated Python judge")
        .requiredOption("-t, --template <id>", "template id (see 'eddy templates list')")
        .option("-p, --params <json>", "the parameter tuple as a JSON array, in the template's parameter order (optional for a template with one instance, as an imported problem)")
        .requiredOption("-c, --code <file>", "file with the answer, or '-' for stdin; code is extracted from fences/prose first")
        .option("--raw", "judge the file as code exactly, without extracting it from a response")
        .option("--language <lang>", `the answer's language: ${LANGUAGES.join(", ")} (default ${DEFAULT_LANGUAGE})`)
        .option("--python <path>", "Python interpreter for the judge (default: $EDDY_PYTHON, else /usr/bin/python3 when 3.11+, else python3 on PATH)")
        .option("--allow-unsandboxed", "judge even where no sandbox is possible (the answer could read your files); also EDDY_ALLOW_UNSANDBOXED=1")
        .option("--json", "print the verdict as JSON (category, detail, ms, plus template, params, isolation)")
        .addHelpText(
            "after",
            "\nExamples:\n" +
                "  $ eddy judge --template list_every_kth --params '[2, 3]' --code answer.py\n" +
                "  $ cat response.md | eddy judge -t list_every_kth -p '[0, 1]' -c - --json\n" +
                "\nExit status is 0 whatever the verdict about the answer; 1 or 2 for bad input (unknown template,\n" +
                "params, unreadable file); 3 when the verdict is judge_error (the oracle or the harness failed, not\n" +
                "the answer)."
        )
        .action(async (opts: JudgeOptions) => {
            try {
                await judgeOne(opts);
            } catch (err) {
                // Whatever the input, one line: a bug shows as a message, never as a stack trace.
                if (err instanceof EddyError) throw err;
                throw new EddyError(`judge failed: ${safeTerminalLine(oneLine(err))}`, 70);
            }
        });
}

async function judgeOne(opts: JudgeOptions): Promise<void> {
    const template = loadTemplate(templateLibrary(), opts.template);
    const bindings = opts.params === undefined ? onlyInstance(template) : (checkParamsDepth(opts.params), parseParamTuple(template, opts.params));
    const text = await readCode(opts.code);
    const language = opts.language === undefined ? DEFAULT_LANGUAGE : parseLanguage(opts.language);
    const code = opts.raw ? text : extractCode(text, template.function, language);
    const pool = await JudgePool.start({ workers: 1, language, allowUnsandboxed: opts.allowUnsandboxed === true, ...(opts.python === undefined ? {} : { python: opts.python }) });
    try {
        const verdict = await pool.judge({ template, bindings, code, language, shrink: true });
        if (opts.json) {
            // JSON escapes control characters itself.
            const out = { category: verdict.category, detail: verdict.detail, ms: Math.round(verdict.ms * 10) / 10, template: template.id, params: template.params.map((p) => bindings[p.name]), isolation: pool.isolation.level, sandboxed: pool.isolation.sandboxed, ...(verdict.shrunk ? { shrunk: verdict.shrunk } : {}) };
            process.stdout.write(JSON.stringify(out) + "\n");
        } else {
            // The detail quotes the answer's own output and exceptions: never raw escape codes on a terminal.
            process.stdout.write(`${verdict.category}  ${safeTerminalLine(verdict.detail)}  (${verdict.ms.toFixed(0)} ms)\n`);
            if (verdict.shrunk?.steps === 0) process.stdout.write("the failing input is already the smallest that fails\n");
            else if (verdict.shrunk) process.stdout.write(`smallest failing input: ${safeTerminalLine(verdict.shrunk.call)}: model solution gives ${safeTerminalLine(verdict.shrunk.expected)}, answer gives ${safeTerminalLine(verdict.shrunk.actual)}\n`);
            if (!pool.isolation.sandboxed) warn("this answer ran WITHOUT a sandbox (see 'eddy doctor')");
        }
        if (verdict.category === "judge_error") {
            if (!opts.json) note(`the judge itself failed (not the answer's fault): ${verdict.detail}`);
            process.exitCode = 3;
        }
    } finally {
        await pool.close();
    }
}
