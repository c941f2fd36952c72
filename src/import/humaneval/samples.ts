import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { EddyError, oneLine } from "../../util/errors.js";
import { jsonlObjects, readJsonlText } from "./problems.js";

/** One sample as EvalPlus reads it: the whole solution, or a completion to append to the prompt. */
export interface EvalPlusSample {
    taskId: string;
    /** 0-based position among the task's samples (EvalPlus's completion_id). */
    n: number;
    solution?: string;
    completion?: string;
    location: string;
}

/** EvalPlus's verdict of one sample (an entry of `<samples>.eval_results.json`'s eval[task_id]). */
export interface EvalPlusStatus {
    base: string;
    plus: string | null;
    baseFailTests: unknown[];
    plusFailTests: unknown[];
    /** The failing inputs as the file writes them (JSON text: integers of any size, NaN and floats exactly as Python wrote them). */
    baseFailRaw?: string[];
    plusFailRaw?: string[];
}

/** An EvalPlus results file: the statuses, and when and against which dataset (its md5) EvalPlus judged. */
export interface EvalPlusResults {
    statuses: Map<string, EvalPlusStatus[]>;
    /** `date` ("YYYY-MM-DD HH:MM", when EvalPlus wrote it) and `hash` (the dataset's md5), when present. */
    date: string | null;
    hash: string | null;
}

/**
 * Samples in EvalPlus's layouts: a JSONL of `{task_id, solution | completion}` (samples in file
 * order), or a folder of `<task_id with / as _>/<n>.py` (EvalPlus's codegen output), where
 * `folderTask` maps a folder name back to its task id.
 */
export function readEvalPlusSamples(source: string, folderTask: (name: string) => string | undefined): EvalPlusSample[] {
    if (!existsSync(source)) throw new EddyError(`no such file or folder: ${source}`);
    const counts = new Map<string, number>();
    const next = (taskId: string): number => {
        const n = counts.get(taskId) ?? 0;
        counts.set(taskId, n + 1);
        return n;
    };
    if (statSync(source).isDirectory()) {
        const out: EvalPlusSample[] = [];
        for (const dir of readdirSync(source, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort()) {
            const taskId = folderTask(dir);
            if (taskId === undefined) throw new EddyError(`${path.join(source, dir)}: no imported problem has this task id (folders are named as EvalPlus names them, task_id with '/' as '_')`);
            const files = readdirSync(path.join(source, dir)).filter((f) => /^\d+\.py$/.test(f)).sort((a, b) => parseInt(a) - parseInt(b));
            for (const f of files) out.push({ taskId, n: next(taskId), solution: readFileSync(path.join(source, dir, f), "utf8"), location: path.join(source, dir, f) });
        }
        if (out.length === 0) throw new EddyError(`${source}: no samples (expected <task>/<n>.py files)`);
        return out;
    }
    const rows = jsonlObjects(source, readJsonlText(source));
    if (rows.length === 0) throw new EddyError(`${source}: no samples (expected one {task_id, solution | completion} per line)`);
    return rows.map(({ line, value: v }) => {
        if (typeof v.task_id !== "string") throw new EddyError(`${source}:${line}: missing 'task_id'`);
        const solution = typeof v.solution === "string" ? v.solution : undefined;
        const completion = typeof v.completion === "string" ? v.completion : undefined;
        if (solution === undefined && completion === undefined) throw new EddyError(`${source}:${line}: a sample needs a text 'solution' or 'completion'`);
        return { taskId: v.task_id, n: next(v.task_id), ...(solution !== undefined ? { solution } : { completion: completion! }), location: `${source}:${line}` };
    });
}

/** Where EvalPlus writes the results of `source`: `<x>.eval_results.json` or `<x>_eval_results.json` beside `<x>.jsonl`, `eval_results.json` in a folder. */
export function evalResultsPath(source: string): string | undefined {
    const candidates = statSync(source).isDirectory()
        ? [path.join(source, "eval_results.json")]
        : [source.replace(/\.jsonl(\.gz)?$/, ".eval_results.json"), source.replace(/\.jsonl(\.gz)?$/, "_eval_results.json")];
    return candidates.find((c) => c !== source && existsSync(c));
}

/** An EvalPlus results file whole: statuses, date and dataset hash (JSON as Python's json writes it: NaN and Infinity allowed). */
export function readEvalResultsFile(file: string): EvalPlusResults {
    let doc: unknown;
    const raw = new WeakMap<object, string[]>();
    try {
        doc = parseJsonKeepingRaw(readFileSync(file, "utf8"), raw);
    } catch (err) {
        throw new EddyError(`${file}: not JSON (${oneLine(err)})`);
    }
    const ev = (doc as { eval?: unknown } | null)?.eval;
    if (!ev || typeof ev !== "object" || Array.isArray(ev)) throw new EddyError(`${file}: no 'eval' mapping of task ids (EvalPlus's eval_results.json)`);
    const out = new Map<string, EvalPlusStatus[]>();
    for (const [taskId, list] of Object.entries(ev as Record<string, unknown>)) {
        if (!Array.isArray(list)) throw new EddyError(`${file}: eval['${taskId}'] is not a list of results (an older EvalPlus results file without base_status?)`);
        out.set(
            taskId,
            list.map((r: Record<string, unknown>, i) => {
                if (typeof r?.base_status !== "string") throw new EddyError(`${file}: eval['${taskId}'][${i}] has no base_status`);
                const tests = (v: unknown) => (Array.isArray(v) ? v : []);
                return {
                    base: r.base_status,
                    plus: typeof r.plus_status === "string" ? r.plus_status : null,
                    baseFailTests: tests(r.base_fail_tests),
                    plusFailTests: tests(r.plus_fail_tests),
                    baseFailRaw: Array.isArray(r.base_fail_tests) ? (raw.get(r.base_fail_tests) ?? []) : [],
                    plusFailRaw: Array.isArray(r.plus_fail_tests) ? (raw.get(r.plus_fail_tests) ?? []) : []
                };
            })
        );
    }
    const text = (k: string) => {
        const v = (doc as Record<string, unknown>)[k];
        return typeof v === "string" ? v : null;
    };
    return { statuses: out, date: text("date"), hash: text("hash") };
}

/**
 * JSON as Python's json module writes it (NaN, Infinity, -Infinity allowed), with the source text
 * of every array's elements kept in `raw` (keyed by the array): what EvalPlus wrote of an input
 * (integers beyond 2^53 included) goes on to Python as written.
 */
export function parseJsonKeepingRaw(text: string, raw: WeakMap<object, string[]>): unknown {
    const NUMBER = /-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
    let i = 0;
    const fail = (what: string): never => {
        throw new Error(`${what} at position ${i}`);
    };
    const ws = () => {
        while (i < text.length) {
            const c = text.charCodeAt(i);
            if (c === 32 || c === 10 || c === 13 || c === 9) i++;
            else break;
        }
    };
    const value = (): unknown => {
        ws();
        const c = text[i];
        if (c === "{") {
            i++;
            const obj: Record<string, unknown> = {};
            ws();
            if (text[i] === "}") {
                i++;
                return obj;
            }
            for (;;) {
                ws();
                if (text[i] !== '"') fail("expected a key");
                const k = str();
                ws();
                if (text[i] !== ":") fail("expected ':'");
                i++;
                // As JSON.parse does: "__proto__" is a key like any other, never the object's prototype.
                Object.defineProperty(obj, k, { value: value(), enumerable: true, writable: true, configurable: true });
                ws();
                if (text[i] === ",") i++;
                else if (text[i] === "}") {
                    i++;
                    return obj;
                } else fail("expected ',' or '}'");
            }
        }
        if (c === "[") {
            i++;
            const arr: unknown[] = [];
            const texts: string[] = [];
            ws();
            if (text[i] === "]") {
                i++;
                raw.set(arr, texts);
                return arr;
            }
            for (;;) {
                ws();
                const start = i;
                arr.push(value());
                texts.push(text.slice(start, i));
                ws();
                if (text[i] === ",") i++;
                else if (text[i] === "]") {
                    i++;
                    raw.set(arr, texts);
                    return arr;
                } else fail("expected ',' or ']'");
            }
        }
        if (c === '"') return str();
        for (const [word, v] of [["true", true], ["false", false], ["null", null], ["NaN", NaN], ["Infinity", Infinity], ["-Infinity", -Infinity]] as const)
            if (text.startsWith(word, i)) {
                i += word.length;
                return v;
            }
        NUMBER.lastIndex = i;
        const m = NUMBER.exec(text);
        if (!m || m[0] === "") fail("unexpected character");
        i += m![0].length;
        return Number(m![0]);
    };
    const str = (): string => {
        const start = i;
        i++;
        let escaped = false;
        while (i < text.length) {
            const c = text[i]!;
            if (c === "\\") {
                escaped = true;
                i += 2;
                continue;
            }
            if (c === '"') break;
            i++;
        }
        if (i >= text.length) fail("unterminated string");
        i++;
        const body = text.slice(start, i);
        return escaped ? (JSON.parse(body) as string) : body.slice(1, -1);
    };
    const v = value();
    ws();
    if (i !== text.length) fail("unexpected text after the value");
    return v;
}
