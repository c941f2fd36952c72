import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { JudgePool } from "../../judge/JudgePool.js";
import { loadTemplateFile } from "../../templates/loadTemplates.js";
import { sampleInstances } from "../../templates/instances.js";
import { measureStrength } from "../../templates/strength/measure.js";
import type { Template } from "../../templates/types.js";
import type { ProblemGroup } from "../../templates/taxonomy.js";
import type { ParamValue } from "../../vocabulary.js";
import { EddyError, oneLine } from "../../util/errors.js";
import { moveInto, stagingFolder } from "../validatedWrite.js";
import type { TemplateLibrary } from "../../templates/library.js";
import { maxPlaceholder, questionDirs, readQuestionFolders, type QuestionFolder, type Skipped } from "./layout.js";
import { deriveMutants, genericMutants } from "./mutants.js";
import { isCustomCompare, oracleSource, type MutantSpec } from "./oracleSource.js";
import { probeQuestion, type ProbeFacts } from "./probe.js";
import { ruleFor, type ArgumentRule, type QuestionRule } from "./rules.js";
import { guessGroup, guessSubgroup, mapReturn } from "./taxonomyGuess.js";
import { templateYaml } from "./templateYaml.js";

export { deriveMutants } from "./mutants.js";

/** Mutants a template keeps at most, and at least (eddy's validate asks for three). */
const MAX_MUTANTS = 5;
const MIN_MUTANTS = 3;

/** The id eddy gives Turbulence question `n`. */
export function templateIdFor(n: number): string {
    return `turbulence_q${n}`;
}

/** How an imported template was validated, and the oracle hashes that let a re-import skip it. */
export interface ImportValidation {
    /** Oracle hash of the files with every candidate mutant (what the check ran on). */
    candidates: string;
    /** Oracle hash of the files as shipped. */
    final: string;
    /** Candidate mutants some recorded tuple rejects. */
    killed: string[];
    /** "checked": solution and mutants on every tuple in one trusted process, the solution once through the sandboxed judge; "cached": the same files as the previous import's. */
    how: "checked" | "cached";
}

/** What the import did with one question (one entry of the JSON summary). */
export interface ImportedQuestion {
    question: number;
    id: string;
    function: string;
    arity: number;
    params: number;
    instances: number;
    paramsSource: string;
    /** Parameters held as Python text: floats read as Turbulence writes them (974.0), lists compare exactly. */
    textParams: string[];
    group: ProblemGroup;
    subgroup: string;
    comparator: string;
    arguments: ArgumentRule;
    fixedTests: string;
    mutants: { derived: string[]; generic: string[]; dropped: string[] };
    validation: ImportValidation;
    warnings: string[];
}

/** The summary `eddy import turbulence` prints and writes as turbulence-import.json. */
export interface ImportSummary {
    source: string;
    out: string;
    /** The published results the neighbourhoods were read from, when given. */
    results: string | null;
    /** Ids of the templates this import wrote. */
    imported: string[];
    /** Every template in `out` this importer wrote: this import's and earlier imports' still there, by question. */
    templates: ImportedQuestion[];
    /** Questions this import left out, and why. */
    skipped: Skipped[];
    warnings: string[];
}

export interface ImportOptions {
    out: string;
    only?: number[];
    rules?: Record<string, QuestionRule>;
    /** A published results folder (`<Model>_T_<t>/`): its params_report.json files are the neighbourhoods. */
    results?: string;
    /** Stop at the first question that cannot be imported (default: skip it and say why). */
    strict?: boolean;
    workers?: number;
    python?: string;
    onLog?: (line: string) => void;
}

const SUMMARY = "turbulence-import.json";

/**
 * Reads a Turbulence benchmark's Q<n>/ folders and writes one eddy template and oracle per
 * question into `<out>/templates` and `<out>/oracles`. Each question is written and validated in a
 * temporary folder first (the model solution passes every recorded tuple, every kept mutant is
 * rejected); only the questions that validate are moved into place, so `out` never holds a half
 * import. A question that cannot be imported is skipped with its reason (or, with `strict`, stops
 * the import and leaves `out` as it was).
 */
export async function importTurbulence(root: string, opts: ImportOptions): Promise<ImportSummary> {
    const { folders, skipped } = readQuestionFolders(root, opts.only, opts.strict);
    const out = path.resolve(opts.out);
    const previous = readSummary(out);
    const tmp = stagingFolder(out);
    const dirs: TemplateLibrary = { templates: tmp.templates, oracles: tmp.oracles };
    const log = opts.onLog ?? (() => {});
    const skip = (n: number, err: unknown): void => {
        if (opts.strict || !(err instanceof EddyError)) throw err;
        skipped.push({ location: `Q${n}`, reason: err.message });
        for (const f of [path.join(dirs.templates, `${templateIdFor(n)}.yaml`), path.join(dirs.oracles, `${templateIdFor(n)}.py`)]) rmSync(f, { force: true });
    };
    // Started on first use: a re-import whose every question is cached judges nothing.
    let pool: Promise<JudgePool> | undefined;
    const judgePool = (): Promise<JudgePool> => (pool ??= JudgePool.start({ workers: Math.min(opts.workers ?? availableParallelism(), folders.length), ...(opts.python ? { python: opts.python } : {}) }));
    try {
        const prepared: Prepared[] = [];
        for (const q of folders) {
            try {
                prepared.push(prepareQuestion(root, q, ruleFor(q.n, opts.rules), opts));
            } catch (err) {
                skip(q.n, err);
            }
        }
        const workers = opts.workers ?? availableParallelism();
        const results: ImportedQuestion[] = [];
        if (prepared.length) {
            const byId = new Map(previous?.templates.map((t) => [t.id, t]));
            // Questions are checked side by side: each check is one Python process.
            await eachConcurrently(prepared, workers, async (p) => {
                try {
                    const r = await finishQuestion(judgePool, p, dirs, byId.get(p.id), opts.python);
                    for (const w of r.warnings) log(`warning: ${r.id} (Q${r.question}): ${w}`);
                    results.push(r);
                } catch (err) {
                    skip(p.q.n, err);
                }
            });
        }
        for (const s of skipped) log(`skipped: ${s.location}: ${s.reason}`);
        if (results.length === 0)
            throw new EddyError(`nothing could be imported from ${root}${skipped.length ? ` (${skipped.length} question(s) skipped; first: ${skipped[0]!.location}: ${skipped[0]!.reason})` : ""}`);
        results.sort((a, b) => a.question - b.question);
        const ids = new Set(results.map((r) => r.id));
        const kept = (previous?.templates ?? []).filter((t) => !ids.has(t.id) && existsSync(path.join(out, "templates", `${t.id}.yaml`)));
        const summary: ImportSummary = {
            source: path.resolve(root),
            out,
            results: opts.results ? path.resolve(opts.results) : null,
            imported: results.map((r) => r.id),
            templates: [...results, ...kept].sort((a, b) => a.question - b.question),
            skipped: skipped.sort((a, b) => a.location.localeCompare(b.location, undefined, { numeric: true })),
            warnings: results.flatMap((r) => r.warnings.map((w) => `${r.id}: ${w}`))
        };
        writeFileSync(path.join(tmp.tmp, SUMMARY), JSON.stringify(summary, null, 2) + "\n");
        await closePool(pool);
        pool = undefined;
        moveInto(tmp.tmp, out, [...ids], SUMMARY);
        return summary;
    } finally {
        await closePool(pool);
        tmp.dispose();
    }
}

async function closePool(pool: Promise<JudgePool> | undefined): Promise<void> {
    if (pool) await pool.then((p) => p.close(), () => undefined);
}

/** Runs `fn` on every item, at most `limit` at a time. */
async function eachConcurrently<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
    let next = 0;
    await Promise.all(
        Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
            while (next < items.length) await fn(items[next++]!);
        })
    );
}

function readSummary(out: string): ImportSummary | undefined {
    try {
        const s = JSON.parse(readFileSync(path.join(out, SUMMARY), "utf8")) as ImportSummary;
        return Array.isArray(s.templates) ? s : undefined;
    } catch {
        return undefined;
    }
}

interface Prepared {
    q: QuestionFolder;
    rule: QuestionRule;
    facts: ProbeFacts;
    id: string;
    paramNames: string[];
    /** The neighbourhood as the template holds it: float positions as Python text. */
    rows: ParamValue[][];
    textParams: string[];
    comparator: string;
    customCompare?: string;
    arguments: ArgumentRule;
    group: ProblemGroup;
    subgroup: string;
    returns: string | undefined;
    warnings: string[];
}

/** The params_report.json of every published round of question `n`, first round first (none when `dir` holds no results). */
export function publishedReports(dir: string, n: number): string[] {
    const qdir = questionDirs(dir).find((q) => q.n === n)?.dir;
    if (!qdir) return [];
    return readdirSync(qdir)
        .map((name) => ({ name, m: /^(.+)_results_(\d+)$/.exec(name) }))
        .filter((x) => x.m && existsSync(path.join(qdir, x.name, "params_report.json")))
        .sort((a, b) => Number(a.m![2]) - Number(b.m![2]) || a.name.localeCompare(b.name))
        .map((x) => path.join(qdir, x.name, "params_report.json"));
}

function prepareQuestion(root: string, q: QuestionFolder, rule: QuestionRule, opts: ImportOptions): Prepared {
    const warnings: string[] = [];
    const args = rule.arguments ?? "spread";
    // The published rounds' tuples are the neighbourhood: from --results, else from the results beside the question (a v2 model folder).
    const reportRoot = opts.results ?? root;
    const files = publishedReports(reportRoot, q.n);
    const facts = probeQuestion(root, q.n, q.function, args, opts.python, { files, root: reportRoot });
    const k = facts.tuples[0]!.length;
    facts.tuples.forEach((t, i) => {
        if (t.length !== k) throw new EddyError(`Q${q.n}: recorded tuple ${i + 1} has ${t.length} value(s), the first has ${k} (${facts.paramsSource})`);
    });
    const used = Math.max(maxPlaceholder(q.question), maxPlaceholder(q.solutionTemplate));
    if (used >= k) throw new EddyError(`Q${q.n}: the templates use $${used} but the recorded tuples have only ${k} value(s) (${facts.paramsSource})`);
    if (opts.results && files.length === 0) warnings.push(`no params_report.json for Q${q.n} in ${opts.results}: parameters from ${facts.paramsSource}`);
    if (facts.vararg) warnings.push("the model solution takes *args; eddy asks for a fixed argument count");
    if (args === "spread" && facts.tupleLengths.some((l) => l !== facts.argNames.length))
        warnings.push(`input_generator() returns tuples of length ${facts.tupleLengths.join("/")} but the solution takes ${facts.argNames.length} argument(s)`);
    let comparator = rule.comparator ?? (facts.floats ? "float:1e-9" : "ordered");
    let customCompare: string | undefined;
    if (comparator.startsWith("turbulence:")) {
        if (isCustomCompare(comparator)) customCompare = comparator;
        else warnings.push(`comparison rule '${comparator}' has no eddy equivalent; compared with 'ordered'`);
        comparator = "ordered";
    }
    if (!rule.comparator && facts.floats) warnings.push("the model solution answers with floats: compared with float:1e-9 where Turbulence used ==");
    if (rule.note) warnings.push(`harness rule: ${rule.note}`);
    const paramNames = Array.from({ length: k }, (_, i) => `p${i}`);
    // The oracle's functions take the answer's arguments, then the parameters by keyword: names must differ.
    facts.argNames = facts.argNames.map((a) => (paramNames.includes(a) || a.startsWith("_eddy_") ? `arg_${a}` : a));
    // JSON reads 974.0 as 974, and filtrex cannot compare lists: positions holding floats or lists keep
    // Python's text of each value, which is also what Turbulence writes into the question.
    const asText = new Set([...facts.floatPositions, ...paramNames.map((_, i) => i).filter((i) => facts.tuples.some((t) => Array.isArray(t[i])))]);
    const rows = facts.tuples.map((t, r) => t.map((v, i) => (asText.has(i) ? facts.texts[r]![i]! : v)));
    const group = rule.group ?? guessGroup(q.question);
    return {
        q,
        rule,
        facts,
        id: templateIdFor(q.n),
        paramNames,
        rows,
        textParams: [...asText].sort((a, b) => a - b).map((i) => paramNames[i]!),
        comparator,
        ...(customCompare ? { customCompare } : {}),
        arguments: args,
        group,
        subgroup: rule.subgroup ?? guessSubgroup(group, q.question),
        returns: facts.returnTypes.length === 1 ? mapReturn(facts.returnTypes[0]!) : undefined,
        warnings
    };
}

function writeFiles(p: Prepared, rows: ParamValue[][], mutants: MutantSpec[], dirs: TemplateLibrary): Template {
    const file = path.join(dirs.templates, `${p.id}.yaml`);
    const yaml = templateYaml(
        {
            id: p.id,
            question: p.q.n,
            text: p.q.question,
            function: p.q.function,
            arity: p.facts.argNames.length,
            group: p.group,
            subgroup: p.subgroup,
            returns: p.returns,
            paramNames: p.paramNames,
            paramsSource: p.facts.paramsSource,
            arguments: p.arguments,
            comparator: p.comparator
        },
        rows
    );
    writeFileSync(file, yaml.text);
    if (!yaml.constrained && !p.warnings.some((w) => w.startsWith("no constraint")))
        p.warnings.push("no constraint could be written for these tuples (a string with a line break): asking for more instances than recorded samples outside the published neighbourhood");
    writeFileSync(
        path.join(dirs.oracles, `${p.id}.py`),
        oracleSource({
            question: p.q.n,
            function: p.q.function,
            argNames: p.facts.argNames,
            paramNames: p.paramNames,
            solutionTemplate: p.q.solutionTemplate,
            testsTemplate: p.q.testsTemplate,
            generatorSource: p.q.generatorSource,
            arguments: p.arguments,
            ...(p.customCompare ? { customCompare: p.customCompare } : {}),
            textParams: p.textParams,
            mutants
        })
    );
    return loadTemplateFile(file, dirs.oracles);
}

/**
 * Validates one question in a batch: the model solution and every candidate mutant run on every
 * recorded tuple in one trusted Python process (the oracle is the benchmark's own code), and the
 * model solution once through the sandboxed judge on the shipped files. A re-import of the same
 * files (same oracle hash) reuses the previous import's result.
 */
async function finishQuestion(judgePool: () => Promise<JudgePool>, p: Prepared, dirs: TemplateLibrary, previous: ImportedQuestion | undefined, python?: string): Promise<ImportedQuestion> {
    const rows = [...new Map(p.rows.map((t) => [JSON.stringify(t), t])).values()];
    if (rows.length < p.rows.length) p.warnings.push(`${p.rows.length - rows.length} duplicate tuple(s) in ${p.facts.paramsSource} dropped`);
    const derivedCandidates = deriveMutants(p.q.solutionTemplate, rows);
    const generics = genericMutants(p.facts.argNames);

    let t = writeFiles(p, rows, [...derivedCandidates, ...generics], dirs);
    const candidates = t.oracleHash;
    const instances = sampleInstances(t, rows.length, 0);
    const cached = previous?.validation?.candidates === candidates ? previous.validation : undefined;
    let killed: Set<string>;
    if (cached) killed = new Set(cached.killed);
    else {
        const check = (await measureStrength(t, instances, { check: true, ...(python ? { python } : {}) })).check!;
        if (check.solutionFailures.length > 0) {
            const f = check.solutionFailures[0]!;
            throw new EddyError(`Q${p.q.n}: the model solution does not pass its own tests on tuple ${JSON.stringify(instances[f.index]!.params)}: ${oneLine(f.detail)}`);
        }
        killed = new Set(check.mutants.filter((m) => m.killed).map((m) => m.name));
    }
    const derived = derivedCandidates.filter((m) => killed.has(m.name)).slice(0, MAX_MUTANTS);
    const dropped = derivedCandidates.filter((m) => !killed.has(m.name)).map((m) => m.name);
    let generic: MutantSpec[] = [];
    if (derived.length < MIN_MUTANTS) {
        p.warnings.push(
            derived.length === 0
                ? "no mutant could be derived from the solution (no integer parameter or comparison to change, or none rejected); generic mutants only (weak)"
                : `only ${derived.length} mutant(s) could be derived from the solution; generic mutants added`
        );
        generic = generics.filter((m) => killed.has(m.name)).slice(0, MIN_MUTANTS - derived.length + 1);
    }
    if (dropped.length) p.warnings.push(`${dropped.length} derived mutant(s) no recorded tuple rejects, left out: ${dropped.join(", ")}`);
    if (derived.length + generic.length < MIN_MUTANTS)
        throw new EddyError(`Q${p.q.n}: the imported template does not validate (only ${derived.length + generic.length} mutant(s) are rejected by the recorded tuples; at least ${MIN_MUTANTS} are needed)`);

    // The files as shipped: the model solution must pass in the sandboxed judge too.
    t = writeFiles(p, rows, [...derived, ...generic], dirs);
    if (!(cached && cached.final === t.oracleHash)) {
        const first = instances[0]!;
        const pool = await judgePool();
        const v = await pool.judge({ template: t, bindings: first.bindings, code: await pool.answerSource(t, first.bindings) });
        if (v.category !== "passed") throw new EddyError(`Q${p.q.n}: the imported template does not validate in the sandboxed judge (model solution on tuple ${JSON.stringify(first.params)}: ${v.category}: ${oneLine(v.detail)})`);
    }
    return {
        question: p.q.n,
        id: p.id,
        function: p.q.function,
        arity: t.arity,
        params: p.paramNames.length,
        instances: rows.length,
        paramsSource: p.facts.paramsSource,
        textParams: p.textParams,
        group: p.group,
        subgroup: p.subgroup,
        comparator: p.customCompare ?? p.comparator,
        arguments: p.arguments,
        fixedTests: `tests.py.template run on each of the ${instances.length} tuple(s)`,
        mutants: { derived: derived.map((m) => m.name), generic: generic.map((m) => m.name), dropped },
        validation: { candidates, final: t.oracleHash, killed: [...killed].sort(), how: cached ? "cached" : "checked" },
        warnings: p.warnings
    };
}
