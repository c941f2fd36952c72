import { availableParallelism } from "node:os";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { JudgePool } from "../../judge/JudgePool.js";
import { validateTemplate } from "../../judge/validateTemplate.js";
import { pythonCommand } from "../../judge/workerScript.js";
import { loadTemplateFile } from "../../templates/loadTemplates.js";
import { sampleInstances } from "../../templates/instances.js";
import { RETURN_TYPES } from "../../templates/taxonomy.js";
import type { Template } from "../../templates/types.js";
import { EddyError, oneLine } from "../../util/errors.js";
import { guessGroup, guessSubgroup } from "../turbulence/taxonomyGuess.js";
import { moveInto, stagingFolder } from "../validatedWrite.js";
import { computeGroundTruth, DEFAULT_GROUND_TRUTH, type Expected, type GroundTruthLimits } from "./groundTruth.js";
import { expectedFileName, genericMutants, legacyExpectedFileName, oracleSource, type GenericMutant } from "./oracleSource.js";
import { readHumanEvalProblems, templateIdForTask, type Dataset, type HumanEvalProblem } from "./problems.js";
import { datasetHash, parseEvalPlusVersion, rulesAsOf, type DatasetHash } from "./evalplusVersions.js";

/** The summary file the import writes beside templates/ and oracles/. */
export const HUMANEVAL_SUMMARY = "humaneval-import.json";
/** eddy templates validate asks for this many mutants; fewer is a warning here. */
const MIN_MUTANTS = 3;
/** EvalPlus's memory limit for an answer (EVALPLUS_MAX_MEMORY_BYTES, 4 GiB). */
const EVALPLUS_MEMORY_MB = 4096;
/** EvalPlus's time-limit settings (evalplus/config.py), as expected.py applies them. */
export const EVALPLUS_LIMITS = { minTimeLimitS: 4, gtTimeLimitFactor: 4, timeoutPerTaskS: 60 };

export interface ImportedProblem {
    taskId: string;
    id: string;
    function: string;
    arity: number;
    returns: string | null;
    /** Fixed tests: EvalPlus's base and plus inputs, or (no inputs given) the calls check() makes. */
    fixedTests: { base: number; plus: number; check: number };
    atol: number;
    /** The canonical solution's CPU time on each group at import, on the importing machine (ms). */
    canonicalMs: Record<string, number>;
    /** The template's time floor (reference-machine ms) derived as EvalPlus derives its limits; null: eddy's default. */
    budgetMs: number | null;
    /** Size of the expected-outputs file beside the oracle. */
    expectedBytes: number;
    /** How many of its expected outputs are kept as their digest (too large to keep; compared exactly). */
    digestOutputs: number;
    mutants: string[];
    warnings: string[];
}

export interface HumanEvalImportSummary {
    source: string;
    dataset: Dataset;
    out: string;
    templates: ImportedProblem[];
    /** Problems that could not come in, with the reason (an import with `strict` stops instead). */
    skipped: { taskId: string; reason: string }[];
    limits: typeof EVALPLUS_LIMITS;
    /** Where and under what limits the problems' own code ran at import: the judge's sandbox. */
    canonical: GroundTruthLimits & { isolation: string };
    /** The dataset's md5 as EvalPlus computes it (its results' `hash`), and the file's own (src/import/humaneval/evalplusVersions.ts). */
    datasetHash?: DatasetHash;
    /** The EvalPlus version whose limits the import took (--evalplus-version); absent: its current ones. */
    evalplusVersion?: string;
}

export interface HumanEvalImportOptions {
    out: string;
    dataset?: Dataset;
    workers?: number;
    python?: string;
    /** Stop at the first problem that cannot come in and leave `out` as it was. */
    strict?: boolean;
    /** Limits of each problem's own code at import, in the sandbox (default DEFAULT_GROUND_TRUTH). */
    canonical?: Partial<GroundTruthLimits>;
    /** Run the problems' code where no sandbox can be had (as the judge's --allow-unsandboxed). */
    allowUnsandboxed?: boolean;
    /** Take the limits of this EvalPlus version (a release, a date, 'main'; default its current: 4 s at least per input). */
    evalplusVersion?: string;
    onLog?: (line: string) => void;
}

/** Runs `work` on every item with at most `n` at once; results in item order, each a value or the error it threw. */
async function inParallel<T, R>(items: T[], n: number, work: (item: T, i: number) => Promise<R>): Promise<(R | Error)[]> {
    const out: (R | Error)[] = new Array(items.length);
    let next = 0;
    const lane = async () => {
        while (next < items.length) {
            const i = next++;
            try {
                out[i] = await work(items[i]!, i);
            } catch (err) {
                out[i] = err instanceof Error ? err : new Error(String(err));
            }
        }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(n, items.length)) }, lane));
    return out;
}

/**
 * Turns a HumanEval-format problems file (HumanEval, EvalPlus's HumanEvalPlus.jsonl) or EvalPlus's
 * MbppPlus.jsonl into one eddy template (a neighbourhood of one: its only parameter, task_id,
 * takes one value) and one oracle per problem. The expected outputs are computed once, here, in
 * parallel, each problem's own code (prompt, canonical solution, check()) run in the judge's sandbox
 * under limits (issue #43: a problems file is untrusted input), and kept beside each oracle as
 * tagged JSON; every problem is validated in a staging folder first. A problem that cannot come in
 * (its code fails, hangs at its CPU limit, or returns what cannot be stored) is listed in `skipped`
 * with its reason and logged (with `strict`, it stops the import and nothing is written).
 */
export async function importHumanEval(file: string, opts: HumanEvalImportOptions): Promise<HumanEvalImportSummary> {
    const dataset = opts.dataset ?? "humaneval";
    const problems = readHumanEvalProblems(file, dataset);
    const ids = new Map<string, string>();
    for (const p of problems) {
        const id = templateIdForTask(p.task_id);
        if (!id) throw new EddyError(`${file}: task_id '${p.task_id}' gives no usable template id`);
        const other = ids.get(id);
        if (other !== undefined) throw new EddyError(`${file}: task_ids '${other}' and '${p.task_id}' both become template id '${id}'`);
        ids.set(id, p.task_id);
    }
    const out = path.resolve(opts.out);
    const stage = stagingFolder(out);
    const log = opts.onLog ?? (() => {});
    const workers = opts.workers ?? availableParallelism();
    const python = pythonCommand(opts.python);
    const limits: GroundTruthLimits = { ...DEFAULT_GROUND_TRUTH, ...opts.canonical };
    // The dataset's identity as EvalPlus's results name it; the limits of the EvalPlus version named, if one is.
    const hash = datasetHash(file);
    const version = opts.evalplusVersion !== undefined ? rulesAsOf(parseEvalPlusVersion(opts.evalplusVersion)) : undefined;
    const skipped: { taskId: string; reason: string }[] = [];
    const skip = (p: HumanEvalProblem, reason: string) => {
        if (opts.strict) throw new EddyError(`${p.task_id}: ${reason}`);
        skipped.push({ taskId: p.task_id, reason });
    };
    let pool: JudgePool | undefined;
    try {
        // A placeholder in the prompt would be rendered by eddy: such a problem cannot come in as it is.
        const ready: HumanEvalProblem[] = [];
        for (const p of problems) {
            const stray = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/.exec(p.prompt);
            if (stray) skip(p, `the prompt holds '${stray[0]}', which eddy reads as a template placeholder`);
            else ready.push(p);
        }
        // The judge first: it says whether a sandbox can be had here (and refuses to go on without
        // one unless allowed) before any of the problems' own code runs.
        pool = await JudgePool.start({ workers, ...(opts.python ? { python: opts.python } : {}), ...(opts.allowUnsandboxed ? { allowUnsandboxed: true } : {}) });
        // Progress every 20 problems or 10 s, and the last count where there was any: a small
        // file says nothing (with --strict, its one line is the error).
        let done = 0;
        let logged = Date.now();
        let said = false;
        const computed = await computeGroundTruth(ready, {
            dataset,
            out: (p) => path.join(stage.oracles, expectedFileName(templateIdForTask(p.task_id))),
            python,
            lanes: workers,
            limits: version ? { ...limits, minTimeLimitS: version.minTimeLimitS } : limits,
            unsandboxedOk: !pool.isolation.sandboxed,
            cpuFactor: pool.isolation.cpuFactor ?? 1,
            onDone: () => {
                done++;
                if (done % 20 === 0 || Date.now() - logged > 10_000 || (said && done === ready.length)) {
                    logged = Date.now();
                    said = true;
                    log(`expected outputs: ${done}/${ready.length} problem(s) (their code run in the judge's sandbox)`);
                }
            }
        });
        const valid: { p: HumanEvalProblem; e: Expected }[] = [];
        computed.forEach((r, i) => (r instanceof Error ? skip(ready[i]!, r.message) : valid.push({ p: ready[i]!, e: r })));
        const judged = await inParallel(valid, workers * 2, ({ p, e }) => importOne(pool!, p, e, dataset, stage.templates, stage.oracles));
        const results: ImportedProblem[] = [];
        judged.forEach((r, i) => {
            if (r instanceof Error) {
                // Its files were written for the judge: they must not come in with the rest.
                const id = templateIdForTask(valid[i]!.p.task_id);
                for (const f of [path.join(stage.templates, `${id}.yaml`), path.join(stage.oracles, `${id}.py`), path.join(stage.oracles, expectedFileName(id))]) rmSync(f, { force: true });
                return skip(valid[i]!.p, r.message);
            }
            for (const w of r.warnings) log(`warning: ${r.id} (${r.taskId}): ${w}`);
            results.push(r);
        });
        if (results.length === 0)
            throw new EddyError(`nothing could be imported from ${file}${skipped.length ? ` (${skipped.length} problem(s) skipped; first: ${skipped[0]!.taskId}: ${skipped[0]!.reason})` : ""}`);
        // Every problem skipped, with its reason (stderr, and the summary); when nothing could come
        // in, the one line above says so instead.
        for (const x of skipped) log(`warning: skipped ${x.taskId}: ${x.reason}`);
        const summary: HumanEvalImportSummary = {
            source: path.resolve(file),
            dataset,
            out,
            templates: results,
            skipped,
            limits: version ? { ...EVALPLUS_LIMITS, minTimeLimitS: version.minTimeLimitS } : EVALPLUS_LIMITS,
            canonical: { ...limits, isolation: pool.isolation.level },
            datasetHash: hash,
            ...(version ? { evalplusVersion: version.version.id } : {})
        };
        writeFileSync(path.join(stage.tmp, HUMANEVAL_SUMMARY), JSON.stringify(summary, null, 2) + "\n");
        await pool.close();
        pool = undefined;
        moveInto(stage.tmp, out, results.map((r) => r.id), HUMANEVAL_SUMMARY, (id) => [expectedFileName(id)]);
        // An earlier eddy's pickled outputs of the same problems: never read again, and removed.
        for (const r of results) rmSync(path.join(out, "oracles", legacyExpectedFileName(r.id)), { force: true });
        return summary;
    } finally {
        await pool?.close();
        stage.dispose();
    }
}

function returnsOf(types: string[]): string | null {
    const set = new Set(types.map((t) => (t === "NoneType" ? "none" : t)));
    if (set.has("matrix") && set.has("list")) set.delete("matrix");
    const [only] = [...set];
    return set.size === 1 && (RETURN_TYPES as readonly string[]).includes(only!) ? only! : null;
}

function yamlText(p: HumanEvalProblem, id: string, e: Expected, dataset: Dataset): string {
    const returns = returnsOf(e.returns);
    const group = guessGroup(p.prompt);
    const lines = [
        `# Imported from ${JSON.stringify(p.task_id)} by 'eddy import ${dataset}'.`,
        `# A neighbourhood of one: the only parameter, task_id, takes one value (the problem as published).`,
        `id: ${id}`,
        `function: ${p.entry_point}`,
        `arity: ${e.arity}`,
        `group: ${group}`,
        `subgroups: [${guessSubgroup(group, p.prompt)}]`,
        ...(returns ? [`returns: ${returns}`] : []),
        `question: ${JSON.stringify(p.prompt)}`,
        `ambiguity: ${JSON.stringify(`Imported unchanged from ${p.task_id}: any ambiguity of the original remains; its tests and canonical solution decide.`)}`,
        `params:`,
        `  task_id: {choice: [${JSON.stringify(p.task_id)}]}`,
        `edge:`,
        `  - [${JSON.stringify(p.task_id)}]`,
        // EvalPlus's limits: each input max(4 s, 4 x the canonical solution's time on it), timed on
        // its own (the oracle gives the judge each input's limit); the whole answer the sum of
        // those, at most 60 s a group, on the reference machine (the judge scales both by its host factor).
        ...(e.budgetMs ? [`budget: {time_ms: ${e.budgetMs}, memory_mb: ${EVALPLUS_MEMORY_MB}}`] : []),
        // The test inputs are fixed tests; the one random input repeats the first of them.
        `random_inputs: 1`
    ];
    return lines.join("\n") + "\n";
}

function writeFiles(p: HumanEvalProblem, id: string, e: Expected, dataset: Dataset, mutants: GenericMutant[], templatesDir: string, oraclesDir: string): Template {
    const file = path.join(templatesDir, `${id}.yaml`);
    writeFileSync(file, yamlText(p, id, e, dataset));
    writeFileSync(path.join(oraclesDir, `${id}.py`), oracleSource(p, id, { arity: e.arity, dataset, sha256: e.sha256 }, mutants));
    return loadTemplateFile(file, oraclesDir);
}

async function importOne(pool: JudgePool, p: HumanEvalProblem, e: Expected, dataset: Dataset, templatesDir: string, oraclesDir: string): Promise<ImportedProblem> {
    const id = templateIdForTask(p.task_id);
    const warnings: string[] = [];
    const candidates = genericMutants(e.arity);
    // One judged pass: the canonical solution must pass its own tests in eddy's judge; the generic
    // mutants its tests reject are kept (dropping the others changes nothing else in the oracle).
    const t = writeFiles(p, id, e, dataset, candidates, templatesDir, oraclesDir);
    const v = await validateTemplate(pool, t, sampleInstances(t, 1, 0));
    const failure = v.solutionFailures[0];
    if (failure) throw new EddyError(`the canonical solution does not pass its own tests in eddy's judge: ${failure.verdict.category}: ${oneLine(failure.verdict.detail)}`);
    const killed = candidates.filter((m) => v.mutants.some((r) => r.name === m.name && r.killed));
    if (killed.length < MIN_MUTANTS) warnings.push(`only ${killed.length} generic mutant(s) rejected by the problem's tests ('eddy templates validate' asks for ${MIN_MUTANTS})`);
    writeFiles(p, id, e, dataset, killed, templatesDir, oraclesDir);
    return {
        taskId: p.task_id,
        id,
        function: p.entry_point,
        arity: e.arity,
        returns: returnsOf(e.returns),
        fixedTests: { base: e.tests.base ?? 0, plus: e.tests.plus ?? 0, check: e.tests.check ?? 0 },
        atol: p.atol ?? 0,
        canonicalMs: e.canonicalMs,
        budgetMs: e.budgetMs,
        expectedBytes: e.bytes,
        digestOutputs: e.digests,
        mutants: killed.map((m) => m.name),
        warnings
    };
}
