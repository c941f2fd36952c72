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

/** Statuses by task id and sample position, from an EvalPlus results file. */
export function readEvalResults(file: string): Map<string, EvalPlusStatus[]> {
    let doc: unknown;
    try {
        doc = JSON.parse(readFileSync(file, "utf8"));
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
                return {
                    base: r.base_status,
                    plus: typeof r.plus_status === "string" ? r.plus_status : null,
                    baseFailTests: Array.isArray(r.base_fail_tests) ? r.base_fail_tests : [],
                    plusFailTests: Array.isArray(r.plus_fail_tests) ? r.plus_fail_tests : []
                };
            })
        );
    }
    return out;
}
