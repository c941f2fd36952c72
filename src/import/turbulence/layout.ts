import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { EddyError } from "../../util/errors.js";
import { isDir } from "../../util/files.js";

/** Something in a results or benchmark folder that could not be imported, and why. */
export interface Skipped {
    /** Where it is, relative to the folder given (Q3, Q1/m_results_2/Folder_7, …). */
    location: string;
    reason: string;
}

/** The files every Turbulence question folder has. */
export const QUESTION_FILES = ["question.txt.template", "solution.py.template", "tests.py.template", "gen_function_params.py"] as const;

/** One `Q<n>/` folder of a Turbulence benchmark. */
export interface QuestionFolder {
    n: number;
    dir: string;
    /** First line of question.txt.template: the question, `$0…$k` for the parameters. */
    question: string;
    /** The name Turbulence reads from the question: the first '…'-quoted word. */
    function: string;
    solutionTemplate: string;
    /** tests.py.template with its first line (the candidate-module import) rewritten. */
    testsTemplate: string;
    generatorSource: string;
}


/** `Q<n>` sub-folders of `dir`, by number. */
export function questionDirs(dir: string): { n: number; dir: string }[] {
    if (!isDir(dir)) throw new EddyError(`${dir} is not a folder`);
    return readdirSync(dir)
        .map((name) => ({ name, m: /^Q(\d+)$/.exec(name) }))
        .filter((x) => x.m && isDir(path.join(dir, x.name)))
        .map((x) => ({ n: Number(x.m![1]), dir: path.join(dir, x.name) }))
        .sort((a, b) => a.n - b.n);
}

// Turbulence's tests import the answer as Q<n>.<model>_results_<run>.Folder_<c>.generated_answer.
const CANDIDATE_IMPORT = /^\s*from\s+[\w.$]*generated_answer\s+import\s+\$\d+\s*$/;
const REWRITTEN_IMPORT = "# eddy: the candidate-module import of Turbulence was here; the oracle binds the function";

/**
 * Reads and checks the question folders of a Turbulence benchmark: `Benchmark/` of the v1
 * repository, or a model folder (`<Model>_T_<t>/`) whose `Q<n>/` folders hold the question files
 * beside the results. A question folder out of format is skipped with its reason (`skipped`);
 * with `strict`, the first one stops the import.
 */
export function readQuestionFolders(root: string, only?: number[], strict = false): { folders: QuestionFolder[]; skipped: Skipped[] } {
    const all = questionDirs(root);
    const found = all.filter((q) => QUESTION_FILES.some((f) => existsSync(path.join(q.dir, f))));
    if (found.length === 0)
        throw new EddyError(
            `${root} is not in the Turbulence layout: no Q<n>/ folders with question.txt.template` +
                (all.length ? ` (its Q<n>/ folders hold no question files: for published results, pass the benchmark folder and --results ${root})` : "")
        );
    for (const n of only ?? []) if (!found.some((q) => q.n === n)) throw new EddyError(`${root} has no question folder Q${n}`);
    const skipped: Skipped[] = [];
    const folders: QuestionFolder[] = [];
    for (const { n, dir } of only?.length ? found.filter((q) => only.includes(q.n)) : found) {
        try {
            folders.push(readQuestionFolder(root, n, dir));
        } catch (err) {
            if (strict || !(err instanceof EddyError)) throw err;
            skipped.push({ location: `Q${n}`, reason: err.message });
        }
    }
    return { folders, skipped };
}

function readQuestionFolder(root: string, n: number, dir: string): QuestionFolder {
    const where = `${path.basename(root)}/Q${n}`;
    const missing = QUESTION_FILES.filter((f) => !existsSync(path.join(dir, f)));
    if (missing.length) throw new EddyError(`${where} is not a Turbulence question folder: ${missing.join(", ")} ${missing.length > 1 ? "are" : "is"} missing`);
    const read = (f: string) => readFileSync(path.join(dir, f), "utf8");
    const question = read("question.txt.template").split(/\r?\n/)[0]!.trim();
    const fn = /'([A-Za-z_][A-Za-z0-9_]*)'/.exec(question)?.[1];
    if (!fn) throw new EddyError(`${where}/question.txt.template: no function name in single quotes on its first line (Turbulence reads it from there)`);
    const tests = read("tests.py.template").split(/\r?\n/);
    if (!CANDIDATE_IMPORT.test(tests[0] ?? ""))
        throw new EddyError(`${where}/tests.py.template: the first line must import the candidate module (from Q${n}.$k_results_$k.Folder_$k.generated_answer import $k), found ${JSON.stringify((tests[0] ?? "").slice(0, 80))}`);
    tests[0] = REWRITTEN_IMPORT;
    return { n, dir, question, function: fn, solutionTemplate: read("solution.py.template"), testsTemplate: tests.join("\n"), generatorSource: read("gen_function_params.py") };
}

/** Highest `$i` index used in a template text, or -1. */
export function maxPlaceholder(text: string): number {
    let max = -1;
    for (const m of text.matchAll(/\$(\d+)/g)) max = Math.max(max, Number(m[1]));
    return max;
}
