import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseDocument } from "yaml";
import { EddyError, oneLine } from "../util/errors.js";
import { compileConstraint } from "./constraint.js";
import { isPlainObject } from "./domains/util.js";
import type { TemplateLibrary } from "./library.js";
import { isParamValue } from "./domains/choice.js";
import { parseDomain, rejectFromDomain } from "./domains/registry.js";
import { malformedPlaceholders, placeholderNames } from "./render.js";
import { PROBLEM_GROUPS, RETURN_TYPES, TAXONOMY, subgroupNames, type ProblemGroup, type ReturnType } from "./taxonomy.js";
import type { Budget, ParamSpec, Template } from "./types.js";
import type { ParamValue } from "../vocabulary.js";

/** Limits used when a template names no `budget`. */
export const DEFAULT_BUDGET: Budget = { timeMs: 2000, memoryMb: 256 };
/** K used when a template names no `random_inputs` (SPEC §2). */
export const DEFAULT_RANDOM_INPUTS = 50;

const TOP_LEVEL_KEYS = ["id", "function", "arity", "group", "subgroups", "returns", "question", "ambiguity", "params", "constraint", "edge", "edges", "comparator", "budget", "random_inputs"];
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TEMPLATE_ID = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
// Parameters reach the oracle as Python keyword arguments, so they cannot be Python keywords.
const PYTHON_KEYWORDS = new Set(
    "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(" ")
);
// The oracle must define these; a cheap text scan catches a missing one before any Python runs.
const REQUIRED_ORACLE_FUNCTIONS = ["solution", "tests", "inputs"];

/** A file path as the person at the terminal would type it. */
function shown(file: string): string {
    const rel = path.relative(process.cwd(), file);
    return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : file;
}

/** Checks a comparator name: ordered | unordered | set | float:<tolerance>. */
function checkComparator(value: unknown): string {
    if (typeof value !== "string") throw new Error("comparator must be a string: ordered, unordered, set or float:<tolerance>");
    if (["ordered", "unordered", "set"].includes(value)) return value;
    const m = /^float:(.+)$/.exec(value);
    if (m && Number.isFinite(Number(m[1])) && Number(m[1]) >= 0) return value;
    throw new Error(`unknown comparator '${value}' (ordered, unordered, set or float:<tolerance> such as float:1e-9)`);
}

function positiveInt(value: unknown, what: string): number {
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1) throw new Error(`${what} must be a positive integer, got ${JSON.stringify(value)}`);
    return value;
}

function tupleText(tuple: ParamValue[]): string {
    return JSON.stringify(tuple);
}

/** Parses and checks one template file and its oracle (`<oracles>/<id>.py`); every problem is an EddyError naming the file. */
export function loadTemplateFile(file: string, oracles: string): Template {
    const yamlBytes = readFileSync(file);
    try {
        return parseTemplate(file, yamlBytes, oracles);
    } catch (err) {
        if (err instanceof EddyError) throw err;
        throw new EddyError(`${shown(file)}: ${oneLine(err)}`, 1, { cause: err });
    }
}

function parseTemplate(file: string, yamlBytes: Buffer, oracles: string): Template {
    const doc = parseDocument(yamlBytes.toString("utf8"), { prettyErrors: false, uniqueKeys: true });
    if (doc.errors.length > 0) throw new Error(`invalid YAML: ${doc.errors[0]!.message.split("\n")[0]}`);
    const raw: unknown = doc.toJS();
    if (!isPlainObject(raw)) throw new Error("a template must be a YAML mapping (id, function, arity, group, subgroups, question, params, …)");

    for (const key of Object.keys(raw)) if (!TOP_LEVEL_KEYS.includes(key)) throw new Error(`unknown field '${key}' (known: ${TOP_LEVEL_KEYS.join(", ")})`);
    for (const key of ["id", "function", "arity", "group", "subgroups", "question", "params"])
        if (raw[key] === undefined || raw[key] === null) throw new Error(`missing field '${key}'`);

    const base = path.basename(file, ".yaml");
    if (typeof raw.id !== "string" || raw.id !== base) throw new Error(`id '${String(raw.id)}' must equal the file name '${base}'`);
    const id = raw.id;
    if (!TEMPLATE_ID.test(id)) throw new Error(`id '${id}' may only use letters, digits, '_', '-' and '.'`);
    if (typeof raw.function !== "string" || !IDENTIFIER.test(raw.function) || PYTHON_KEYWORDS.has(raw.function))
        throw new Error(`function must be a Python identifier, got ${JSON.stringify(raw.function)}`);
    const arity = positiveInt(raw.arity, "arity");
    if (typeof raw.group !== "string" || !(PROBLEM_GROUPS as readonly string[]).includes(raw.group))
        throw new Error(`unknown group ${JSON.stringify(raw.group)} (one of: ${PROBLEM_GROUPS.join(", ")})`);
    const group = raw.group as ProblemGroup;
    if (!Array.isArray(raw.subgroups) || raw.subgroups.length === 0 || !raw.subgroups.every((s) => typeof s === "string" && s.length > 0))
        throw new Error(`subgroups must be a non-empty list of names (${group}: ${subgroupNames(group).join(", ")})`);
    const subgroups = (raw.subgroups as string[]).map((s) => canonicalSubgroup(group, s));
    if (new Set(subgroups).size !== subgroups.length) throw new Error(`subgroups lists a subgroup twice: ${JSON.stringify(raw.subgroups)}`);
    if (typeof raw.question !== "string" || raw.question.trim() === "") throw new Error("question must be non-empty text");
    const question = raw.question;
    const warnings: string[] = [];

    let returns: ReturnType | undefined;
    if (raw.returns === undefined || raw.returns === null) warnings.push("no 'returns:' field (the answer's type: " + RETURN_TYPES.join(", ") + ")");
    else if (typeof raw.returns !== "string" || !(RETURN_TYPES as readonly string[]).includes(raw.returns))
        throw new Error(`unknown returns ${JSON.stringify(raw.returns)} (one of: ${RETURN_TYPES.join(", ")})`);
    else returns = raw.returns as ReturnType;

    let ambiguity: string | undefined;
    if (raw.ambiguity === undefined || raw.ambiguity === null)
        warnings.push("no 'ambiguity:' note (the reading a careful programmer might take, and how the wording or the oracle rules it out)");
    else if (typeof raw.ambiguity !== "string" || raw.ambiguity.trim() === "") throw new Error("ambiguity must be non-empty text");
    else ambiguity = raw.ambiguity.trim();

    let edgeNames: string[] = [];
    if (raw.edges !== undefined && raw.edges !== null) {
        if (!Array.isArray(raw.edges) || raw.edges.length === 0 || !raw.edges.every((e) => typeof e === "string" && IDENTIFIER.test(e)))
            throw new Error("edges must be a non-empty list of edge-case names, e.g. [empty, lower_bound, equal_bounds]");
        edgeNames = raw.edges as string[];
        if (new Set(edgeNames).size !== edgeNames.length) throw new Error(`edges lists a name twice: ${JSON.stringify(raw.edges)}`);
    }

    if (!isPlainObject(raw.params)) throw new Error("params must be a mapping from parameter name to domain, e.g. lo: {int: {digits: [1, 2]}}");
    const params: ParamSpec[] = Object.entries(raw.params).map(([name, spec]) => {
        if (!IDENTIFIER.test(name) || PYTHON_KEYWORDS.has(name)) throw new Error(`parameter name '${name}' must be a Python identifier and not a keyword`);
        try {
            return { name, domain: parseDomain(spec) };
        } catch (err) {
            throw new Error(`param '${name}': ${oneLine(err)}`);
        }
    });
    if (params.length === 0) throw new Error("params must name at least one parameter");
    const names = params.map((p) => p.name);
    // A placeholder that does not parse ({{start elements, {{ n }, {{2x}}) would reach the model verbatim.
    const malformed = malformedPlaceholders(question);
    if (malformed.length) throw new Error(`question has a malformed placeholder ${malformed.map((m) => `'${m}'`).join(", ")}: write {{name}} with a parameter's name (params: ${names.join(", ")})`);
    for (const used of placeholderNames(question))
        if (!names.includes(used)) throw new Error(`question uses {{${used}}} but there is no parameter '${used}' (params: ${names.join(", ")})`);

    let constraint: string | undefined;
    if (raw.constraint !== undefined && raw.constraint !== null) {
        if (typeof raw.constraint !== "string" || raw.constraint.trim() === "") throw new Error("constraint must be an expression such as 'lo <= hi'");
        constraint = raw.constraint;
    }
    const check = constraint === undefined ? undefined : compileConstraint(constraint);

    const edge: ParamValue[][] = [];
    const rawEdge = raw.edge ?? [];
    if (!Array.isArray(rawEdge)) throw new Error("edge must be a list of tuples, e.g. [[0, 0], [3, 4]]");
    rawEdge.forEach((entry: unknown, i: number) => {
        // A one-parameter template may list bare values instead of one-element tuples.
        const tuple = params.length === 1 && !Array.isArray(entry) ? [entry] : entry;
        if (!Array.isArray(tuple) || tuple.length !== params.length)
            throw new Error(`edge tuple ${i + 1} ${JSON.stringify(entry)} must have ${params.length} value(s) (${names.join(", ")})`);
        if (!tuple.every(isParamValue)) throw new Error(`edge tuple ${i + 1} ${JSON.stringify(entry)} holds a value that is not a number, string, boolean or list`);
        params.forEach((p, j) => {
            const why = rejectFromDomain(p.domain, tuple[j] as ParamValue);
            if (why) throw new Error(`edge tuple ${i + 1} ${tupleText(tuple)}: ${p.name}: ${why}`);
        });
        if (check) {
            const bindings = Object.fromEntries(names.map((n, j) => [n, tuple[j] as ParamValue]));
            if (!check(bindings)) throw new Error(`edge tuple ${i + 1} ${tupleText(tuple)} violates the constraint '${constraint}'`);
        }
        edge.push(tuple as ParamValue[]);
    });
    // A constraint that names an unknown parameter only fails when evaluated; evaluate it once on any tuple now.
    if (check && edge.length === 0) {
        const probe = Object.fromEntries(params.map((p) => [p.name, 0]));
        check(probe);
    }

    const comparator = raw.comparator === undefined || raw.comparator === null ? "ordered" : checkComparator(raw.comparator);
    let budget = DEFAULT_BUDGET;
    if (raw.budget !== undefined && raw.budget !== null) {
        if (!isPlainObject(raw.budget)) throw new Error("budget must be a mapping such as {time_ms: 2000, memory_mb: 256}");
        for (const key of Object.keys(raw.budget)) if (key !== "time_ms" && key !== "memory_mb") throw new Error(`budget: unknown key '${key}' (time_ms, memory_mb)`);
        budget = {
            timeMs: raw.budget.time_ms === undefined ? DEFAULT_BUDGET.timeMs : positiveInt(raw.budget.time_ms, "budget.time_ms"),
            memoryMb: raw.budget.memory_mb === undefined ? DEFAULT_BUDGET.memoryMb : positiveInt(raw.budget.memory_mb, "budget.memory_mb")
        };
    }
    const randomInputs = raw.random_inputs === undefined || raw.random_inputs === null ? DEFAULT_RANDOM_INPUTS : positiveInt(raw.random_inputs, "random_inputs");

    const oracleFile = path.resolve(oracles, `${id}.py`);
    if (!existsSync(oracleFile)) throw new EddyError(`${shown(file)}: missing oracle file ${shown(oracleFile)}`);
    const oracleBytes = readFileSync(oracleFile);
    const oracleText = oracleBytes.toString("utf8");
    checkOracleText(oracleFile, oracleText, arity);
    const hasEdgeCases = /^def edge_cases\s*\(/m.test(oracleText);
    if (edgeNames.length > 0 && !hasEdgeCases)
        throw new EddyError(`${shown(file)}: 'edges:' names edge cases but ${shown(oracleFile)} defines no 'def edge_cases(args, **params)'`);
    if (edgeNames.length === 0 && hasEdgeCases) throw new EddyError(`${shown(file)}: the oracle defines edge_cases() but the template lists no 'edges:'`);

    const oracleHash = createHash("sha256").update(yamlBytes).update(oracleBytes).digest("hex");
    return {
        id,
        function: raw.function,
        arity,
        group,
        subgroups,
        ...(returns === undefined ? {} : { returns }),
        question,
        ...(ambiguity === undefined ? {} : { ambiguity }),
        params,
        ...(constraint === undefined ? {} : { constraint }),
        edge,
        edges: edgeNames,
        comparator,
        budget,
        randomInputs,
        warnings,
        file: path.resolve(file),
        oracleFile,
        oracleHash
    };
}

/** A subgroup name of `group` as written in YAML: the snake_case name, or the paper's label in any case ("Copy Sublist"). */
function canonicalSubgroup(group: ProblemGroup, written: string): string {
    const key = written.trim().toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "");
    const hit = TAXONOMY[group].subgroups.find((s) => s.name === key || s.label.toLowerCase().replace(/[^a-z0-9]+/g, "_") === key);
    if (!hit) throw new Error(`unknown subgroup '${written}' for group ${group} (allowed: ${subgroupNames(group).join(", ")})`);
    return hit.name;
}

/** A text scan of the oracle (no Python runs here): the required functions exist, and `solution` takes `arity` positional arguments. */
function checkOracleText(oracleFile: string, text: string, arity: number): void {
    for (const name of REQUIRED_ORACLE_FUNCTIONS)
        if (!new RegExp(`^def ${name}\\s*\\(`, "m").test(text)) {
            // A def the scan cannot see may be one Python cannot read: say so, with Python's own line and words.
            const syntax = oracleSyntaxError(oracleFile);
            if (syntax) throw new EddyError(`${shown(oracleFile)}: the oracle has a syntax error: ${syntax}`);
            throw new EddyError(`${shown(oracleFile)}: the oracle defines no top-level 'def ${name}(…)'`);
        }
    // Only checked when the signature is on one line and uses the keyword-only marker, as in the documented form.
    const sig = /^def solution\s*\(([^)\n]*)\)/m.exec(text);
    if (sig && sig[1]!.includes("*")) {
        const positional = sig[1]!.split("*")[0]!.split(",").map((s) => s.trim()).filter(Boolean);
        if (positional.length !== arity)
            throw new EddyError(`${shown(oracleFile)}: solution takes ${positional.length} positional argument(s) but the template's arity is ${arity}`);
    }
}

/** Python's SyntaxError for a file ("line 3: expected ':'"), undefined when it parses or no Python is there to ask. */
export function oracleSyntaxError(file: string): string | undefined {
    const script = "import ast,sys\ntry:\n ast.parse(open(sys.argv[1],encoding='utf-8').read(),sys.argv[1])\nexcept SyntaxError as e:\n print(f'line {e.lineno}: {e.msg}')";
    const r = spawnSync(process.env.EDDY_PYTHON || "python3", ["-I", "-c", script, file], { encoding: "utf8", timeout: 30_000 });
    const said = r.status === 0 ? r.stdout.trim() : "";
    return said || undefined;
}

/** Loads `<id>.yaml` of the library with its oracle. */
export function loadTemplate(library: TemplateLibrary, id: string): Template {
    if (!TEMPLATE_ID.test(id)) throw new EddyError(`'${id}' is not a template id (letters, digits, '_', '-', '.')`);
    const file = path.join(library.templates, `${id}.yaml`);
    if (!existsSync(file)) throw new EddyError(`unknown template '${id}' (no ${shown(file)}; see 'eddy templates list')`);
    return loadTemplateFile(file, library.oracles);
}

/** Every template of the library, sorted by id; README.md and other non-.yaml files are ignored. */
export function loadAllTemplates(library: TemplateLibrary): Template[] {
    const dir = library.templates;
    if (!existsSync(dir)) throw new EddyError(`templates folder ${shown(dir)} does not exist`);
    return readdirSync(dir)
        .filter((f) => f.endsWith(".yaml"))
        .sort()
        .map((f) => loadTemplateFile(path.join(dir, f), library.oracles));
}

/** `all`, a problem group name, or comma-separated ids and group names; unknown ids are an error. Order of first mention, no duplicates. */
export function selectTemplates(library: TemplateLibrary, spec: string): Template[] {
    const tokens = spec.split(",").map((s) => s.trim()).filter(Boolean);
    if (tokens.length === 0) throw new EddyError("no templates selected (use 'all', a group name, or comma-separated ids)");
    let all: Template[] | undefined;
    const picked = new Map<string, Template>();
    for (const token of tokens) {
        if (token === "all" || (PROBLEM_GROUPS as readonly string[]).includes(token)) {
            all ??= loadAllTemplates(library);
            const matching = all.filter((t) => token === "all" || t.group === token);
            if (matching.length === 0) throw new EddyError(`no templates in group '${token}'`);
            for (const t of matching) if (!picked.has(t.id)) picked.set(t.id, t);
        } else if (!picked.has(token)) {
            picked.set(token, loadTemplate(library, token));
        }
    }
    return [...picked.values()];
}
