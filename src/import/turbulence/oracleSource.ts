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
    mutants: MutantSpec[];
}

/**
 * The body shared by solution() and the template mutants: Turbulence's own instantiation
 * ($i replaced by str(value), ascending), executed, then called. Self-contained on purpose:
 * the judge renders solution() and mutants as answer source, without the module around them.
 */
function instantiatedCall(fnName: string, def: string, template: string, o: OracleInput): string {
    const sig = [...o.argNames, "*", ...o.paramNames].join(", ");
    return [
        `def ${def}(${sig}):`,
        `    _eddy_source = ${pyString(template)}`,
        `    for _eddy_i, _eddy_value in enumerate([${o.paramNames.join(", ")}]):`,
        `        _eddy_source = _eddy_source.replace("$" + str(_eddy_i), str(_eddy_value))`,
        `    _eddy_namespace = {"__name__": "turbulence_solution"}`,
        `    exec(compile(_eddy_source, "solution.py", "exec"), _eddy_namespace)`,
        `    return _eddy_namespace[${pyString(fnName)}](${o.argNames.join(", ")})`,
        ""
    ].join("\n");
}

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
            `import copy`,
            `import random`,
            ``,
            `# How one value of input_generator() becomes arguments (Turbulence's harness rule for this question).`,
            `TURBULENCE_ARGUMENTS = ${pyString(o.arguments)}`,
            `_TESTS_TEMPLATE = ${pyString(o.testsTemplate)}`,
            `_GENERATOR_SOURCE = ${pyString(o.generatorSource)}`,
            `_generator = None`,
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
            `                test()`,
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
            `    state = random.getstate()`,
            `    try:`,
            `        value = _generator([${o.paramNames.join(", ")}], rng.randrange(2 ** 32))`,
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
