/**
 * Results that are instances of subclasses of built-in types (an int or float subclass, an
 * IntEnum member, a str subclass, a namedtuple, a dict subclass, numpy's float64, the standard
 * library's Counter, OrderedDict and defaultdict) are compared by the built-in value they hold, as
 * EvalPlus's == sees them, and read without any of the answer's own methods: a class whose
 * __repr__, __iter__, __eq__, keys or __index__ lie is judged on what it holds. Before, marshal
 * (exact types only) refused them and they went back as their repr ("expected 6, got 6"), or,
 * being buffers (numpy's scalars), as their raw bytes.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JudgePool } from "../../src/judge/JudgePool.js";
import { MemoryVerdictCache } from "../../src/judge/cache.js";
import type { Template } from "../../src/templates/types.js";
import { fixtureTemplate } from "./fixtures/templates.js";

const bindings = { lo: 1, hi: 3 };
const sumRange = fixtureTemplate("sum_range", { budget: { timeMs: 1000, memoryMb: 64 }, randomInputs: 8 });

// Oracles written for these tests, one per built-in result type; `values` is a list of ints.
const ORACLES: Record<string, string> = {
    // A float, compared within a tolerance (numpy sums in another order).
    mean_of: `
def solution(values, *, lo, hi):
    return sum(values) / len(values)

def tests(*, lo, hi):
    yield ([1, 2, 4],), 7 / 3

def inputs(rng, *, lo, hi):
    return ([rng.randint(-50, 50) for _ in range(rng.randint(1, 9))],)
`,
    // A tuple.
    bounds_of: `
def solution(values, *, lo, hi):
    return (min(values), max(values))

def tests(*, lo, hi):
    yield ([3, 1, 2],), (1, 3)

def inputs(rng, *, lo, hi):
    return ([rng.randint(-50, 50) for _ in range(rng.randint(1, 9))],)
`,
    // A str.
    label_of: `
def solution(values, *, lo, hi):
    return "-".join(map(str, values))

def tests(*, lo, hi):
    yield ([3, 1, 2],), "3-1-2"

def inputs(rng, *, lo, hi):
    return ([rng.randint(-50, 50) for _ in range(rng.randint(0, 9))],)
`,
    // A dict (counts of each value).
    counts_of: `
def solution(values, *, lo, hi):
    out = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out

def tests(*, lo, hi):
    yield ([3, 1, 3],), {3: 2, 1: 1}

def inputs(rng, *, lo, hi):
    return ([rng.randint(0, 5) for _ in range(rng.randint(0, 12))],)
`,
    // The same, compared with == as EvalPlus compares (an oracle's own compare).
    counts_eq: `
def solution(values, *, lo, hi):
    out = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out

def tests(*, lo, hi):
    yield ([3, 1, 3],), {3: 2, 1: 1}

def inputs(rng, *, lo, hi):
    return ([rng.randint(0, 5) for _ in range(rng.randint(0, 12))],)

def compare(expected, actual, **params):
    return expected == actual
`,
    // A list kept as its digest, as an imported problem keeps an output too large to store: the
    // answer's harness sends the digest of its result (digest.py) instead of the result.
    sorted_digest: `
from eddy_sandbox.digest import digest


class Digested:
    def __init__(self, value):
        self.d = digest(value)

    @property
    def eddy_digest(self):
        return self.d

    @property
    def eddy_value(self):
        return self.d

    def __repr__(self):
        return "<an output compared by its digest>"


def solution(values, *, lo, hi):
    return Digested(sorted(values))

def compare(expected, actual, **params):
    return type(actual) is str and actual == expected.d

def tests(*, lo, hi):
    yield ([3, 1, 2],), Digested([1, 2, 3])

def inputs(rng, *, lo, hi):
    return ([rng.randint(-50, 50) for _ in range(rng.randint(0, 9))],)
`,
    // A tuple, compared with ==.
    bounds_eq: `
def solution(values, *, lo, hi):
    return (min(values), max(values))

def tests(*, lo, hi):
    yield ([3, 1, 2],), (1, 3)

def inputs(rng, *, lo, hi):
    return ([rng.randint(-50, 50) for _ in range(rng.randint(1, 9))],)

def compare(expected, actual, **params):
    return expected == actual
`
};

let dir: string;
let pool: JudgePool;
const templates: Record<string, Template> = {};

beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "eddy-subclass-"));
    for (const [name, source] of Object.entries(ORACLES)) {
        const oracleFile = path.join(dir, name + ".py");
        writeFileSync(oracleFile, source);
        templates[name] = {
            ...fixtureTemplate(name, { budget: { timeMs: 1000, memoryMb: 64 }, randomInputs: 8 }),
            id: "subclass_" + name,
            function: name,
            oracleFile,
            oracleHash: name + "-" + Date.now(),
            comparator: name === "mean_of" ? "float:1e-9" : "ordered"
        };
    }
    pool = await JudgePool.start({ workers: 1, cache: new MemoryVerdictCache() });
});
afterAll(async () => {
    await pool?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
});

async function judge(template: Template, code: string) {
    // A comment that changes each run: no verdict comes from a cache.
    return pool.judge({ template, bindings, code: `${code}\n# ${Date.now()} ${Math.random()}\n` });
}

// A class body that makes every method of note an error: none may run while the result is read.
const HOSTILE_METHODS = [
    "__repr__", "__str__", "__iter__", "__reversed__", "__len__", "__getitem__", "__contains__", "__eq__", "__ne__",
    "__bool__", "__float__", "__int__", "__index__", "__complex__", "__format__", "__reduce__", "__reduce_ex__",
    "__getnewargs__", "__copy__", "__deepcopy__", "keys", "values", "items", "get", "copy", "__missing__", "__getattr__"
];
// (`key`: a dict key's, whose hashing and equality stay its base type's.)
const hostileBody = (key = false) =>
    [
        "    def _no(self, *a, **k):",
        "        raise RuntimeError('the judge ran the answer\\'s own method')",
        ...HOSTILE_METHODS.filter((m) => !key || (m !== "__eq__" && m !== "__ne__")).map((m) => `    ${m} = _no`),
        ...(key ? [] : ["    __hash__ = _no"]),
        "    def __getattribute__(self, name):",
        "        raise RuntimeError('the judge looked up ' + name)"
    ].join("\n");

describe("a result of a subclass of a built-in type is its built-in value (the default comparator)", () => {
    it("an int subclass whose methods all raise, and an IntEnum member, pass an int question", async () => {
        const hostile = `class Total(int):\n${hostileBody()}\n\ndef sum_range(values):\n    return Total(sum(values[1:4]))\n`;
        expect(await judge(sumRange, hostile)).toMatchObject({ category: "passed" });
        const member = "import enum\n\ndef sum_range(values):\n    s = sum(values[1:4])\n    return enum.IntEnum('Sum', {'S': s}).S\n";
        expect(await judge(sumRange, member)).toMatchObject({ category: "passed" });
    });

    it("what the subclass says of itself is not read: an int that claims the right sum but holds another fails", async () => {
        const liar = [
            "class Liar(int):",
            "    def __new__(cls, right):",
            "        self = int.__new__(cls, right + 1)",
            "        self.right = right",
            "        return self",
            "    def __eq__(self, other):",
            "        return True",
            "    __hash__ = int.__hash__",
            "    def __int__(self):",
            "        return self.right",
            "    __index__ = __int__",
            "    def __repr__(self):",
            "        return repr(self.right)",
            "",
            "def sum_range(values):",
            "    return Liar(sum(values[1:4]))"
        ].join("\n");
        const v = await judge(sumRange, liar);
        expect(v.category).toBe("assertion_error");
        expect(v.detail).toMatch(/^fixed test 1: sum_range\(.*\) expected 6, got 7$/);
    });

    it("the built-in type still counts: a float subclass does not answer an int question", async () => {
        const v = await judge(sumRange, "class F(float):\n    pass\n\ndef sum_range(values):\n    return F(sum(values[1:4]))\n");
        expect(v.category).toBe("assertion_error");
        expect(v.detail).toMatch(/expected 6, got 6\.0$/);
    });

    it("a float subclass, a namedtuple, a tuple subclass, a str subclass and a dict subclass pass their questions", async () => {
        const cases: [string, string][] = [
            ["mean_of", `class Mean(float):\n${hostileBody()}\n\ndef mean_of(values):\n    return Mean(sum(values) / len(values))\n`],
            ["bounds_of", "from collections import namedtuple\nBounds = namedtuple('Bounds', 'low high')\n\ndef bounds_of(values):\n    return Bounds(min(values), max(values))\n"],
            ["bounds_of", `class Pair(tuple):\n${hostileBody()}\n\ndef bounds_of(values):\n    return Pair((min(values), max(values)))\n`],
            ["label_of", `class Label(str):\n${hostileBody()}\n\ndef label_of(values):\n    return Label('-'.join(map(str, values)))\n`],
            [
                "counts_of",
                `class Counts(dict):\n${hostileBody()}\n\nclass Key(int):\n${hostileBody(true)}\n\ndef counts_of(values):\n    out = dict.__new__(Counts)\n    for v in values:\n        dict.__setitem__(out, Key(v), dict.get(out, v, 0) + 1)\n    return out\n`
            ]
        ];
        for (const [name, code] of cases) {
            const v = await judge(templates[name]!, code);
            expect([name, v.category, v.detail]).toEqual([name, "passed", expect.any(String)]);
        }
    });

    it("a subclass value in the middle of a run is recorded in its place (the batch goes on around it)", async () => {
        // Calls 1-3 and 5-10 return IntEnum members; call 4 (random input 2) a wrong one.
        const code = [
            "import enum",
            "calls = []",
            "def sum_range(values):",
            "    calls.append(1)",
            "    s = sum(values[1:4]) + (1 if len(calls) == 4 else 0)",
            "    return enum.IntEnum('Sum', {'S': s}).S"
        ].join("\n");
        const v = await judge(sumRange, code);
        expect(v.category).toBe("fuzzing_failure");
        expect(v.detail).toMatch(/^random input 2: sum_range\(.*\): model solution gives (-?\d+), candidate gives (-?\d+)$/);
        const [, want, got] = /model solution gives (-?\d+), candidate gives (-?\d+)$/.exec(v.detail) ?? [];
        expect(Number(got)).toBe(Number(want) + 1);
    });
});

describe("the standard library's containers, compared with == as EvalPlus compares", () => {
    it("an OrderedDict, a defaultdict, a Counter and a subclass of one equal the dict they hold", async () => {
        const cases = [
            "from collections import OrderedDict\n\ndef counts_eq(values):\n    out = OrderedDict()\n    for v in values:\n        out[v] = out.get(v, 0) + 1\n    out.move_to_end(values[0]) if values else None\n    return out\n",
            "from collections import defaultdict\n\ndef counts_eq(values):\n    out = defaultdict(int)\n    for v in values:\n        out[v] += 1\n    return out\n",
            "from collections import Counter\n\ndef counts_eq(values):\n    return Counter(values)\n",
            `from collections import Counter\n\nclass Tally(Counter):\n${hostileBody()}\n\ndef counts_eq(values):\n    out = dict.__new__(Tally)\n    for v in values:\n        dict.__setitem__(out, v, dict.get(out, v, 0) + 1)\n    return out\n`
        ];
        for (const code of cases) {
            const v = await judge(templates.counts_eq!, code);
            expect([code.slice(0, 60), v.category]).toEqual([code.slice(0, 60), "passed"]);
        }
    });

    it("a namedtuple equals the tuple it holds", async () => {
        const code = "from collections import namedtuple\nBounds = namedtuple('Bounds', 'low high')\n\ndef bounds_eq(values):\n    return Bounds(min(values), max(values))\n";
        expect(await judge(templates.bounds_eq!, code)).toMatchObject({ category: "passed" });
    });
});

describe("an output compared by its digest", () => {
    it("a list subclass of int subclasses has the digest of the list of ints it holds; a deque has none", async () => {
        const sorted = `class Sorted(list):\n${hostileBody()}\n\nclass Item(int):\n${hostileBody()}\n\ndef sorted_digest(values):\n    return Sorted(Item(v) for v in sorted(values))\n`;
        expect(await judge(templates.sorted_digest!, sorted)).toMatchObject({ category: "passed" });
        const wrong = "import enum\n\ndef sorted_digest(values):\n    return [enum.IntEnum('V', {'X': v + 1}).X for v in sorted(values)]\n";
        expect(await judge(templates.sorted_digest!, wrong)).toMatchObject({ category: "assertion_error" });
        // deque([1, 2]) == [1, 2] is False in Python: no digest, as in EvalPlus.
        const deque = "from collections import deque\n\ndef sorted_digest(values):\n    return deque(sorted(values))\n";
        expect(await judge(templates.sorted_digest!, deque)).toMatchObject({ category: "assertion_error" });
    });
});

describe("numpy's scalars (where answers can import numpy)", () => {
    it("a numpy float64 and a numpy str_ are a float and a str", async (ctx) => {
        const probe = await judge(templates.mean_of!, "import numpy\n\ndef mean_of(values):\n    return sum(values) / len(values)\n");
        if (probe.category !== "passed") ctx.skip();
        const mean = await judge(templates.mean_of!, "import numpy as np\n\ndef mean_of(values):\n    return np.mean(np.array(values, dtype=np.float64))\n");
        expect(mean).toMatchObject({ category: "passed" });
        const label = await judge(templates.label_of!, "import numpy as np\n\ndef label_of(values):\n    return np.str_('-'.join(map(str, values)))\n");
        expect(label).toMatchObject({ category: "passed" });
        // A numpy int64 subclasses no built-in type, but its type is numpy's C code, which no answer
        // can change: it is read by its own `item`, as EvalPlus's == sees np.int64(6) == 6 (it was
        // sent as its 8 raw bytes before), at the top and inside a list alike.
        const int64 = await judge(sumRange, "import numpy as np\n\ndef sum_range(values):\n    return np.int64(sum(values[1:4]))\n");
        expect(int64).toMatchObject({ category: "passed" });
        const wrong64 = await judge(sumRange, "import numpy as np\n\ndef sum_range(values):\n    return np.int64(sum(values[1:4]) + 1)\n");
        expect(wrong64.category).toBe("assertion_error");
        // An array of several elements has no one value: not plain data, shown by its repr.
        const array = await judge(sumRange, "import numpy as np\n\ndef sum_range(values):\n    return np.array([sum(values[1:4])] * 2)\n");
        expect(array.category).toBe("assertion_error");
        expect(array.detail).toMatch(/got array\(\[/);
    });
});
