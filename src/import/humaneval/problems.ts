import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { EddyError, oneLine } from "../../util/errors.js";

/**
 * One problem in the HumanEval layout (openai/human-eval's HumanEval.jsonl.gz), with the fields
 * EvalPlus's HumanEvalPlus.jsonl adds (base_input, plus_input, atol, contract) where present.
 */
export interface HumanEvalProblem {
    task_id: string;
    /** Function signature and docstring: the question, completion style. */
    prompt: string;
    /** The body that completes the prompt into the model solution. */
    canonical_solution: string;
    /** Python source defining check(candidate) (HumanEval); MBPP+'s own test code is not used. */
    test?: string;
    entry_point: string;
    base_input?: unknown[][];
    plus_input?: unknown[][];
    atol?: number;
    contract?: string;
    /** The problem's line as written: the oracle reads its inputs from it with Python's json (integers beyond 2^53 stay exact). */
    line: string;
}

/** The benchmark layouts eddy reads: HumanEval/HumanEval+ and EvalPlus's MBPP+. */
export type Dataset = "humaneval" | "mbpp";

const TEXT_FIELDS = ["task_id", "prompt", "canonical_solution", "entry_point"] as const;

/** The text of a .jsonl or .jsonl.gz file (gzip recognised by its magic bytes, whatever the name). */
export function readJsonlText(file: string): string {
    let bytes: Buffer;
    try {
        bytes = readFileSync(file);
    } catch (err) {
        throw new EddyError(`cannot read ${file}: ${oneLine(err)}`);
    }
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
        try {
            bytes = gunzipSync(bytes);
        } catch (err) {
            throw new EddyError(`${file}: not a readable gzip file (${oneLine(err)})`);
        }
    }
    return bytes.toString("utf8");
}

/**
 * JSON as Python's json module writes it: NaN, Infinity and -Infinity (EvalPlus's releases hold
 * them among their inputs) become null outside strings, for the checks made here; the line itself
 * goes to Python as written.
 */
export function parsePythonJson(text: string): unknown {
    try {
        return JSON.parse(text);
    } catch (err) {
        let out = "";
        let inString = false;
        for (let i = 0; i < text.length; i++) {
            const c = text[i]!;
            if (inString) {
                out += c;
                if (c === "\\") out += text[++i] ?? "";
                else if (c === '"') inString = false;
                continue;
            }
            if (c === '"') inString = true;
            const word = /^(-?Infinity|NaN)/.exec(text.slice(i, i + 9));
            if (!inString && word) {
                out += "null";
                i += word[0].length - 1;
                continue;
            }
            out += c;
        }
        if (out === text) throw err;
        return JSON.parse(out);
    }
}

/** The JSON objects of a JSONL text, one per non-blank line; a line that is not a JSON object is an error naming it. */
export function jsonlObjects(file: string, text: string): { line: number; value: Record<string, unknown>; text: string }[] {
    const out: { line: number; value: Record<string, unknown>; text: string }[] = [];
    text.split("\n").forEach((raw, i) => {
        if (raw.trim() === "") return;
        let v: unknown;
        try {
            v = parsePythonJson(raw);
        } catch (err) {
            throw new EddyError(`${file}:${i + 1}: not JSON (${oneLine(err)})`);
        }
        if (!v || typeof v !== "object" || Array.isArray(v)) throw new EddyError(`${file}:${i + 1}: expected a JSON object per line`);
        out.push({ line: i + 1, value: v as Record<string, unknown>, text: raw });
    });
    return out;
}

function inputList(file: string, line: number, name: string, v: unknown): unknown[][] | undefined {
    if (v === undefined || v === null) return undefined;
    // An empty mapping where a list belongs (seen in EvalPlus's files): EvalPlus iterates it as no inputs.
    if (typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0) return [];
    if (!Array.isArray(v) || !v.every((x) => Array.isArray(x)))
        throw new EddyError(`${file}:${line}: '${name}' must be a list of argument lists, e.g. [[1, 2], [3, 4]]`);
    return v as unknown[][];
}

/**
 * Reads and checks every problem of a HumanEval-format file (or, `dataset` "mbpp", of EvalPlus's
 * MbppPlus.jsonl: task_id, prompt, canonical_solution, entry_point, base_input, plus_input, atol,
 * beside fields eddy does not use: code, test_list, test, assertion, …); any problem out of format
 * fails the whole file.
 */
export function readHumanEvalProblems(file: string, dataset: Dataset = "humaneval"): HumanEvalProblem[] {
    const rows = jsonlObjects(file, readJsonlText(file));
    const needs = dataset === "mbpp" ? [...TEXT_FIELDS, "base_input", "plus_input"] : [...TEXT_FIELDS, "test"];
    if (rows.length === 0) throw new EddyError(`${file}: no problems (expected one JSON object per line with ${needs.join(", ")})`);
    const seen = new Set<string>();
    return rows.map(({ line, value: v, text }) => {
        for (const f of dataset === "mbpp" ? TEXT_FIELDS : [...TEXT_FIELDS, "test" as const])
            if (typeof v[f] !== "string" || (f !== "canonical_solution" && (v[f] as string).trim() === ""))
                throw new EddyError(`${file}:${line}: missing or non-text field '${f}' (${dataset === "mbpp" ? "an MBPP+" : "a HumanEval"} problem has ${needs.join(", ")})`);
        const id = v.task_id as string;
        if (seen.has(id)) throw new EddyError(`${file}:${line}: task_id '${id}' appears twice`);
        seen.add(id);
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(v.entry_point as string)) throw new EddyError(`${file}:${line}: entry_point '${String(v.entry_point)}' is not a Python identifier`);
        const base = inputList(file, line, "base_input", v.base_input);
        const plus = inputList(file, line, "plus_input", v.plus_input);
        const evalplus = base !== undefined;
        if (dataset === "mbpp" && (base === undefined || plus === undefined))
            throw new EddyError(`${file}:${line} (${id}): an MBPP+ problem needs 'base_input' and 'plus_input' (is this MbppPlus.jsonl?)`);
        // EvalPlus judges by base_input/plus_input and never runs 'test'; without them check() is the test.
        if (dataset === "humaneval" && !evalplus && !/\bdef\s+check\s*\(/.test(v.test as string)) throw new EddyError(`${file}:${line} (${id}): 'test' defines no check(candidate) function`);
        if (v.atol !== undefined && v.atol !== null && (typeof v.atol !== "number" || !(v.atol >= 0))) throw new EddyError(`${file}:${line} (${id}): 'atol' must be a non-negative number`);
        return {
            task_id: id,
            prompt: v.prompt as string,
            canonical_solution: v.canonical_solution as string,
            ...(typeof v.test === "string" ? { test: v.test } : {}),
            entry_point: v.entry_point as string,
            ...(base ? { base_input: base } : {}),
            ...(plus ? { plus_input: plus } : {}),
            ...(typeof v.atol === "number" ? { atol: v.atol } : {}),
            ...(typeof v.contract === "string" ? { contract: v.contract } : {}),
            line: text
        };
    });
}

/** The eddy template id of a task id: `HumanEval/12` → `humaneval_12`. */
export function templateIdForTask(taskId: string): string {
    return taskId.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
}
