import type { ArgumentRule } from "./rules.js";

/** A Python string literal of `text` (JSON string syntax is valid Python). */
export function pyString(text: string): string {
    return JSON.stringify(text);
}

/** One mutant: a changed copy of the solution template (or a generic wrong answer). */
export interface MutantSpec {
    name: string;
    /** The mutated solution template; absent for generic mutants. */
    template?: string;
    /** Python body of a generic mutant (uses the positional argument names). */
    body?: string;
    /** How it was made, for the import summary. */
    how: string;
}

/** What the oracle writer needs about one question. */
export interface OracleInput {
    question: number;
    function: string;
    argNames: string[];
    paramNames: string[];
    solutionTemplate: string;
    /** tests.py.template with its first line (the candidate import) rewritten. */
    testsTemplate: string;
    generatorSource: string;
    arguments: ArgumentRule;
    /** A Turbulence comparison rule with no eddy comparator, written as compare(). */
    customCompare?: string;
    /** Parameters the template holds as Python text (`"974.0"`): the generator gets them read back. */
    textParams?: string[];
    mutants: MutantSpec[];
}

/**
 * The body shared by solution() and the template mutants: Turbulence's own instantiation
 * ($i replaced by str(value), ascending), executed, then called. Self-contained on purpose:
 * the judge renders solution() and mutants as answer source, without the module around them;
 * the compiled function is kept per parameter values in a default argument (one compile per
 * instance, not one per call).
 */
function instantiatedCall(fnName: string, def: string, template: string, o: OracleInput): string {
    const sig = [...o.argNames, "*", ...o.paramNames, "_eddy_cache={}"].join(", ");
    return [
        `def ${def}(${sig}):`,
        `    _eddy_key = (${o.paramNames.map((p) => `str(${p})`).join(", ")},)`,
        `    _eddy_fn = _eddy_cache.get(_eddy_key)`,
        `    if _eddy_fn is None:`,
        `        _eddy_source = ${pyString(template)}`,
        `        for _eddy_i, _eddy_value in enumerate(_eddy_key):`,
        `            _eddy_source = _eddy_source.replace("$" + str(_eddy_i), _eddy_value)`,
        `        _eddy_namespace = {"__name__": "turbulence_solution"}`,
        `        exec(compile(_eddy_source, ${pyString(def === "solution" ? SOLUTION_FILE : `${def}.py`)}, "exec"), _eddy_namespace)`,
        `        _eddy_fn = _eddy_cache[_eddy_key] = _eddy_namespace[${pyString(fnName)}]`,
        `    return _eddy_fn(${o.argNames.join(", ")})`,
        ""
    ].join("\n");
}

/** The file name the instantiated solution is compiled under (what solution_source() names for strength measurement). */
const SOLUTION_FILE = "turbulence_solution.py";

function genericMutant(def: string, body: string, o: OracleInput): string {
    return [`def ${def}(${[...o.argNames, "*", ...o.paramNames].join(", ")}):`, `    ${body}`, ""].join("\n");
}

const CUSTOM_COMPARE: Record<string, string> = {
    "turbulence:upper": [
        "def compare(expected, actual, **params):",
        "    # Turbulence compares the answer upper-cased with the model solution's answer.",
        "    try:",
        "        return actual.upper() == expected",
        "    except Exception:",
        "        return False",
        ""
    ].join("\n"),
    "turbulence:matrices": [
        "def compare(expected, actual, **params):",
        "    # Turbulence compares lists of matrices as multisets of row lists.",
        "    def rows(m):",
        "        return [x.tolist() if hasattr(x, 'tolist') else x for x in m]",
        "    try:",
        "        e, a = rows(expected), rows(actual)",
        "        return len(e) == len(a) and all(e.count(x) == a.count(x) for x in e)",
        "    except Exception:",
        "        return False",
        ""
    ].join("\n")
};

/** The eddy oracle (oracles/<id>.py) of one imported Turbulence question. */
export function oracleSource(o: OracleInput): string {
    const kw = o.paramNames.map((p) => `${p}=${p}`).join(", ");
    const sig = ["*", ...o.paramNames].join(", ");
    const parts: string[] = [];
    parts.push(
        [
            `"""Imported from Turbulence question Q${o.question} by 'eddy import turbulence'.`,
            ``,
            `solution() and the template mutants instantiate Q${o.question}/solution.py.template the way`,
            `Turbulence does; tests() runs Q${o.question}/tests.py.template against the model solution and`,
            `keeps every call it makes as a fixed test; inputs() calls Q${o.question}/gen_function_params.py.`,
            `"""`,
            `import ast`,
            `import copy`,
            `import random`,
            ``,
            `# How one value of input_generator() becomes arguments (Turbulence's harness rule for this question).`,
            `TURBULENCE_ARGUMENTS = ${pyString(o.arguments)}`,
            `_TESTS_TEMPLATE = ${pyString(o.testsTemplate)}`,
            `_SOLUTION_TEMPLATE = ${pyString(o.solutionTemplate)}`,
            `_GENERATOR_SOURCE = ${pyString(o.generatorSource)}`,
            `# Parameters written as Python text in the template (floats keep their '.0' in the question): read back for the generator.`,
            `_PARAM_NAMES = ${JSON.stringify(o.paramNames)}`,
            `_TEXT_PARAMS = ${JSON.stringify(o.textParams ?? [])}`,
            `_generator = None`,
            ``,
            ``,
            `def solution_source(**params):`,
            `    """The code solution() runs for these parameters: eddy's strength measurement traces it, not the wrapper."""`,
            `    source = _SOLUTION_TEMPLATE`,
            `    for i, name in enumerate(_PARAM_NAMES):`,
            `        source = source.replace("$" + str(i), str(params[name]))`,
            `    return ${pyString(SOLUTION_FILE)}, source`,
            ``
        ].join("\n")
    );
    parts.push(instantiatedCall(o.function, "solution", o.solutionTemplate, o));
    parts.push(
        [
            `def tests(${sig}):`,
            `    yield from _recorded_tests([${o.paramNames.join(", ")}], lambda *args: solution(*args, ${kw}))`,
            ``,
            ``,
            `def _recorded_tests(params, call_solution):`,
            `    calls = []`,
            ``,
            `    def recording(*args):`,
            `        before = copy.deepcopy(args)`,
            `        result = call_solution(*args)`,
            `        calls.append((before, copy.deepcopy(result)))`,
            `        return result`,
            ``,
            `    # The folder number, function name, model and run that Turbulence fills in after the parameters.`,
            `    source = _TESTS_TEMPLATE`,
            `    for i, value in enumerate(params + [1, ${pyString(o.function)}, "eddy", 1]):`,
            `        source = source.replace("$" + str(i), str(value))`,
            `    namespace = {"__name__": "turbulence_tests", ${pyString(o.function)}: recording}`,
            `    state = random.getstate()`,
            `    random.seed(repr(params))  # tests that shuffle get the same data on every run`,
            `    try:`,
            `        exec(compile(source, "tests.py", "exec"), namespace)`,
            `        for name, test in list(namespace.items()):`,
            `            if name.startswith("test") and callable(test):`,
            `                try:`,
            `                    test()`,
            `                except AssertionError:`,
            `                    # Their assertion, not the model solution: the calls made so far are the fixed tests,`,
            `                    # judged by the model solution's answers (a published test can itself be wrong).`,
            `                    pass`,
            `    finally:`,
            `        random.setstate(state)`,
            `    return calls`,
            ``,
            ``,
            `def inputs(rng, ${sig}):`,
            `    global _generator`,
            `    if _generator is None:`,
            `        namespace = {"__name__": "gen_function_params"}`,
            `        exec(compile(_GENERATOR_SOURCE, "gen_function_params.py", "exec"), namespace)`,
            `        _generator = namespace["input_generator"]`,
            `    values = [${o.paramNames.join(", ")}]`,
            `    for i, name in enumerate(_PARAM_NAMES):`,
            `        if name in _TEXT_PARAMS:`,
            `            values[i] = ast.literal_eval(values[i])`,
            `    state = random.getstate()`,
            `    try:`,
            `        value = _generator(values, rng.randrange(2 ** 32))`,
            `    finally:`,
            `        random.setstate(state)`,
            `    if TURBULENCE_ARGUMENTS == "list":`,
            `        return tuple(value)`,
            `    if TURBULENCE_ARGUMENTS == "spread" and isinstance(value, tuple):`,
            `        return value`,
            `    return (value,)`,
            ``
        ].join("\n")
    );
    if (o.customCompare && CUSTOM_COMPARE[o.customCompare]) parts.push(CUSTOM_COMPARE[o.customCompare]!);
    for (const m of o.mutants) {
        if (m.template !== undefined) parts.push(instantiatedCall(o.function, m.name, m.template, o));
        else parts.push(genericMutant(m.name, m.body!, o));
    }
    return parts.join("\n\n");
}

/** True when `rule` is a Turbulence comparison the oracle writes as compare(). */
export function isCustomCompare(rule: string | undefined): boolean {
    return rule !== undefined && rule in CUSTOM_COMPARE;
}

/**
 * The published sources an imported oracle carries (written above with pyString, JSON string
 * syntax on one line): the tests template (its candidate import rewritten) and the solution
 * template. Undefined for an oracle this importer did not write.
 */
export function embeddedTemplates(oracleText: string): { tests: string; solution: string } | undefined {
    const read = (name: string): string | undefined => {
        const line = new RegExp(`^${name} = (".*")$`, "m").exec(oracleText)?.[1];
        if (line === undefined) return undefined;
        try {
            const v: unknown = JSON.parse(line);
            return typeof v === "string" ? v : undefined;
        } catch {
            return undefined;
        }
    };
    const tests = read("_TESTS_TEMPLATE");
    const solution = read("_SOLUTION_TEMPLATE");
    return tests !== undefined && solution !== undefined ? { tests, solution } : undefined;
}
