import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { JudgePool } from "../../judge/JudgePool.js";
import { validateTemplate } from "../../judge/validateTemplate.js";
import { loadTemplateFile } from "../../templates/loadTemplates.js";
import { sampleInstances } from "../../templates/instances.js";
import { TAXONOMY } from "../../templates/taxonomy.js";
import type { ParamValue, ProblemGroup, Template } from "../../templates/types.js";
import { EddyError, oneLine } from "../../util/errors.js";
import { maxPlaceholder, readQuestionFolders, type QuestionFolder } from "./layout.js";
import { isCustomCompare, oracleSource, type MutantSpec } from "./oracleSource.js";
import { probeQuestion, type ProbeFacts } from "./probe.js";
import { ruleFor, type ArgumentRule, type QuestionRule } from "./rules.js";
import { withTemplateFolders } from "./folders.js";
import { moveInto, stagingFolder } from "../validatedWrite.js";

/** Mutants a template keeps at most, and at least (eddy's validate asks for three). */
const MAX_MUTANTS = 5;
const MIN_MUTANTS = 3;

/** The id eddy gives Turbulence question `n`. */
export function templateIdFor(n: number): string {
    return `turbulence_q${n}`;
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
    group: ProblemGroup;
    subgroup: string;
    comparator: string;
    arguments: ArgumentRule;
    fixedTests: string;
    mutants: { derived: string[]; generic: string[]; dropped: string[] };
    warnings: string[];
}

/** The summary `eddy import turbulence` prints and writes as turbulence-import.json. */
export interface ImportSummary {
    source: string;
    out: string;
    templates: ImportedQuestion[];
    warnings: string[];
}

export interface ImportOptions {
    out: string;
    only?: number[];
    rules?: Record<string, QuestionRule>;
    workers?: number;
    python?: string;
    onLog?: (line: string) => void;
}

/**
 * Reads a Turbulence benchmark's Q<n>/ folders and writes one eddy template and oracle per
 * question into `<out>/templates` and `<out>/oracles`. Everything is written and validated in a
 * temporary folder first (the model solution passes every recorded tuple, every kept mutant is
 * rejected); only then are the files moved into place, so a failure leaves nothing behind.
 */
export async function importTurbulence(root: string, opts: ImportOptions): Promise<ImportSummary> {
    const folders = readQuestionFolders(root, opts.only);
    const out = path.resolve(opts.out);
    const { tmp, templates: tmpTemplates, oracles: tmpOracles } = stagingFolder(out);
    const log = opts.onLog ?? (() => {});
    let pool: JudgePool | undefined;
    try {
        const prepared = folders.map((q) => prepareQuestion(root, q, ruleFor(q.n, opts.rules), opts.python));
        pool = await JudgePool.start({ ...(opts.workers ? { workers: opts.workers } : {}), ...(opts.python ? { python: opts.python } : {}) });
        const results: ImportedQuestion[] = [];
        for (const p of prepared) {
            const r = await withTemplateFolders(tmpTemplates, tmpOracles, () => finishQuestion(pool!, p, tmpTemplates, tmpOracles));
            for (const w of r.warnings) log(`warning: ${r.id} (Q${r.question}): ${w}`);
            results.push(r);
        }
        const summary: ImportSummary = { source: path.resolve(root), out, templates: results, warnings: results.flatMap((r) => r.warnings.map((w) => `${r.id}: ${w}`)) };
        writeFileSync(path.join(tmp, "turbulence-import.json"), JSON.stringify(summary, null, 2) + "\n");
        await pool.close();
        pool = undefined;
        moveInto(tmp, out, results.map((r) => r.id), "turbulence-import.json");
        return summary;
    } finally {
        await pool?.close();
        rmSync(tmp, { recursive: true, force: true });
    }
}

interface Prepared {
    q: QuestionFolder;
    rule: QuestionRule;
    facts: ProbeFacts;
    id: string;
    paramNames: string[];
    comparator: string;
    customCompare?: string;
    arguments: ArgumentRule;
    group: ProblemGroup;
    subgroup: string;
    returns: string | undefined;
    warnings: string[];
}

function prepareQuestion(root: string, q: QuestionFolder, rule: QuestionRule, python?: string): Prepared {
    const warnings: string[] = [];
    const args = rule.arguments ?? "spread";
    const facts = probeQuestion(root, q.n, q.function, args, python);
    const k = facts.tuples[0]!.length;
    facts.tuples.forEach((t, i) => {
        if (t.length !== k) throw new EddyError(`Q${q.n}: recorded tuple ${i + 1} has ${t.length} value(s), the first has ${k} (${facts.paramsSource})`);
    });
    const used = Math.max(maxPlaceholder(q.question), maxPlaceholder(q.solutionTemplate));
    if (used >= k) throw new EddyError(`Q${q.n}: the templates use $${used} but the recorded tuples have only ${k} value(s) (${facts.paramsSource})`);
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
    const group = rule.group ?? guessGroup(q.question);
    const subgroup = rule.subgroup ?? guessSubgroup(group, q.question);
    const returns = facts.returnTypes.length === 1 ? mapReturn(facts.returnTypes[0]!) : undefined;
    return {
        q,
        rule,
        facts,
        id: templateIdFor(q.n),
        paramNames,
        comparator,
        ...(customCompare ? { customCompare } : {}),
        arguments: args,
        group,
        subgroup,
        returns,
        warnings
    };
}

const RETURN_MAP: Record<string, string> = { int: "int", float: "float", bool: "bool", str: "str", list: "list", tuple: "tuple", set: "set", frozenset: "frozenset", dict: "dict", matrix: "matrix", none: "none" };
function mapReturn(t: string): string | undefined {
    return RETURN_MAP[t];
}

/** A problem group from the question's wording; a `--rules` entry overrides it. */
export function guessGroup(question: string): ProblemGroup {
    const q = question.toLowerCase();
    if (/\bcop(y|ies)\b/.test(q)) return "copying";
    if (/\bsets?\b/.test(q)) return "set";
    if (/\b(find|search|index of|position of)\b/.test(q)) return "searching";
    if (/\b(strings?|characters?)\b/.test(q)) return "string";
    if (/\blists?\b/.test(q)) return "list";
    return "math";
}

// Words that point to one subgroup of the taxonomy; the first subgroup of the group otherwise.
const SUBGROUP_WORDS: [RegExp, string][] = [
    [/\bsum\b|\btotal\b/, "summation"],
    [/\bsort|\bsmallest\b|\blargest\b/, "sorting"],
    [/\bcount|how many\b/, "count_elements"],
    [/\binsert/, "element_insertion"],
    [/\bremov|\bdelet/, "character_removal"],
    [/\bpalindrom/, "palindrome"],
    [/\banagram/, "anagram"],
    [/\bsubstring|\bfrom index\b/, "substring_extraction"],
    [/\bunion\b/, "union"],
    [/\bintersect/, "intersection"],
    [/\bsubsets?\b|\bsupersets?\b/, "subset_superset"],
    [/\bprime/, "prime_checking"],
    [/\bcomposite/, "composite_checking"],
    [/\bfactorial/, "factorial"],
    [/\bfactor/, "factorisation"],
    [/\bindex|\bposition/, "indexing"],
    [/\bslice|\bfrom index|\bto index/, "slicing"],
    [/\bfilter|\bat least\b|\bonly\b/, "filtering"]
];

export function guessSubgroup(group: ProblemGroup, question: string): string {
    const q = question.toLowerCase();
    const names = TAXONOMY[group].subgroups.map((s) => s.name);
    for (const [re, name] of SUBGROUP_WORDS) if (names.includes(name) && re.test(q)) return name;
    return names[0]!;
}

/** Candidate mutants from the solution template: integer parameters one off, comparisons flipped. */
export function deriveMutants(solutionTemplate: string, tuples: ParamValue[][]): MutantSpec[] {
    const out: MutantSpec[] = [];
    const k = tuples[0]?.length ?? 0;
    for (let i = 0; i < k; i++) {
        const ints = tuples.every((t) => typeof t[i] === "number" && Number.isInteger(t[i]));
        const token = new RegExp(`\\$${i}(?!\\d)`, "g");
        if (!ints || !token.test(solutionTemplate)) continue;
        out.push({ name: `mutant_p${i}_plus_one`, template: solutionTemplate.replace(token, `($${i} + 1)`), how: `$${i} replaced by $${i} + 1` });
        out.push({ name: `mutant_p${i}_minus_one`, template: solutionTemplate.replace(token, `($${i} - 1)`), how: `$${i} replaced by $${i} - 1` });
    }
    const flips: Record<string, string> = { "<=": "<", "<": "<=", ">=": ">", ">": ">=" };
    const cmp = /(?<![-<>=!])(<=|>=|<|>)(?![<>=])/g;
    let m: RegExpExecArray | null;
    let count = 0;
    while ((m = cmp.exec(solutionTemplate)) && count < 4) {
        const line = solutionTemplate.slice(solutionTemplate.lastIndexOf("\n", m.index) + 1, m.index);
        if (/^\s*(def|from|import)\b|->/.test(line) || /["']/.test(line)) continue; // signatures, imports, text
        count++;
        const at = m.index;
        out.push({
            name: `mutant_compare_${count}`,
            template: solutionTemplate.slice(0, at) + flips[m[1]!]! + solutionTemplate.slice(at + m[1]!.length),
            how: `comparison ${count} '${m[1]}' replaced by '${flips[m[1]!]}'`
        });
    }
    return out;
}

/** Wrong answers that need nothing from the solution: used only when too few mutants can be derived. */
function genericMutants(argNames: string[]): MutantSpec[] {
    return [
        { name: "mutant_generic_returns_none", body: "return None", how: "returns None" },
        { name: "mutant_generic_returns_first_argument", body: `return ${argNames[0] ?? "None"}`, how: "returns its first argument" },
        { name: "mutant_generic_raises", body: "raise ValueError('not implemented')", how: "raises" }
    ];
}

function yamlText(p: Prepared, rows: ParamValue[][]): string {
    const names = p.paramNames;
    // Turbulence's placeholders, ascending as Turbulence replaces them, become eddy's {{p<i>}}.
    let question = p.q.question;
    names.forEach((name, i) => (question = question.split(`$${i}`).join(`{{${name}}}`)));
    const distinct = names.map((_, i) => [...new Map(rows.map((t) => [JSON.stringify(t[i]), t[i]!])).values()]);
    const lines = [
        `# Imported from Turbulence Q${p.q.n} by 'eddy import turbulence' (parameters: ${p.facts.paramsSource}).`,
        `# Argument rule: ${p.arguments} (see TURBULENCE_ARGUMENTS in the oracle).`,
        `id: ${p.id}`,
        `function: ${p.q.function}`,
        `arity: ${p.facts.argNames.length}`,
        `group: ${p.group}`,
        `subgroups: [${p.subgroup}]`,
        ...(p.returns ? [`returns: ${p.returns}`] : []),
        `question: ${JSON.stringify(question)}`,
        `ambiguity: ${JSON.stringify(`Imported unchanged from Turbulence Q${p.q.n}: any ambiguity of the original wording remains; its fixed tests and model solution decide.`)}`,
        `params:`,
        ...names.map((name, i) => `  ${name}: {choice: ${JSON.stringify(distinct[i])}}`),
        ...constraintLines(names, rows, distinct),
        `edge:`,
        ...rows.map((t) => `  - ${JSON.stringify(t)}`),
        `comparator: ${JSON.stringify(p.comparator)}`
    ];
    return lines.join("\n") + "\n";
}

/** The recorded tuples are the neighbourhood: when the choices combine into more tuples than that, a constraint admits only the recorded ones. */
function constraintLines(names: string[], rows: ParamValue[][], distinct: ParamValue[][]): string[] {
    const combos = distinct.reduce((n, d) => n * d.length, 1);
    if (combos <= rows.length || names.length < 2) return [];
    const literal = (v: ParamValue): string | undefined =>
        typeof v === "number" ? String(v) : typeof v === "string" && !/["\\]/.test(v) ? JSON.stringify(v) : undefined;
    const terms: string[] = [];
    for (const t of rows) {
        const parts = t.map((v, i) => {
            const l = literal(v);
            return l === undefined ? undefined : `${names[i]} == ${l}`;
        });
        if (parts.some((x) => x === undefined)) return [];
        terms.push(`(${parts.join(" and ")})`);
    }
    return [`constraint: ${JSON.stringify(terms.join(" or "))}`];
}

function writeFiles(p: Prepared, rows: ParamValue[][], mutants: MutantSpec[], templatesDir: string, oraclesDir: string): Template {
    const file = path.join(templatesDir, `${p.id}.yaml`);
    writeFileSync(file, yamlText(p, rows));
    writeFileSync(
        path.join(oraclesDir, `${p.id}.py`),
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
            mutants
        })
    );
    return loadTemplateFile(file);
}

async function finishQuestion(pool: JudgePool, p: Prepared, templatesDir: string, oraclesDir: string): Promise<ImportedQuestion> {
    const rows = [...new Map(p.facts.tuples.map((t) => [JSON.stringify(t), t])).values()];
    if (rows.length < p.facts.tuples.length) p.warnings.push(`${p.facts.tuples.length - rows.length} duplicate tuple(s) in ${p.facts.paramsSource} dropped`);
    const candidates = deriveMutants(p.q.solutionTemplate, rows);

    // First pass: every candidate; keep those some recorded tuple rejects.
    let t = writeFiles(p, rows, candidates, templatesDir, oraclesDir);
    const instances = sampleInstances(t, rows.length, 0);
    const first = await validateTemplate(pool, t, instances);
    if (first.solutionFailures.length > 0) {
        const f = first.solutionFailures[0]!;
        throw new EddyError(`Q${p.q.n}: the model solution does not pass its own tests on tuple ${JSON.stringify(f.params)}: ${f.verdict.category}: ${oneLine(f.verdict.detail)}`);
    }
    const killed = new Set(first.mutants.filter((m) => m.killed).map((m) => m.name));
    const derived = candidates.filter((m) => killed.has(m.name)).slice(0, MAX_MUTANTS);
    const dropped = candidates.filter((m) => !killed.has(m.name)).map((m) => m.name);
    let generic: MutantSpec[] = [];
    if (derived.length < MIN_MUTANTS) {
        p.warnings.push(
            derived.length === 0
                ? "no mutant could be derived from the solution (no integer parameter or comparison to change, or none rejected); generic mutants only (weak)"
                : `only ${derived.length} mutant(s) could be derived from the solution; generic mutants added`
        );
        generic = genericMutants(p.facts.argNames).slice(0, MIN_MUTANTS - derived.length + 1);
    }
    if (dropped.length) p.warnings.push(`${dropped.length} derived mutant(s) no recorded tuple rejects, left out: ${dropped.join(", ")}`);

    // Second pass: the files as shipped must validate.
    t = writeFiles(p, rows, [...derived, ...generic], templatesDir, oraclesDir);
    const final = await validateTemplate(pool, t, sampleInstances(t, rows.length, 0));
    const survivors = final.mutants.filter((m) => !m.killed).map((m) => m.name);
    if (final.solutionFailures.length > 0 || survivors.length > 0 || final.mutants.length < MIN_MUTANTS)
        throw new EddyError(`Q${p.q.n}: the imported template does not validate (${survivors.length ? `surviving mutants: ${survivors.join(", ")}` : "model solution failures"})`);
    const fixed = first.instances.length;
    return {
        question: p.q.n,
        id: p.id,
        function: p.q.function,
        arity: t.arity,
        params: p.paramNames.length,
        instances: rows.length,
        paramsSource: p.facts.paramsSource,
        group: p.group,
        subgroup: p.subgroup,
        comparator: p.customCompare ?? p.comparator,
        arguments: p.arguments,
        fixedTests: `tests.py.template run on each of the ${fixed} tuple(s)`,
        mutants: { derived: derived.map((m) => m.name), generic: generic.map((m) => m.name), dropped },
        warnings: p.warnings
    };
}
