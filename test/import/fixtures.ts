/**
 * A small benchmark and one model's published results in the Turbulence layout, written from
 * scratch for eddy's tests: original questions, solutions, tests and responses (nothing is
 * taken from Turbulence itself). Five questions cover the special cases of the importer:
 *
 * - Q1  two integer parameters, recorded in Q1/all_params.txt (a constraint keeps the neighbourhood)
 * - Q2  the generator returns a tuple: argument spreading; parameters from genparams.py
 * - Q4  answers are floats: compared with a tolerance
 * - Q5  a character parameter and no comparison in the solution: no mutant can be derived
 * - Q55 Turbulence's harness compares Q55's list answers in any order (its built-in rule)
 *
 * The results (model "tinycoder", temperature 0, two runs) include one response each that
 * Turbulence's harness got wrong for its own reasons: a timeout, a crash, a float compared
 * with ==, and a response whose code it could not extract.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

type Tuple = (number | string)[];
/** ok: correct code; wrong: wrong code; none: no code; then the special cases. */
type Kind = "ok" | "wrong" | "none" | "timeout" | "crash" | "float_order" | "example_block" | "sorted";

interface FixtureQuestion {
    n: number;
    files: Record<string, string>;
    tuples: Tuple[];
    /** Python literal of a tuple as Turbulence writes it in all_params.txt. */
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
                : `def multiples_between(x, y):\n    return sum(1 for v in range(x, y + 1) if v % ${d} == 0)`,
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
                : `def count_char(text):\n    n = 0\n    for ch in text:\n        if ch == '${c}':\n            n += 1\n    return n`,
        plan: [
            ["ok", "example_block", "wrong", "ok"],
            ["ok", "ok", "wrong", "ok"]
        ],
        tests: ["test_repeated", "test_absent"]
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

/** What Turbulence published for one response of the fixture, and what eddy must say. */
export function expectedVerdicts(kind: Kind): { turbulence: boolean; eddy: boolean } {
    switch (kind) {
        case "ok":
        case "sorted":
            return { turbulence: true, eddy: true };
        case "wrong":
        case "none":
            return { turbulence: false, eddy: false };
        default: // their harness or their comparison failed a correct answer
            return { turbulence: false, eddy: true };
    }
}

const pyTuple = (t: Tuple) => `(${t.map((v) => (typeof v === "string" ? `'${v}'` : String(v))).join(", ")}${t.length === 1 ? "," : ""})`;

function response(q: FixtureQuestion, kind: Kind, t: Tuple): string {
    if (kind === "none") return "I am not able to write this function.";
    const code = q.code(kind, t);
    if (kind === "example_block")
        return `Here is a Python function that does it:\n\n\`\`\`python\n${code}\n\`\`\`\n\nExample:\n\n\`\`\`python\nprint(count_char('${t[0]}${t[0]}'))\n\`\`\`\n`;
    return `\`\`\`python\n${code}\n\`\`\``;
}

/** Writes the benchmark (`<dir>/benchmark/Q<n>/…`) and the results (`<dir>/results/Tinycoder_T_0/Q<n>/…`); returns both folders. */
export function writeTurbulenceFixture(dir: string, opts: { rounds?: number } = {}): { benchmark: string; results: string } {
    const benchmark = path.join(dir, "benchmark");
    const results = path.join(dir, "results", "Tinycoder_T_0");
    for (const q of QUESTIONS) {
        const qdir = path.join(benchmark, `Q${q.n}`);
        mkdirSync(qdir, { recursive: true });
        for (const [name, text] of Object.entries(q.files)) writeFileSync(path.join(qdir, name), text);
        // More rounds (benchmarks) repeat the plan; each round's code differs by a comment, so no verdict is a cache hit.
        const rounds = opts.rounds ?? q.plan.length;
        Array.from({ length: rounds }, (_, r) => q.plan[r % q.plan.length]!).forEach((row, r) => {
            const run = path.join(results, `Q${q.n}`, `tinycoder_results_${r + 1}`);
            mkdirSync(run, { recursive: true });
            writeFileSync(path.join(run, "all_params.txt"), q.tuples.map(pyTuple).join("\n"));
            const correct: Record<string, Tuple> = {};
            const wrong: Record<string, Tuple> = {};
            row.forEach((kind, i) => {
                const c = i + 1;
                const t = q.tuples[i]!;
                const folder = path.join(run, `Folder_${c}`);
                mkdirSync(folder, { recursive: true });
                const text = response(q, kind, t);
                writeFileSync(path.join(folder, "response.txt"), r < q.plan.length ? text : text.replace("```python\n", `\`\`\`python\n# attempt ${r + 1}\n`));
                (expectedVerdicts(kind).turbulence ? correct : wrong)[`Folder_${c}`] = t;
                const rejected = kind === "none" || kind === "example_block";
                if (rejected) return; // their harness stops before writing any test file
                writeFileSync(path.join(folder, `Q${q.n}_${c}.ini`), `[pytest]\naddopts = -p no:warnings -n 3 --maxfail=1 --timeout=7 --report-log=Q${q.n}/tinycoder_results_${r + 1}/Folder_${c}/test_report.json`);
                const log = [JSON.stringify({ pytest_version: "7.4.4", $report_type: "SessionStart" })];
                if (kind === "crash") {
                    log.push(JSON.stringify({ exitstatus: 3, $report_type: "SessionFinish" }));
                    writeFileSync(path.join(folder, "test_report.json"), log.join("\n") + "\n");
                    return;
                }
                const report: Record<string, unknown> = { "parameter(s)": t };
                q.tests.forEach((name, j) => {
                    const failed = (kind === "timeout" && j === 0) || (kind === "wrong" && j === q.tests.length - 1);
                    report[name] = failed ? ["failed", kind === "timeout" ? "Failed: Timeout >7.0s" : "AssertionError: assert 0 == 1", kind === "timeout" ? 7.0 : 0.0001] : ["passed", "", 0.0001];
                    log.push(JSON.stringify({ nodeid: `tests${q.n}_${c}_${r + 1}.py::${name}`, outcome: failed ? "failed" : "passed", when: "call", $report_type: "TestReport" }));
                });
                log.push(JSON.stringify({ exitstatus: kind === "ok" || kind === "sorted" || kind === "float_order" ? 0 : 1, $report_type: "SessionFinish" }));
                writeFileSync(path.join(folder, "pre_existing_test_case_report.json"), JSON.stringify(report, null, 2));
                writeFileSync(path.join(folder, "test_report.json"), log.join("\n") + "\n");
                if (kind === "ok" || kind === "sorted" || kind === "float_order")
                    writeFileSync(
                        path.join(folder, "fuzzy_test_report.txt"),
                        kind === "float_order"
                            ? "Out of 50 random test input(s), the code returned by LLM passed 47 times and failed 3 times.\n\nThe counter examples were as follows:\n\n"
                            : "Out of 50 random test input(s), the code returned by LLM passed 50 times and failed 0 times.\n\n"
                    );
            });
            const asReport = (m: Record<string, Tuple>) => (Object.keys(m).length ? m : 0);
            writeFileSync(path.join(run, "params_report.json"), JSON.stringify({ model_name: "tinycoder", wrong: asReport(wrong), correct: asReport(correct) }, null, 2));
        });
    }
    return { benchmark, results };
}
