import { writeFileSync } from "node:fs";
import path from "node:path";
import { JudgePool } from "../../judge/JudgePool.js";
import { validateTemplate } from "../../judge/validateTemplate.js";
import { loadTemplateFile } from "../../templates/loadTemplates.js";
import { sampleInstances } from "../../templates/instances.js";
import { RETURN_TYPES } from "../../templates/taxonomy.js";
import type { Template } from "../../templates/types.js";
import { EddyError, oneLine } from "../../util/errors.js";
import { guessGroup, guessSubgroup } from "../turbulence/taxonomyGuess.js";
import { moveInto, stagingFolder } from "../validatedWrite.js";
import { genericMutants, oracleSource, type GenericMutant } from "./oracleSource.js";
import { probeProblems, type ProblemFacts } from "./probe.js";
import { readHumanEvalProblems, templateIdForTask, type HumanEvalProblem } from "./problems.js";

/** The summary file the import writes beside templates/ and oracles/. */
export const HUMANEVAL_SUMMARY = "humaneval-import.json";
/** eddy templates validate asks for this many mutants; fewer is a warning here. */
const MIN_MUTANTS = 3;

export interface ImportedProblem {
    taskId: string;
    id: string;
    function: string;
    arity: number;
    returns: string | null;
    /** Differential inputs kept as fixed tests (the calls check() makes are fixed tests too). */
    fixedTests: { base: number; plus: number };
    atol: number;
    mutants: string[];
    warnings: string[];
}

export interface HumanEvalImportSummary {
    source: string;
    out: string;
    templates: ImportedProblem[];
}

export interface HumanEvalImportOptions {
    out: string;
    workers?: number;
    python?: string;
    onLog?: (line: string) => void;
}

/**
 * Turns a HumanEval-format problems file into one eddy template (a neighbourhood of one: its only
 * parameter, task_id, takes one value) and one oracle per problem. Everything is written and
 * validated in a staging folder first; a problem out of format or failing validation leaves nothing.
 */
export async function importHumanEval(file: string, opts: HumanEvalImportOptions): Promise<HumanEvalImportSummary> {
    const problems = readHumanEvalProblems(file);
    const ids = new Map<string, string>();
    for (const p of problems) {
        const id = templateIdForTask(p.task_id);
        if (!id) throw new EddyError(`${file}: task_id '${p.task_id}' gives no usable template id`);
        const other = ids.get(id);
        if (other !== undefined) throw new EddyError(`${file}: task_ids '${other}' and '${p.task_id}' both become template id '${id}'`);
        ids.set(id, p.task_id);
        const stray = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/.exec(p.prompt);
        if (stray) throw new EddyError(`${file} (${p.task_id}): the prompt holds '${stray[0]}', which eddy reads as a template placeholder`);
    }
    const facts = probeProblems(problems, opts.python);
    facts.forEach((f, i) => {
        if (f.arity < 1) throw new EddyError(`${file} (${problems[i]!.task_id}): ${problems[i]!.entry_point} takes no arguments; eddy asks for at least one`);
    });
    const out = path.resolve(opts.out);
    const stage = stagingFolder(out);
    const log = opts.onLog ?? (() => {});
    let pool: JudgePool | undefined;
    try {
        pool = await JudgePool.start({ ...(opts.workers ? { workers: opts.workers } : {}), ...(opts.python ? { python: opts.python } : {}) });
        const results: ImportedProblem[] = [];
        for (const [i, p] of problems.entries()) {
            const r = await importOne(pool, p, facts[i]!, stage.templates, stage.oracles);
            for (const w of r.warnings) log(`warning: ${r.id} (${r.taskId}): ${w}`);
            results.push(r);
        }
        const summary: HumanEvalImportSummary = { source: path.resolve(file), out, templates: results };
        writeFileSync(path.join(stage.tmp, HUMANEVAL_SUMMARY), JSON.stringify(summary, null, 2) + "\n");
        await pool.close();
        pool = undefined;
        moveInto(stage.tmp, out, results.map((r) => r.id), HUMANEVAL_SUMMARY);
        return summary;
    } finally {
        await pool?.close();
        stage.dispose();
    }
}

function returnsOf(f: ProblemFacts): string | null {
    const types = new Set(f.returns.map((t) => (t === "NoneType" ? "none" : t)));
    if (types.has("matrix") && types.has("list")) types.delete("matrix");
    const [only] = [...types];
    return types.size === 1 && (RETURN_TYPES as readonly string[]).includes(only!) ? only! : null;
}

function yamlText(p: HumanEvalProblem, id: string, f: ProblemFacts): string {
    const returns = returnsOf(f);
    const group = guessGroup(p.prompt);
    const lines = [
        `# Imported from ${JSON.stringify(p.task_id)} by 'eddy import humaneval'.`,
        `# A neighbourhood of one: the only parameter, task_id, takes one value (the problem as published).`,
        `id: ${id}`,
        `function: ${p.entry_point}`,
        `arity: ${f.arity}`,
        `group: ${group}`,
        `subgroups: [${guessSubgroup(group, p.prompt)}]`,
        ...(returns ? [`returns: ${returns}`] : []),
        `question: ${JSON.stringify(p.prompt)}`,
        `ambiguity: ${JSON.stringify(`Imported unchanged from ${p.task_id}: any ambiguity of the original docstring remains; its check() and canonical solution decide.`)}`,
        `params:`,
        `  task_id: {choice: [${JSON.stringify(p.task_id)}]}`,
        `edge:`,
        `  - [${JSON.stringify(p.task_id)}]`,
        // The differential inputs are fixed tests; one random input repeats one of them.
        `random_inputs: 1`
    ];
    return lines.join("\n") + "\n";
}

function writeFiles(p: HumanEvalProblem, id: string, f: ProblemFacts, mutants: GenericMutant[], templatesDir: string, oraclesDir: string): Template {
    const file = path.join(templatesDir, `${id}.yaml`);
    writeFileSync(file, yamlText(p, id, f));
    writeFileSync(path.join(oraclesDir, `${id}.py`), oracleSource(p, f.arity, mutants));
    return loadTemplateFile(file, oraclesDir);
}

async function importOne(pool: JudgePool, p: HumanEvalProblem, f: ProblemFacts, templatesDir: string, oraclesDir: string): Promise<ImportedProblem> {
    const id = templateIdForTask(p.task_id);
    const warnings: string[] = [];
    const candidates = genericMutants(f.arity);
    // First pass: every generic mutant; keep those the problem's tests reject.
    let t = writeFiles(p, id, f, candidates, templatesDir, oraclesDir);
    const first = await validateTemplate(pool, t, sampleInstances(t, 1, 0));
    const failure = first.solutionFailures[0];
    if (failure) throw new EddyError(`${p.task_id}: the canonical solution does not pass its own tests in eddy's judge: ${failure.verdict.category}: ${oneLine(failure.verdict.detail)}`);
    const killed = candidates.filter((m) => first.mutants.some((r) => r.name === m.name && r.killed));
    if (killed.length < MIN_MUTANTS) warnings.push(`only ${killed.length} generic mutant(s) rejected by the problem's tests ('eddy templates validate' asks for ${MIN_MUTANTS})`);
    // Second pass: the files as shipped must validate.
    t = writeFiles(p, id, f, killed, templatesDir, oraclesDir);
    const final = await validateTemplate(pool, t, sampleInstances(t, 1, 0));
    const survivors = final.mutants.filter((m) => !m.killed).map((m) => m.name);
    if (final.solutionFailures.length > 0 || survivors.length > 0)
        throw new EddyError(`${p.task_id}: the imported template does not validate (${survivors.length ? `surviving mutants: ${survivors.join(", ")}` : "canonical solution failures"})`);
    return {
        taskId: p.task_id,
        id,
        function: p.entry_point,
        arity: f.arity,
        returns: returnsOf(f),
        fixedTests: { base: p.base_input?.length ?? 0, plus: p.plus_input?.length ?? 0 },
        atol: p.atol ?? 0,
        mutants: killed.map((m) => m.name),
        warnings
    };
}
