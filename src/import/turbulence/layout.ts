import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { EddyError } from "../../util/errors.js";

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

const isDir = (p: string): boolean => {
    try {
        return statSync(p).isDirectory();
    } catch {
        return false;
    }
};

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

/** Reads and checks the question folders of a Turbulence benchmark; one clear error for anything out of format. */
export function readQuestionFolders(root: string, only?: number[]): QuestionFolder[] {
    const found = questionDirs(root).filter((q) => existsSync(path.join(q.dir, "question.txt.template")));
    if (found.length === 0) throw new EddyError(`${root} is not in the Turbulence layout: no Q<n>/ folders with question.txt.template`);
    const chosen = only?.length ? found.filter((q) => only.includes(q.n)) : found;
    for (const n of only ?? []) if (!found.some((q) => q.n === n)) throw new EddyError(`${root} has no question folder Q${n}`);
    return chosen.map(({ n, dir }) => {
        const where = `${path.basename(root)}/Q${n}`;
        for (const f of QUESTION_FILES) if (!existsSync(path.join(dir, f))) throw new EddyError(`${where} is not a Turbulence question folder: ${f} is missing`);
        const read = (f: string) => readFileSync(path.join(dir, f), "utf8");
        const question = read("question.txt.template").split(/\r?\n/)[0]!.trim();
        const fn = /'([A-Za-z_][A-Za-z0-9_]*)'/.exec(question)?.[1];
        if (!fn) throw new EddyError(`${where}/question.txt.template: no function name in single quotes on its first line (Turbulence reads it from there)`);
        const tests = read("tests.py.template").split(/\r?\n/);
        if (!CANDIDATE_IMPORT.test(tests[0] ?? ""))
            throw new EddyError(`${where}/tests.py.template: the first line must import the candidate module (from Q${n}.$k_results_$k.Folder_$k.generated_answer import $k), found ${JSON.stringify((tests[0] ?? "").slice(0, 80))}`);
        tests[0] = REWRITTEN_IMPORT;
        return { n, dir, question, function: fn, solutionTemplate: read("solution.py.template"), testsTemplate: tests.join("\n"), generatorSource: read("gen_function_params.py") };
    });
}

/** Highest `$i` index used in a template text, or -1. */
export function maxPlaceholder(text: string): number {
    let max = -1;
    for (const m of text.matchAll(/\$(\d+)/g)) max = Math.max(max, Number(m[1]));
    return max;
}
