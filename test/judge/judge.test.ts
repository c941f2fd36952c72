import { availableParallelism } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JudgePool } from "../../src/judge/JudgePool.js";
import { MemoryVerdictCache } from "../../src/judge/cache.js";
import { MODEL_CATEGORIES, type Category } from "../../src/vocabulary.js";
import { fixtureTemplate } from "./fixtures/templates.js";

const t = fixtureTemplate("sum_range", { budget: { timeMs: 1000, memoryMb: 64 } });
const bindings = { lo: 1, hi: 3 };
const CORRECT = "def sum_range(values):\n    return sum(values[1:4])\n";

let pool: JudgePool;
let cache: MemoryVerdictCache;

beforeAll(async () => {
    cache = new MemoryVerdictCache();
    pool = await JudgePool.start({ workers: 1, cache });
});
afterAll(async () => {
    await pool?.close();
});

async function category(code: string | null, template = t): Promise<Category> {
    const v = await pool.judge({ template, bindings, code });
    return v.category;
}

describe("verdict taxonomy (SPEC §2 order)", () => {
    const cases: [Category, string | null][] = [
        ["no_function", null],
        ["no_function", "x = 1\nprint(x)\n"],
        ["wrong_function_name", "def total(values):\n    return 0\n"],
        // Name checks come before syntax: a misnamed function with a syntax error is misnamed.
        ["wrong_function_name", "def total(values):\n    return (\n"],
        ["wrong_arg_count", "def sum_range(values, lo, hi):\n    return 0\n"],
        ["wrong_arg_count", "def sum_range():\n    return 0\n"],
        ["syntax_error", "def sum_range(values):\n    return sum(values[1:4]\n"],
        ["static_error", "def sum_range(values):\n    return int(math.fsum(values[1:4]))\n"],
        ["static_error", "def sum_range(values):\n    return helper(values)\n"],
        ["resource_exhaustion", "def sum_range(values):\n    while True:\n        pass\n"],
        ["resource_exhaustion", "def sum_range(values):\n    return sum_range(values)\n"],
        ["runtime_error", "def sum_range(values):\n    return values[1] + values[2] + values[3]\n"],
        ["runtime_error", "raise ValueError('at import')\ndef sum_range(values):\n    return 0\n"],
        ["assertion_error", "def sum_range(values):\n    return sum(values[1:3])\n"],
        // Right on the fixed tests (consecutive integers), wrong elsewhere: only random inputs catch it.
        ["fuzzing_failure", "def sum_range(values):\n    if values == list(range(len(values))):\n        return sum(values[1:4])\n    return 0\n"],
        ["passed", CORRECT]
    ];
    for (const [want, code] of cases)
        it(`${want}: ${JSON.stringify(code).slice(0, 60)}`, async () => {
            expect(await category(code)).toBe(want);
        });

    it("covers every model category", () => {
        expect(new Set(cases.map((c) => c[0]))).toEqual(new Set(MODEL_CATEGORIES));
    });

    it("accepts default arguments, *args, builtins, closures, classes, globals and comprehensions without a static error", async () => {
        const code = [
            "import math as m",
            "from functools import reduce",
            "LIMIT = 10",
            "class Acc:",
            "    def __init__(self):",
            "        self.total = 0",
            "def make():",
            "    k = 1",
            "    def inner(x):",
            "        return x * k",
            "    return inner",
            "def setup():",
            "    global LATE",
            "    LATE = 0",
            "def sum_range(values, extra=0, *rest):",
            "    setup()",
            "    a = Acc()",
            "    f = make()",
            "    a.total = reduce(lambda p, q: p + q, [f(v) for v in values[1:4]], LATE)",
            "    assert m.isfinite(LIMIT)",
            "    return a.total + len([y for y in range(0)]) + extra",
            ""
        ].join("\n");
        expect(await category(code)).toBe("passed");
    });

    it("gives details: the failing test, the disagreeing input with both outputs, the exception", async () => {
        const a = await pool.judge({ template: t, bindings, code: "def sum_range(values):\n    return sum(values[1:3])\n" });
        expect(a.detail).toMatch(/fixed test 1: sum_range\(\[0, 1, 2.*\]\) expected 6, got 3/);
        const f = await pool.judge({ template: t, bindings, code: "def sum_range(values):\n    return sum(values[1:4]) if values == list(range(len(values))) else 0\n" });
        expect(f.detail).toMatch(/random input \d+: sum_range\(.*\): model solution gives -?\d+, candidate gives 0/);
        const r = await pool.judge({ template: t, bindings, code: "def sum_range(values):\n    raise KeyError('boom')\n" });
        expect(r.detail).toContain("KeyError: 'boom' on fixed test 1");
        const s = await pool.judge({ template: t, bindings, code: "def sum_range(values):\n    return math.floor(1)\n" });
        expect(s.detail).toBe("undefined name: math");
    });
});

describe("comparators", () => {
    const reversed = "def sum_range(values):\n    return [v for v in values if v % 2 == 0][::-1]\n";
    const asSet = "def sum_range(values):\n    return set(v for v in values if v % 2 == 0)\n";
    it("ordered rejects a permutation, unordered accepts it", async () => {
        expect(await category(reversed, fixtureTemplate("evens", { comparator: "ordered" }))).toBe("assertion_error");
        expect(await category(reversed, fixtureTemplate("evens", { comparator: "unordered" }))).toBe("passed");
    });
    it("set compares as sets; ordered does not", async () => {
        expect(await category(asSet, fixtureTemplate("evens", { comparator: "set" }))).toBe("passed");
        expect(await category(asSet, fixtureTemplate("evens", { comparator: "unordered" }))).not.toBe("passed");
    });
    it("set: when the answer should be a set, a list with the same elements is not one", async () => {
        const asList = "def sum_range(values):\n    return [v for v in values if v % 2 == 0]\n";
        const setTemplate = fixtureTemplate("evens_set", { comparator: "set" });
        expect(await category(asSet, setTemplate)).toBe("passed");
        expect(await category("def sum_range(values):\n    return frozenset(v for v in values if v % 2 == 0)\n", setTemplate)).toBe("passed");
        expect(await category(asList, setTemplate)).toBe("assertion_error");
    });
    it("ordered is type-strict (issue #9): 6.0 is not 6, True is not 1, a tuple is not a list, a frozenset is not a set", async () => {
        const asFloat = "def sum_range(values):\n    return float(sum(values[1:4]))\n";
        const v = await pool.judge({ template: t, bindings, code: asFloat });
        expect(v.category).toBe("assertion_error");
        expect(v.detail).toContain("expected 6, got 6.0");
        // lo = hi = 1: the answers are 1 and 0, so a bool carries the same value.
        const asBool = "def sum_range(values):\n    s = sum(values[1:2])\n    return s == 1 if s in (0, 1) else s\n";
        expect((await pool.judge({ template: t, bindings: { lo: 1, hi: 1 }, code: asBool })).category).toBe("assertion_error");
        expect((await pool.judge({ template: t, bindings: { lo: 1, hi: 1 }, code: "def sum_range(values):\n    return sum(values[1:2])\n" })).category).toBe("passed");
        const asTuple = "def sum_range(values):\n    return tuple(v for v in values if v % 2 == 0)\n";
        expect(await category(asTuple, fixtureTemplate("evens", { comparator: "ordered" }))).toBe("assertion_error");
        const asFrozen = "def sum_range(values):\n    return frozenset(v for v in values if v % 2 == 0)\n";
        expect(await category(asFrozen, fixtureTemplate("evens_set", { comparator: "ordered" }))).toBe("assertion_error");
        expect(await category("def sum_range(values):\n    return {v for v in values if v % 2 == 0}\n", fixtureTemplate("evens_set", { comparator: "ordered" }))).toBe("passed");
    });
    it("unordered compares a multiset of type-strict elements", async () => {
        const floats = "def sum_range(values):\n    return [float(v) for v in values if v % 2 == 0][::-1]\n";
        expect(await category(floats, fixtureTemplate("evens", { comparator: "unordered" }))).toBe("assertion_error");
    });
    it("float:<tol> accepts values within the tolerance only", async () => {
        const near = "def sum_range(values):\n    return sum(values[1:4]) + 1e-12\n";
        const far = "def sum_range(values):\n    return sum(values[1:4]) + 1e-3\n";
        expect(await category(near, fixtureTemplate("sum_range", { comparator: "float:1e-9" }))).toBe("passed");
        expect(await category(far, fixtureTemplate("sum_range", { comparator: "float:1e-9" }))).toBe("assertion_error");
        expect(await category(near)).toBe("assertion_error");
    });
});

describe("arguments the question says not to modify", () => {
    // Right value, but the list it was given is emptied on the way.
    const consuming = "def sum_range(values):\n    total = sum(values[1:4])\n    values.clear()\n    return total\n";
    const sorting = "def sum_range(values):\n    total = sum(values[1:4])\n    values.sort()\n    return total\n";
    it("a call that changes them fails when the oracle sets KEEP_ARGUMENTS", async () => {
        const keep = fixtureTemplate("sum_range_keep");
        const v = await pool.judge({ template: keep, bindings, code: consuming });
        expect(v.category).toBe("assertion_error");
        expect(v.detail).toMatch(/^fixed test 1: sum_range\(\[0, 1, .*\]\) modified its argument/);
        // Fixed tests are in increasing order, so sorting them in place changes nothing: only random inputs catch it.
        expect(await category(sorting, keep)).toBe("fuzzing_failure");
        expect(await category(CORRECT, keep)).toBe("passed");
    });
    it("is allowed when the oracle does not forbid it", async () => {
        expect(await category(consuming)).toBe("passed");
    });
});

describe("harness failures are judge_error, never the model's", () => {
    it("an oracle that raises", async () => {
        const v = await pool.judge({ template: fixtureTemplate("broken_raises"), bindings, code: CORRECT });
        expect(v.category).toBe("judge_error");
        expect(v.detail).toContain("oracle raised while generating random inputs: ValueError: oracle bug");
    });
    it("a missing oracle", async () => {
        const v = await pool.judge({ template: fixtureTemplate("no_such_oracle"), bindings, code: CORRECT });
        expect(v.category).toBe("judge_error");
        expect(v.detail).toContain("oracle file not found");
    });
    it("an oracle that prints does not corrupt the protocol", async () => {
        expect(await category(CORRECT, fixtureTemplate("prints"))).toBe("passed");
    });
    it("judge errors are not cached", async () => {
        const before = cache.size;
        await pool.judge({ template: fixtureTemplate("broken_raises"), bindings, code: CORRECT });
        expect(cache.size).toBe(before);
    });
    it("says which limit fired; a sleeping answer is not cached (it can be the machine), a CPU-time verdict is", async () => {
        const before = cache.size;
        const tight = { ...t, budget: { timeMs: 300, memoryMb: 256 } };
        const slow = await pool.judge({ template: tight, bindings, code: "import time\ndef sum_range(values):\n    time.sleep(5)\n" });
        expect(slow.category).toBe("resource_exhaustion");
        expect(slow.limit).toBe("blocked");
        expect(slow.detail).toMatch(/^sleeping or blocked on fixed test 1: \d+ ms neither running nor waiting for a CPU \(limit 1000 ms\)/);
        expect(cache.size).toBe(before);
        const spin = await pool.judge({ template: tight, bindings, code: "def sum_range(values):\n    while True:\n        pass\n" });
        expect(spin.limit).toBe("cpu");
        expect(spin.cpuMs).toBeGreaterThan(spin.budgetMs! * 1.5);
        expect(spin.detail).toMatch(/^CPU time limit exceeded on fixed test 1: stopped after \d+ ms of CPU time; budget \d+ ms/);
        expect(cache.size).toBe(before + 1);
        await pool.judge({ template: t, bindings, code: "def sum_range(values):\n    return 1 / 0\n" });
        expect(cache.size).toBe(before + 2);
        // Memory and process limits are named too.
        const hog = await pool.judge({ template: { ...t, budget: { timeMs: 5000, memoryMb: 256 } }, bindings, code: "def sum_range(values):\n    hog = []\n    while True:\n        hog.append(' ' * 10**6)\n" });
        expect(hog.category).toBe("resource_exhaustion");
        expect(hog.detail).toMatch(/\(memory limit: 256 MB of address space\)$/);
        const forks = await pool.judge({ template: { ...t, budget: { timeMs: 5000, memoryMb: 256 } }, bindings, code: "import os, time\ndef sum_range(values):\n    while True:\n        if os.fork() == 0:\n            time.sleep(5)\n" });
        expect(forks.category).toBe("resource_exhaustion");
        expect(forks.detail).toMatch(/\(process limit: \d+ processes and threads\)$/);
    });
});

describe("verdict cache", () => {
    it("judges identical work once", async () => {
        const code = "def sum_range(values):\n    return sum(values[1:4])  # cache me\n";
        const first = await pool.judge({ template: t, bindings, code });
        expect(first.cached).toBeUndefined();
        const second = await pool.judge({ template: t, bindings, code });
        expect(second).toEqual({ ...first, cached: true });
        const other = await pool.judge({ template: t, bindings: { lo: 1, hi: 4 }, code });
        expect(other.cached).toBeUndefined();
        expect(other.category).toBe("assertion_error");
        const changedOracle = await pool.judge({ template: { ...t, oracleHash: "different" }, bindings, code });
        expect(changedOracle.cached).toBeUndefined();
    });
});

describe("reference answers", () => {
    it("renders the model solution as a passing answer and the mutants as failing ones", async () => {
        const src = await pool.answerSource(t, bindings);
        expect(src).toContain("def sum_range(values):\n    return _ref(values, lo=1, hi=3)");
        expect(await category(src)).toBe("passed");
        const names = await pool.mutants(t);
        expect(names).toEqual(["mutant_off_by_one", "mutant_exclusive_start", "mutant_first_only"]);
        for (const m of names) expect(await category(await pool.answerSource(t, bindings, m))).not.toBe("passed");
    });

    it("random inputs are seeded by (template id, tuple): the same disagreement on a fresh pool", async () => {
        const code = "def sum_range(values):\n    return sum(values[1:4]) if values == list(range(len(values))) else 0\n";
        const a = await pool.judge({ template: { ...t, oracleHash: "seed-a" }, bindings, code });
        const other = await JudgePool.start({ workers: 1 });
        try {
            const b = await other.judge({ template: { ...t, oracleHash: "seed-a" }, bindings, code });
            expect(b.detail).toBe(a.detail);
        } finally {
            await other.close();
        }
    });
});

describe("starting", () => {
    it("reports the isolation in force", () => {
        expect(pool.isolation.level).toContain("rlimits");
        expect(pool.isolation.network).toBe("namespace");
        expect(pool.isolation.sandboxed).toBe(true);
    });
    it("fails with one clear line when python is missing", async () => {
        await expect(JudgePool.start({ workers: 1, python: "/nonexistent/python3" })).rejects.toThrow(/\/nonexistent\/python3 not found/);
    });
});

describe("validateTemplate", () => {
    it("passes the solution everywhere, kills every mutant and reports where", async () => {
        const { validateTemplate } = await import("../../src/judge/validateTemplate.js");
        const instances = [
            { templateId: t.id, index: 0, params: [0, 0], bindings: { lo: 0, hi: 0 }, question: "" },
            { templateId: t.id, index: 1, params: [1, 3], bindings: { lo: 1, hi: 3 }, question: "" }
        ];
        const r = await validateTemplate(pool, t, instances);
        expect(r.solutionFailures).toEqual([]);
        expect(r.mutants.map((m) => [m.name, m.killed])).toEqual([
            ["mutant_off_by_one", true],
            ["mutant_exclusive_start", true],
            ["mutant_first_only", true]
        ]);
        // first_only returns values[lo]: right when lo == hi, so only the second instance kills it.
        expect(r.mutants[2]!.killedOn).toBe(1);
        expect(r.killRate).toBe(1);
    });

    it("reports a surviving mutant and a failing solution", async () => {
        const { validateTemplate } = await import("../../src/judge/validateTemplate.js");
        const only = [{ templateId: t.id, index: 0, params: [0, 0], bindings: { lo: 0, hi: 0 }, question: "" }];
        const r = await validateTemplate(pool, t, only);
        expect(r.mutants.find((m) => m.name === "mutant_first_only")).toEqual({ name: "mutant_first_only", killed: false });
        expect(r.killRate).toBeCloseTo(2 / 3);
        const wrongK = { ...t, oracleHash: "validate-b", function: "sum_range", arity: 2 };
        const bad = await validateTemplate(pool, wrongK, only);
        expect(bad.solutionFailures).toHaveLength(1);
        expect(bad.solutionFailures[0]!.verdict.category).not.toBe("passed");
    });
});

describe("what a verdict costs (issue #36)", () => {
    it("profile(): the same verdict as judge(), and what each phase cost, from the request to the keeper to the comparison", async () => {
        const code = `${CORRECT}# profiled ${Date.now()}\n`;
        const r = await pool.profile({ template: t, bindings, code });
        expect(r.category).toBe("passed");
        expect((await pool.judge({ template: t, bindings, code })).category).toBe("passed");
        const names = ["request to keeper", "keeper set-up", "clone keeper to candidate", "candidate scratch space and descriptors", "job to candidate", "rlimits, capabilities, seccomp", "static check", "harness ready", "load and calls", "keeper watching (the warm wait included)", "results read", "comparison", "worker, whole verdict"];
        for (const name of names) {
            expect(r.phases[name], name).toBeDefined();
            // Each of these ends with something its start caused, or in the same process: never negative.
            expect(r.phases[name]!.ms, name).toBeGreaterThanOrEqual(0);
            expect(r.phases[name]!.cpu_ms ?? 0, name).toBeGreaterThanOrEqual(0);
        }
        // The answer's own CPU time is the one the keeper measured for its verdict.
        expect(r.phases["load and calls"]!.cpu_ms).toBe(r.cpuMs);
        // The keeper's share of this answer and the candidate's whole life, with their minor page faults (copy-on-write after each fork).
        for (const name of ["keeper, per answer", "candidate, whole life"]) {
            expect(r.phases[name]?.minflt, name).toBeGreaterThan(0);
            expect(r.phases[name]!.cpu_ms, name).toBeGreaterThan(0);
        }
    });

    it("an answer's standard streams, made once in the zygote, are empty and see its own descriptors as it would have made them", async () => {
        // Made while the zygote's 1 and 2 were a pipe, as the answer's are: not seekable, not a terminal; stdin reads nothing.
        const code = [
            "import sys, os",
            "print('noise from the load')",
            "def sum_range(values):",
            "    print('noise', file=sys.stderr)",
            "    got = [sys.stdin.read(), sys.stdout.seekable(), sys.stderr.seekable(), sys.stdout.isatty(), sys.stdout.fileno(), sys.stderr.fileno(), sys.stdin.fileno()]",
            "    want = ['', False, False, False, 1, 2, 0]",
            "    return sum(values[1:4]) if got == want and sys.stdout.write('x') == 1 else ['streams', got]",
            `# ${Date.now()}`
        ].join("\n");
        for (let i = 0; i < 2; i++) {
            const v = await pool.judge({ template: { ...t, oracleHash: `${t.oracleHash}|streams-${i}` }, bindings, code });
            expect(v.detail).not.toContain("streams");
            expect(v.category).toBe("passed");
        }
    });

    it("each answer's sandbox is forked without CPython's at-fork handlers, yet draws random numbers of its own and runs threads", async () => {
        // random's module-level generator was reseeded by os.fork()'s handler; the candidate now does it itself.
        const code = (i: number): string =>
            `import random, threading\nseen = []\nth = threading.Thread(target=lambda: seen.append(random.getrandbits(62)))\nth.start(); th.join()\ndef sum_range(values):\n    return ['drew', seen[0], threading.active_count()]\n# ${Date.now()} ${i}\n`;
        const drawn = new Set<string>();
        for (let i = 0; i < 3; i++) {
            const v = await pool.judge({ template: t, bindings, code: code(i) });
            expect(v.category).not.toBe("passed");
            const m = /'drew', (\d+), \d+\]/.exec(v.detail);
            expect(m, v.detail).not.toBeNull();
            drawn.add(m![1]!);
        }
        expect(drawn.size).toBe(3);
    });

    it("the next answer's sandbox, forked while this one runs, sees none of the files it left", async () => {
        if (!pool.isolation.sandboxed) return; // without namespaces the scratch folders are shared (README)
        const n = `${process.pid}-${Date.now()}`;
        const places = JSON.stringify([`/tmp/left-${n}`, `/dev/shm/left-${n}`, `left-${n}`]);
        const leaves = `def sum_range(values):\n    for p in ${places}:\n        open(p, 'w').write('left')\n    return sum(values[1:4])\n`;
        const looks = `import os\ndef sum_range(values):\n    return [p for p in ${places} if os.path.exists(p)] or sum(values[1:4])\n`;
        // One worker: the second answer's sandbox is the one forked while the first ran.
        expect((await pool.judge({ template: t, bindings, code: leaves })).category).toBe("passed");
        const next = await pool.judge({ template: t, bindings, code: looks });
        expect(next.detail).not.toContain("left-");
        expect(next.category).toBe("passed");
    });

    it("an answer runs on one CPU: the one its worker sent the job from, for its threads too", async () => {
        if (availableParallelism() < 2) return; // one CPU: nothing to pin
        const code = `import os, threading\ndef sum_range(values):\n    seen = []\n    t = threading.Thread(target=lambda: seen.append(len(os.sched_getaffinity(0))))\n    t.start()\n    t.join()\n    return sum(values[1:4]) if len(os.sched_getaffinity(0)) == 1 and seen == [1] else ['cpus', os.sched_getaffinity(0), seen]\n# ${Date.now()}\n`;
        const v = await pool.judge({ template: t, bindings, code });
        expect(v.detail).not.toContain("cpus");
        expect(v.category).toBe("passed");
    });

    it("what the zygote prepares once for every candidate: the environment and a harness the answer cannot see or import", async () => {
        // The environment is set and the harness's modules listed in the zygote (not in each candidate): the answer must still see exactly its own.
        const home = pool.isolation.sandboxed ? "'/tmp/work'" : "os.getcwd()";
        const code = [
            "import os, sys",
            "def sum_range(values):",
            `    env = dict(os.environ); home = ${home}`,
            "    want = {'PATH': '/usr/local/bin:/usr/bin:/bin', 'LANG': 'C.UTF-8', 'HOME': home, 'TMPDIR': home}",
            "    left = [m for m in sys.modules if m.split('.')[0] in ('eddy_sandbox', 'eddy_judge', 'ctypes', '_ctypes')]",
            "    if env != want or left or os.getcwd() != home:",
            "        return ['seen', env, left, os.getcwd()]",
            "    return sum(values[1:4])",
            `# ${Date.now()}`
        ].join("\n");
        for (let i = 0; i < 2; i++) {
            // Twice: the second time from a sandbox forked while the first ran, its static check remembered.
            const v = await pool.judge({ template: { ...t, oracleHash: `${t.oracleHash}|prepared-${i}` }, bindings, code });
            expect(v.detail).not.toContain("seen");
            expect(v.category).toBe("passed");
        }
        // Neither the zygote's package (the harness's own) nor the worker's can be imported by an answer.
        for (const pkg of ["eddy_sandbox", "eddy_judge"]) {
            const hook = `import ${pkg}\ndef sum_range(values):\n    return sum(values[1:4])\n# ${Date.now()}\n`;
            expect((await pool.judge({ template: t, bindings, code: hook })).detail).toMatch(/tampering|No module named/);
        }
    });

    it("a code the static check refused is refused again in the same words for another instance (remembered by the worker)", async () => {
        const code = `def sum_range(values):\n    return helper_${Date.now()}(values)\n`;
        const first = await pool.judge({ template: t, bindings, code });
        const again = await pool.judge({ template: t, bindings: { lo: 2, hi: 4 }, code });
        expect(first.category).toBe("static_error");
        expect(again.cached).toBeUndefined(); // another instance: not the verdict cache
        expect([again.category, again.detail]).toEqual([first.category, first.detail]);
    });

    it("results larger than the result pipe, and calls that return faster than the worker reads, are judged as before", async () => {
        // About 1 MB of results in 8 calls (the worker reads them in large chunks), then 400 calls of nothing
        // (frames written faster than the worker, which reads them in batches, wakes).
        const long = fixtureTemplate("long_range", { randomInputs: 7 });
        const right = `def sum_range(n):\n    return list(range(1, n))\n# ${Date.now()}\n`;
        expect(await pool.judge({ template: long, bindings, code: right })).toMatchObject({ category: "passed", detail: "1 fixed tests and 7 random inputs agree" });
        const last = `def sum_range(n):\n    out = list(range(1, n))\n    if n > 3:\n        out[-1] = -1\n    return out\n# ${Date.now()}\n`;
        const v = await pool.judge({ template: long, bindings, code: last });
        expect(v.category).toBe("fuzzing_failure");
        expect(v.detail).toMatch(/^random input 1: sum_range\(\d+\): model solution gives \[1, 2, 3, /);
        const many = { ...t, randomInputs: 400 };
        expect(await pool.judge({ template: many, bindings, code: `${CORRECT}# ${Date.now()}\n` })).toMatchObject({ category: "passed", detail: "2 fixed tests and 400 random inputs agree" });
        const late = `calls = []\ndef sum_range(values):\n    calls.append(1)\n    return sum(values[1:4]) if len(calls) < 402 else 'late'\n# ${Date.now()}\n`;
        const v2 = await pool.judge({ template: many, bindings, code: late });
        expect(v2.category).toBe("fuzzing_failure");
        expect(v2.detail).toMatch(/^random input 400: sum_range\(.*\): model solution gives -?\d+, candidate gives 'late'$/);
    });

    it("calls run in batches, each call's frame written by the answer's thread as the call ends: a process that dies in call k leaves the calls before it recorded, and a thread left running in the middle of a run is that call's", async () => {
        // 2 fixed tests, then random inputs: the 6th call is random input 4. Right until then.
        const dies = `import os\ncalls = []\ndef sum_range(values):\n    calls.append(1)\n    if len(calls) == 6:\n        os._exit(3)\n    return sum(values[1:4])\n# ${Date.now()}\n`;
        const v = await pool.judge({ template: t, bindings, code: dies });
        expect(v.category).toBe("runtime_error");
        expect(v.detail).toMatch(/random input 4\b/);
        const leaves = `import threading, time\ncalls = []\ndef sum_range(values):\n    calls.append(1)\n    if len(calls) == 5:\n        threading.Thread(target=time.sleep, args=(0.2,), daemon=True).start()\n    return sum(values[1:4])\n# ${Date.now()}\n`;
        const w = await pool.judge({ template: t, bindings, code: leaves });
        expect(w.category).toBe("runtime_error");
        expect(w.detail).toMatch(/^the answer left a thread running when its call \(sum_range\) returned .* on random input 3$/);
        // A value that is not plain data in the middle of a run (recorded by the harness's main
        // thread, its repr and content), then plain values again: the run goes on after it.
        const counter = `from collections import Counter\ncalls = []\ndef sum_range(values):\n    calls.append(1)\n    return Counter(values) if len(calls) == 4 else sum(values[1:4])\n# ${Date.now()}\n`;
        const c = await pool.judge({ template: t, bindings, code: counter });
        expect(c.category).toBe("fuzzing_failure");
        expect(c.detail).toMatch(/^random input 2: sum_range\(.*\): model solution gives -?\d+, candidate gives Counter\(/);
    });

    it("once it has used 25 ms of CPU time, an answer's threads may run on every CPU again (the keeper widens them)", async () => {
        if (availableParallelism() < 2) return;
        const code = `import os, time\ndef sum_range(values):\n    t = time.process_time()\n    while len(os.sched_getaffinity(0)) == 1 and time.process_time() - t < 0.3:\n        pass\n    return sum(values[1:4]) if len(os.sched_getaffinity(0)) > 1 else 'still on one CPU'\n# ${Date.now()}\n`;
        const v = await pool.judge({ template: { ...t, randomInputs: 1 }, bindings, code });
        expect(v.detail).not.toContain("one CPU");
        expect(v.category).toBe("passed");
    });
});
