/**
 * A small benchmark and two models' published results in the Turbulence layout, written from
 * scratch for eddy's tests: original questions, solutions, tests and responses (nothing is taken
 * from Turbulence itself). The layout and the file forms follow what the public repositories hold
 * (ShahinHonarvar/Turbulence-Benchmark `Benchmark/Q<n>/`, ShahinHonarvar/Turbulence-Benchmark-v2
 * `<Model>_T_<t>/Q<n>/<model>_results_<run>/Folder_<c>/`): each round's `params_report.json` lists
 * every folder's tuple, there is no `all_params.txt`, and `response.txt` is the client library's
 * printed response object, the model's message inside a Python string literal.
 *
 * Questions (the special cases of the importer):
 * - Q1  two integer parameters, recorded in Q1/all_params.txt (a constraint keeps the neighbourhood)
 * - Q2  the generator returns a tuple: argument spreading; parameters from genparams.py
 * - Q4  answers are floats: compared with a tolerance
 * - Q5  a character parameter and no comparison in the solution: no mutant can be derived
 * - Q7  the published test is wrong: it expects one more for lists of even length, which it draws at random
 * - Q8  a float parameter (974.0 stays 974.0); genparams.py draws other tuples than the published ones
 * - Q55 Turbulence's harness compares Q55's list answers in any order (its built-in rule)
 *
 * Results: "tinycoder" (results/Tinycoder_T_0, OpenAI-style ChatCompletion objects, two rounds of
 * every question) and "minicoder" (results/Minicoder_T_D, Anthropic-style Message objects, Q7 only,
 * the provider's default temperature). Each special case has responses Turbulence's harness got
 * wrong for its own reasons: a timeout, a crash, a float compared with ==, a response whose code
 * it took from the wrong block, and correct answers its own test failed.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/** A parameter value: a Python int or str, or a float (written with its '.0' as Python writes it). */
export class Float {
    constructor(readonly v: number) {}
    toString(): string {
        return Number.isInteger(this.v) ? `${this.v}.0` : String(this.v);
    }
}
type Value = number | string | Float;
type Tuple = Value[];
/** ok: correct code; wrong: wrong code; none: no code; then the special cases. */
export type Kind = "ok" | "wrong" | "none" | "timeout" | "crash" | "float_order" | "usage_first" | "sorted" | "their_bug";

interface FixtureQuestion {
    n: number;
    files: Record<string, string>;
    /** The published neighbourhood, in folder order. */
    tuples: Tuple[];
    code(kind: Kind, t: Tuple): string;
    /** Per run (round), per tuple: what the response is. */
    plan: Kind[][];
    tests: string[];
}

const gen = (body: string) => `import random\n\n\ndef input_generator(l, seed):\n    if seed != 'default':\n        random.seed(seed)\n${body}\n`;

export const QUESTIONS: FixtureQuestion[] = [
    {
        n: 1,
        tuples: [[0, 0], [1, 4], [3, 3], [2, 9]],
        files: {
            "question.txt.template": "Write a function called 'span_total' that takes one argument, a list of integers, and returns the sum of the elements from index $0 to index $1, both inclusive.\n",
            "solution.py.template": "def span_total(values):\n    return sum(values[$0:$1 + 1])\n",
            "tests.py.template":
                "from Q1.$4_results_$5.Folder_$2.generated_answer import $3\n\n\ndef test_counting_numbers():\n    values = list(range(1, $1 + 10))\n    assert $3(values) == sum(range($0 + 1, $1 + 2))\n\n\ndef test_short_list():\n    values = [5] * ($0 + 1)\n    assert $3(values) == 5\n",
            "gen_function_params.py": gen("    size = random.randint(0, int(l[1]) + 5)\n    return [random.randint(-100, 100) for _ in range(size)]"),
            "all_params.txt": "(0, 0)\n(1, 4)\n(3, 3)\n(2, 9)"
        },
        code: (k, [lo, hi]) =>
            k === "wrong"
                ? `def span_total(values):\n    return sum(values[${lo}:${hi}])`
                : `def span_total(values):\n    total = 0\n    for i in range(${lo}, min(${hi}, len(values) - 1) + 1):\n        total += values[i]\n    return total`,
        plan: [
            ["ok", "ok", "timeout", "wrong"],
            ["ok", "ok", "ok", "ok"]
        ],
        tests: ["test_counting_numbers", "test_short_list"]
    },
    {
        n: 2,
        tuples: [[1], [3], [5], [12]],
        files: {
            "question.txt.template": "Write a function called 'multiples_between' that takes two integers, x and y, and returns how many multiples of $0 lie between x and y, both inclusive, or 0 when x is greater than y.\n",
            "solution.py.template": "def multiples_between(x, y):\n    if x > y:\n        return 0\n    return y // $0 - (x - 1) // $0\n",
            "tests.py.template":
                "from Q2.$3_results_$4.Folder_$1.generated_answer import $2\n\n\ndef test_from_one():\n    assert $2(1, 10 * $0) == 10\n\n\ndef test_reversed_bounds():\n    assert $2(5, 4) == 0\n\n\ndef test_single_multiple():\n    assert $2($0, $0) == 1\n",
            "gen_function_params.py": gen("    x = random.randint(-50, 200)\n    return (x, x + random.randint(-5, 300))"),
            "manually_chosen_params.txt": "1\n3\n",
            "genparams.py":
                "# Reads the hand-chosen divisors and adds divisors from a fixed list until there are four.\ndef gen_params(q_no, seed):\n    with open(f\"Q{q_no}/manually_chosen_params.txt\", \"r\") as f:\n        rows = [(int(line.split()[0]),) for line in f if line.strip()]\n    for d in (5, 12, 20):\n        if len(rows) < 4 and (d,) not in rows:\n            rows.append((d,))\n    return rows\n"
        },
        code: (k, [d]) =>
            k === "wrong"
                ? `def multiples_between(x, y):\n    return len([v for v in range(x, y) if v % ${d} == 0])`
                : `def multiples_between(x, y):\n    """Counts the multiples of ${d} in [x, y]."""\n    return sum(1 for v in range(x, y + 1) if v % ${d} == 0)`,
        plan: [
            ["ok", "wrong", "ok", "ok"],
            ["ok", "crash", "wrong", "ok"]
        ],
        tests: ["test_from_one", "test_reversed_bounds", "test_single_multiple"]
    },
    {
        n: 4,
        tuples: [[0], [1], [2], [5]],
        files: {
            "question.txt.template": "Write a function called 'average_from' that takes a list of numbers and returns the average of the elements from index $0 to the end as a float, or 0.0 when there are none.\n",
            "solution.py.template": "def average_from(values):\n    part = values[$0:]\n    if not part:\n        return 0.0\n    return sum(part) / len(part)\n",
            "tests.py.template":
                "from Q4.$3_results_$4.Folder_$1.generated_answer import $2\n\n\ndef test_constant():\n    assert $2([2.5] * ($0 + 3)) == 2.5\n\n\ndef test_too_short():\n    assert $2([1.0] * $0) == 0.0\n",
            "gen_function_params.py": gen("    size = random.randint(0, int(l[0]) + 12)\n    return [random.uniform(-10.0, 10.0) for _ in range(size)]"),
            "all_params.txt": "(0,)\n(1,)\n(2,)\n(5,)"
        },
        code: (k, [s]) =>
            k === "float_order"
                ? `def average_from(values):\n    part = values[${s}:]\n    total = 0.0\n    for v in reversed(part):\n        total += v\n    return total / len(part) if part else 0.0`
                : `def average_from(values):\n    part = values[${s}:]\n    return sum(part) / len(part) if part else 0.0`,
        plan: [
            ["ok", "float_order", "ok", "none"],
            ["ok", "ok", "ok", "ok"]
        ],
        tests: ["test_constant", "test_too_short"]
    },
    {
        n: 5,
        tuples: [["a"], ["e"], ["q"], ["z"]],
        files: {
            "question.txt.template": "Write a function called 'count_char' that takes a string and returns how many times the character '$0' occurs in it.\n",
            "solution.py.template": "def count_char(text):\n    return text.count('$0')\n",
            "tests.py.template": "from Q5.$3_results_$4.Folder_$1.generated_answer import $2\n\n\ndef test_repeated():\n    assert $2('$0' * 4) == 4\n\n\ndef test_absent():\n    assert $2('') == 0\n",
            "gen_function_params.py": gen("    return ''.join(random.choice('aeqzxy') for _ in range(random.randint(0, 15)))"),
            "manually_chosen_params.txt": "a\ne\nq\nz\n"
        },
        code: (k, [c]) =>
            k === "wrong"
                ? `def count_char(text):\n    return len([ch for ch in text if ch == '${c}']) + 1`
                : `def count_char(text):\n    n = 0\n    for ch in text:  # '\\t' and '\\n' count like any other character\n        if ch == '${c}':\n            n += 1\n    return n`,
        plan: [
            ["ok", "usage_first", "wrong", "ok"],
            ["ok", "ok", "wrong", "ok"]
        ],
        tests: ["test_repeated", "test_absent"]
    },
    {
        n: 7,
        tuples: [[3], [10], [0], [7]],
        files: {
            "question.txt.template": "Write a function called 'padded_total' that takes a list of integers and returns their sum plus $0.\n",
            "solution.py.template": "def padded_total(values):\n    return sum(values) + $0\n",
            // The published test's own slip: for lists of even length it expects one more than the sum plus $0.
            "tests.py.template":
                "from Q7.$3_results_$4.Folder_$1.generated_answer import $2\nimport random\n\n\ndef test_fixed_list():\n    assert $2([1, 2, 3]) == 6 + $0\n\n\ndef test_random_list():\n    n = random.randint(1, 6)\n    values = [random.randint(0, 9) for _ in range(n)]\n    expected = sum(values) + $0\n    if n % 2 == 0:\n        expected += 1\n    assert $2(values) == expected\n",
            "gen_function_params.py": gen("    return [random.randint(-20, 20) for _ in range(random.randint(0, 12))]"),
            "manually_chosen_params.txt": "3\n10\n0\n7\n"
        },
        code: (k, [pad]) => (k === "wrong" ? `def padded_total(values):\n    return sum(values) + ${pad} + 1` : `def padded_total(values):\n    return sum(values) + ${pad}`),
        plan: [
            ["their_bug", "ok", "their_bug", "ok"],
            ["ok", "their_bug", "ok", "ok"]
        ],
        tests: ["test_fixed_list", "test_random_list"]
    },
    {
        n: 8,
        tuples: [[new Float(0.5)], [new Float(974)], [new Float(2)], [new Float(1.25)]],
        files: {
            "question.txt.template": "Write a function called 'scaled' that takes a list of numbers and returns a new list with every element multiplied by $0.\n",
            "solution.py.template": "def scaled(values):\n    return [v * $0 for v in values]\n",
            "tests.py.template": "from Q8.$3_results_$4.Folder_$1.generated_answer import $2\n\n\ndef test_two():\n    assert $2([1, 2]) == [1 * $0, 2 * $0]\n\n\ndef test_empty():\n    assert $2([]) == []\n",
            "gen_function_params.py": gen("    return [random.randint(-50, 50) for _ in range(random.randint(0, 10))]"),
            // Not the published neighbourhood: a re-run of genparams.py shares one tuple of four with it.
            "genparams.py": "def gen_params(q_no, seed):\n    return [(2.0,), (3.0,), (10.0,), (0.25,)]\n"
        },
        code: (k, [f]) => (k === "wrong" ? `def scaled(values):\n    return [v + ${f} for v in values]` : `def scaled(values):\n    return [v * ${f} for v in values]`),
        plan: [
            ["ok", "ok", "wrong", "ok"],
            ["ok", "ok", "ok", "ok"]
        ],
        tests: ["test_two", "test_empty"]
    },
    {
        n: 55,
        tuples: [[1], [2], [3], [4]],
        files: {
            "question.txt.template": "Write a function called 'frequent_items' that takes a list of integers and returns a list of the distinct values that occur at least $0 times, in any order.\n",
            "solution.py.template":
                "def frequent_items(values):\n    counts = {}\n    for v in values:\n        counts[v] = counts.get(v, 0) + 1\n    return [v for v, c in counts.items() if c >= $0]\n",
            "tests.py.template":
                "from Q55.$3_results_$4.Folder_$1.generated_answer import $2\n\n\ndef test_repeated_block():\n    assert $2([4] * $0 + [9] * ($0 - 1)) == [4]\n\n\ndef test_empty():\n    assert $2([]) == []\n",
            "gen_function_params.py": gen("    return [random.randint(0, 6) for _ in range(random.randint(0, 20))]"),
            "manually_chosen_params.txt": "1\n2\n3\n4\n"
        },
        code: (k, [m]) =>
            k === "wrong"
                ? `def frequent_items(values):\n    return sorted(v for v in set(values) if values.count(v) > ${m})`
                : k === "sorted"
                  ? `def frequent_items(values):\n    return sorted(v for v in set(values) if values.count(v) >= ${m})`
                  : `def frequent_items(values):\n    seen = []\n    for v in values:\n        if v not in seen and values.count(v) >= ${m}:\n            seen.append(v)\n    return seen`,
        plan: [
            ["sorted", "ok", "ok", "ok"],
            ["ok", "wrong", "sorted", "ok"]
        ],
        tests: ["test_repeated_block", "test_empty"]
    }
];

/** minicoder answers Q7 with the same code as tinycoder, and Turbulence's test fails some of it by the random draw. */
export const MINICODER_Q7: Kind[][] = [
    ["ok", "ok", "their_bug", "ok"],
    ["their_bug", "ok", "ok", "ok"]
];

/** What Turbulence published for one response of the fixture, and what eddy must say. */
export function expectedVerdicts(kind: Kind): { turbulence: boolean; eddy: boolean } {
    switch (kind) {
        case "ok":
        case "sorted":
            return { turbulence: true, eddy: true };
        case "wrong":
        case "none":
            return { turbulence: false, eddy: false };
        default: // their harness, their comparison, their extraction or their test failed a correct answer
            return { turbulence: false, eddy: true };
    }
}

/** Python's text of a value (str() and repr() agree for these): 974.0 keeps its '.0'. */
const pyValue = (v: Value): string => (typeof v === "string" ? `'${v}'` : String(v));
const pyTuple = (t: Tuple): string => `(${t.map(pyValue).join(", ")}${t.length === 1 ? "," : ""})`;
/** JSON as Python's json.dump writes it (indent 2), floats with their '.0'. */
const pyJson = (v: unknown): string =>
    JSON.stringify(v, (_, x: unknown) => (x instanceof Float ? `@float:${x}@` : x), 2).replace(/"@float:([^@]+)@"/g, "$1");

/**
 * Python's repr() of a str: single quotes unless the text holds ' and no ", backslash escapes for
 * the quote, \\, \n, \r, \t, and \xNN / \uNNNN / \UNNNNNNNN for what str.isprintable() rejects.
 */
export function pyRepr(s: string): string {
    const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
    let out = quote;
    for (const ch of s) {
        const cp = ch.codePointAt(0)!;
        if (ch === "\\" || ch === quote) out += "\\" + ch;
        else if (ch === "\n") out += "\\n";
        else if (ch === "\r") out += "\\r";
        else if (ch === "\t") out += "\\t";
        else if (ch !== " " && /[\p{C}\p{Z}]/u.test(ch)) out += cp <= 0xff ? `\\x${hex(cp, 2)}` : cp <= 0xffff ? `\\u${hex(cp, 4)}` : `\\U${hex(cp, 8)}`;
        else out += ch;
    }
    return out + quote;
}
const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");

/** The response forms found in the published repositories (see src/import/turbulence/responseForms.ts). */
export const FORMS = ["openai", "anthropic", "mistral", "cohere", "json", "text"] as const;
export type Form = (typeof FORMS)[number];

/** A published response file of `form` holding `text`; `k` varies the ids and token counts. */
export function printedResponse(form: Form, text: string, k: number, model: string): { file: string; content: string } {
    const id = hex((k * 2654435761) >>> 0, 8);
    const tokens = 20 + (text.length % 97);
    switch (form) {
        case "openai":
            return {
                file: "response.txt",
                content: `ChatCompletion(id='chatcmpl-${id}', choices=[Choice(finish_reason='stop', index=0, logprobs=None, message=ChatCompletionMessage(content=${pyRepr(text)}, refusal=None, role='assistant', function_call=None, tool_calls=None))], created=${1730000000 + k}, model='${model}', object='chat.completion', service_tier=None, system_fingerprint=None, usage=CompletionUsage(completion_tokens=${tokens}, prompt_tokens=98, total_tokens=${tokens + 98}))`
            };
        case "anthropic":
            return {
                file: "response.txt",
                content: `Message(id='msg_${id}', content=[TextBlock(text=${pyRepr(text)}, type='text')], model='${model}', role='assistant', stop_reason='end_turn', stop_sequence=None, type='message', usage=Usage(input_tokens=98, output_tokens=${tokens}))`
            };
        case "mistral":
            return {
                file: "response.txt",
                content: `id='${id}' object='chat.completion' model='${model}' usage=UsageInfo(prompt_tokens=98, completion_tokens=${tokens}, total_tokens=${tokens + 98}) created=${1720000000 + k} choices=[ChatCompletionChoice(index=0, message=AssistantMessage(content=${pyRepr(text)}, tool_calls=None, prefix=False, role='assistant'), finish_reason='stop')]`
            };
        case "cohere":
            return { file: "response.txt", content: `[cohere.Generation {\n\tid: ${id}-0000-4000-8000-${id}0000\n\ttext: ${text}\n\tlikelihood: None\n\ttoken_likelihoods: None\n}]` };
        case "json":
            return { file: "response.json", content: JSON.stringify({ id: `chatcmpl-${id}`, object: "chat.completion", model, choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }] }, null, 1) };
        case "text":
            return { file: "response.txt", content: text };
    }
}

/** The model's message for one response; prose varies by folder so that every escape the files use occurs. */
export function responseText(q: FixtureQuestion, kind: Kind, t: Tuple, variant: number): string {
    if (kind === "none") return "I am not able to write this function.";
    const code = q.code(kind, t);
    if (kind === "usage_first")
        return `Example:\n\n\`\`\`python\nprint(${q.code("ok", t).match(/def (\w+)/)![1]}('${t[0]}${t[0]}'))\n\`\`\`\n\nHere is the function:\n\n\`\`\`python\n${code}\n\`\`\`\n`;
    switch (variant % 3) {
        case 0:
            return `Here's a function that does it:\n\n\`\`\`python\n${code}\n\`\`\`\n\nIt reads the input once — no copies.`;
        case 1:
            return `\`\`\`python\n${code}\n\`\`\``;
        default:
            return `Sure.\n\n\`\`\`python\n${code}\n\`\`\`\n\nCall it with a list, e.g. \`f([1, 2])\`.\tDone.\u200b`;
    }
}

interface ModelResults {
    folder: string;
    model: string;
    form: Form;
    plans: Map<number, Kind[][]>;
}

/**
 * Writes the benchmark (`<dir>/benchmark/Q<n>/…`) and the results (`<dir>/results/Tinycoder_T_0/…`,
 * `<dir>/results/Minicoder_T_D/…`); returns the folders. `rounds` repeats the plan (each round's code
 * differs by a comment, so no verdict is a cache hit); `form` writes tinycoder's responses in another form.
 */
export function writeTurbulenceFixture(dir: string, opts: { rounds?: number; form?: Form } = {}): { benchmark: string; results: string; minicoder: string } {
    const benchmark = path.join(dir, "benchmark");
    for (const q of QUESTIONS) {
        const qdir = path.join(benchmark, `Q${q.n}`);
        mkdirSync(qdir, { recursive: true });
        for (const [name, text] of Object.entries(q.files)) writeFileSync(path.join(qdir, name), text);
    }
    const tiny: ModelResults = { folder: path.join(dir, "results", "Tinycoder_T_0"), model: "tinycoder", form: opts.form ?? "openai", plans: new Map(QUESTIONS.map((q) => [q.n, q.plan])) };
    const mini: ModelResults = { folder: path.join(dir, "results", "Minicoder_T_D"), model: "minicoder", form: "anthropic", plans: new Map([[7, MINICODER_Q7]]) };
    writeResults(tiny, opts.rounds);
    writeResults(mini, undefined);
    return { benchmark, results: tiny.folder, minicoder: mini.folder };
}

function writeResults(m: ModelResults, roundsWanted: number | undefined): void {
    for (const q of QUESTIONS) {
        const plan = m.plans.get(q.n);
        if (!plan) continue;
        const rounds = roundsWanted ?? plan.length;
        Array.from({ length: rounds }, (_, r) => plan[r % plan.length]!).forEach((row, r) => {
            const run = path.join(m.folder, `Q${q.n}`, `${m.model}_results_${r + 1}`);
            mkdirSync(run, { recursive: true });
            const correct: Record<string, unknown> = {};
            const wrong: Record<string, unknown> = {};
            row.forEach((kind, i) => {
                const c = i + 1;
                const t = q.tuples[i]!;
                const folder = path.join(run, `Folder_${c}`);
                mkdirSync(folder, { recursive: true });
                let text = responseText(q, kind, t, c + r);
                if (r >= plan.length) text = text.replace("```python\n", `\`\`\`python\n# attempt ${r + 1}\n`);
                const printed = printedResponse(m.form, text, 100 * q.n + 10 * r + c, `${m.model}-1b`);
                writeFileSync(path.join(folder, printed.file), printed.content);
                // Correct entries carry Turbulence's code metrics after the tuple in the first round (as v1's reports do), not in later ones.
                if (expectedVerdicts(kind).turbulence) correct[`Folder_${c}`] = r === 0 ? [t, 2.1e-6, { h1: 1, h2: 2, volume: 4.755 }, { cyclomatic_complexity: 1 }, { loc: 3 }, "A"] : t;
                else wrong[`Folder_${c}`] = t;
                const rejected = kind === "none" || kind === "usage_first";
                if (rejected) return; // their harness stops before writing any test file
                writeFileSync(path.join(folder, `Q${q.n}_${c}.ini`), `[pytest]\naddopts = -p no:warnings -n 3 --maxfail=1 --timeout=7 --report-log=Q${q.n}/${m.model}_results_${r + 1}/Folder_${c}/test_report.json`);
                const log = [JSON.stringify({ pytest_version: "7.4.4", $report_type: "SessionStart" })];
                if (kind === "crash") {
                    log.push(JSON.stringify({ exitstatus: 3, $report_type: "SessionFinish" }));
                    writeFileSync(path.join(folder, "test_report.json"), log.join("\n") + "\n");
                    return;
                }
                const report: Record<string, unknown> = { "parameter(s)": t };
                q.tests.forEach((name, j) => {
                    const last = j === q.tests.length - 1;
                    const failed = (kind === "timeout" && j === 0) || ((kind === "wrong" || kind === "their_bug") && last);
                    const message = kind === "timeout" ? "Failed: Timeout >7.0s" : kind === "their_bug" ? "AssertionError: assert 21 == 22" : "AssertionError: assert 0 == 1";
                    report[name] = failed ? ["failed", message, kind === "timeout" ? 7.0 : 0.0001] : ["passed", "", 0.0001];
                    log.push(JSON.stringify({ nodeid: `tests${q.n}_${c}_${r + 1}.py::${name}`, outcome: failed ? "failed" : "passed", when: "call", $report_type: "TestReport" }));
                });
                const passed = kind === "ok" || kind === "sorted" || kind === "float_order";
                log.push(JSON.stringify({ exitstatus: passed ? 0 : 1, $report_type: "SessionFinish" }));
                writeFileSync(path.join(folder, "pre_existing_test_case_report.json"), pyJson(report));
                writeFileSync(path.join(folder, "test_report.json"), log.join("\n") + "\n");
                if (passed)
                    writeFileSync(
                        path.join(folder, "fuzzy_test_report.txt"),
                        kind === "float_order"
                            ? "Out of 50 random test input(s), the code returned by LLM passed 47 times and failed 3 times.\n\nThe counter examples were as follows:\n\n"
                            : "Out of 50 random test input(s), the code returned by LLM passed 50 times and failed 0 times.\n\n"
                    );
            });
            const asReport = (x: Record<string, unknown>) => (Object.keys(x).length ? x : 0);
            writeFileSync(path.join(run, "params_report.json"), pyJson({ model_name: `${m.model}-1b`, wrong: asReport(wrong), correct: asReport(correct) }));
        });
    }
}

/** all_params.txt lines of a question's tuples, as Turbulence writes them (for tests that need one). */
export function allParamsText(n: number): string {
    return QUESTIONS.find((q) => q.n === n)!.tuples.map(pyTuple).join("\n");
}
