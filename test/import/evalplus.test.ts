import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unwrapMessages } from "../support/messages.js";

const BIN = path.resolve("dist/cli/bin.js");
/** Original problems and samples in EvalPlus's release layouts, with EvalPlus's own verdicts (see its README.md). */
const SAMPLE = path.resolve("test/import/evalplus-sample");
/**
 * One judge worker for every import, validation and replay here: each judges a few answers or
 * problems, and a second worker only adds its own start (a Python process and its sandbox's zygote).
 */
const WORKERS = "1";

interface Row {
    template: string;
    instance: number;
    round: number;
    category: string;
    detail: string;
}

interface Status {
    base_status: string;
    plus_status: string | null;
}

describe("HumanEval+ and MBPP+ as EvalPlus publishes them: imported whole, judged as EvalPlus judges", () => {
    let dir: string;
    let db: string;
    let he: string;
    let mb: string;
    const eddy = (args: string[], env: Record<string, string> = {}) =>
        spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: { ...process.env, EDDY_DB: db, ...env } });
    const rows = (run: string): Row[] => {
        const r = eddy(["export", run]);
        expect(r.status, r.stderr).toBe(0);
        // Rounds a task has no sample for are 'missing' (tasks have different sample counts).
        return r.stdout.trim().split("\n").map((l) => JSON.parse(l) as Row).filter((x) => x.category !== "missing");
    };
    const samplesRun = (file: string, templates: string, extra: string[] = []): string => {
        const r = eddy(["import", "evalplus-samples", file, "--templates", templates, "--json", "--judge-workers", WORKERS, ...extra]);
        expect(r.status, r.stderr).toBe(0);
        return (JSON.parse(r.stdout) as { runId: string }).runId;
    };
    /** EvalPlus's verdict per (template, round), read from its results file: correct when base and plus pass. */
    const published = (file: string, idOf: (taskId: string) => string): Map<string, boolean> => {
        const doc = JSON.parse(readFileSync(file, "utf8")) as { eval: Record<string, Status[]> };
        const out = new Map<string, boolean>();
        for (const [task, list] of Object.entries(doc.eval)) list.forEach((s, n) => out.set(`${idOf(task)}|${n}`, s.base_status === "pass" && s.plus_status === "pass"));
        return out;
    };

    beforeAll(() => {
        dir = mkdtempSync(path.join(tmpdir(), "eddy-evalplus-"));
        db = path.join(dir, "eddy.db");
        he = path.join(dir, "he");
        mb = path.join(dir, "mb");
        const a = eddy(["import", "humaneval", path.join(SAMPLE, "HumanEvalPlus-eddy.jsonl"), "--out", he, "--workers", WORKERS]);
        expect(a.status, a.stderr).toBe(0);
        const b = eddy(["import", "mbpp", path.join(SAMPLE, "MbppPlus-eddy.jsonl"), "--out", mb, "--workers", WORKERS]);
        expect(b.status, b.stderr).toBe(0);
    }, 240_000);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("imports every problem, its expected outputs computed once and kept beside its oracle with EvalPlus's limits", () => {
        const summary = JSON.parse(readFileSync(path.join(he, "humaneval-import.json"), "utf8"));
        expect(summary.skipped).toEqual([]);
        expect(summary.templates.map((t: { taskId: string }) => t.taskId)).toEqual(["EddyPlus/0", "EddyPlus/1", "EddyPlus/2"]);
        expect(summary.templates[1]).toMatchObject({ function: "count_up", fixedTests: { base: 3, plus: 5, check: 0 } });
        // The plus input n = 1,000,011 has an answer of megabytes: computed here, once.
        expect(summary.templates[1].expectedBytes).toBeGreaterThan(10_000_000);
        expect(readdirSync(path.join(he, "oracles")).sort()).toEqual(["eddyplus_0.expected.json", "eddyplus_0.py", "eddyplus_1.expected.json", "eddyplus_1.py", "eddyplus_2.expected.json", "eddyplus_2.py"]);
        // 3 base inputs at max(4 s, 4 x their time) + 2 s, and as much for the plus group: EvalPlus's ceiling.
        expect(readFileSync(path.join(he, "templates", "eddyplus_0.yaml"), "utf8")).toContain("budget: {time_ms: 28000, memory_mb: 4096}");
        const mbpp = JSON.parse(readFileSync(path.join(mb, "humaneval-import.json"), "utf8"));
        expect(mbpp).toMatchObject({ dataset: "mbpp", skipped: [] });
        expect(mbpp.templates.map((t: { id: string }) => t.id)).toEqual(["mbpp_2", "mbpp_737", "mbpp_901"]);
    });

    it("templates validate and a reference run with default settings pass every problem and say once that the neighbourhoods are smaller than M", () => {
        const env = { EDDY_TEMPLATES: path.join(he, "templates"), EDDY_ORACLES: path.join(he, "oracles") };
        const v = eddy(["templates", "validate", "--workers", WORKERS], env);
        expect(v.status, v.stdout + v.stderr).toBe(0);
        expect(v.stdout).toContain("3/3 template(s) valid");
        expect(v.stderr.match(/hold fewer than 100 instances/g)).toHaveLength(1);
        expect(v.stderr).not.toMatch(/distinct valid tuples/);
        const r = eddy(["run", "--backend", "reference", "--templates", "all", "--wrapper", "completion", "--no-progress"], env);
        expect(r.status, r.stderr).toBe(0);
        expect(r.stderr.match(/3 template\(s\) hold fewer than 100 instances, and all they hold are used/g)).toHaveLength(1);
        const run = r.stdout.trim().split("\n").pop()!;
        const got = rows(run);
        // Every instance a template has, in every round (R = 5 by default).
        expect(got).toHaveLength(3 * 5);
        expect(got.every((x) => x.category === "passed")).toBe(true);
        const report = JSON.parse(eddy(["report", run, "--format", "json"]).stdout);
        expect(report.configs[0]).toMatchObject({ AS: 1, CCS: 1 });
        const dry = eddy(["run", "--backend", "reference", "--templates", "all", "--dry-run"], env);
        expect(dry.stdout).toContain("queries:      15");
        expect(dry.stdout).toContain("note:         3 template(s) hold fewer than 100 instances");
    }, 240_000);

    it.each([
        ["HumanEval+", "samples", () => he, (t: string) => t.toLowerCase().replace("/", "_")],
        ["MBPP+", "mbpp-samples", () => mb, (t: string) => t.toLowerCase().replace("/", "_")]
    ])("re-judges %s samples with EvalPlus's verdicts: every sample agrees", (_name, stem, folder, idOf) => {
        const run = samplesRun(path.join(SAMPLE, `${stem}.jsonl`), folder());
        const want = published(path.join(SAMPLE, `${stem}.eval_results.json`), idOf);
        const got = rows(run);
        expect(got).toHaveLength(want.size);
        for (const x of got) expect([x.template, x.round, x.category === "passed"]).toEqual([x.template, x.round, want.get(`${x.template}|${x.round}`)]);
        // Both verdicts kinds occur, so agreement is not a coincidence of all-pass or all-fail.
        expect(new Set(got.map((x) => x.category === "passed"))).toEqual(new Set([true, false]));
        const text = eddy(["report", run]).stdout;
        expect(text).toContain("Agreement with EvalPlus's published verdicts");
        expect(text).toMatch(new RegExp(`\\n\\s+${want.size}\\s+${want.size}\\s+100\\.0%`));
    }, 240_000);

    it("judges find_zero by the polynomial's value (EvalPlus's special oracle), another zero than the canonical one included", () => {
        const prompt = JSON.parse(readFileSync(path.join(SAMPLE, "HumanEvalPlus-eddy.jsonl"), "utf8").split("\n")[0]!).prompt as string;
        const file = path.join(dir, "zeros.jsonl");
        const lines = [
            // [1, -3, 0, 1] has three real zeros; the canonical bisection finds one, this the largest.
            { task_id: "EddyPlus/0", solution: prompt + "    x = 50.0\n    for _ in range(200):\n        d = sum(i * c * x ** (i - 1) for i, c in enumerate(xs) if i)\n        x = x - poly(xs, x) / d if d else x + 1\n    return x\n" },
            { task_id: "EddyPlus/0", completion: "    return 1.0\n" }
        ];
        writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
        const got = rows(samplesRun(file, he, ["--model", "zeros"]));
        expect(got.map((x) => x.category === "passed")).toEqual([true, false]);
    }, 120_000);

    it("an answer that is not plain data (a Counter) is compared whole, as EvalPlus compares it in-process, however long its repr", () => {
        const problem = {
            task_id: "EddyObj/0",
            prompt: 'from collections import Counter\n\n\ndef letter_counts(text: str):\n    """A Counter of the letters of text."""\n',
            canonical_solution: "    return Counter(c for c in text if c.isalpha())\n",
            test: "\n\ndef check(candidate):\n    pass\n",
            entry_point: "letter_counts",
            contract: "",
            base_input: [["abca"], [""]],
            // Every letter, both cases: a repr of about 500 characters, past the 300 shown of an answer.
            plus_input: [["Mississippi"], ["The quick brown fox jumps over the lazy dog; PACK MY BOX WITH FIVE DOZEN LIQUOR JUGS"]],
            atol: 0
        };
        const file = path.join(dir, "counter.jsonl");
        writeFileSync(file, JSON.stringify(problem) + "\n");
        const out = path.join(dir, "counter");
        const imp = eddy(["import", "humaneval", file, "--out", out, "--workers", WORKERS]);
        expect(imp.status, imp.stderr).toBe(0);
        const samples = path.join(dir, "counter-samples.jsonl");
        const lines = [
            { task_id: "EddyObj/0", completion: "    c = Counter()\n    for ch in text:\n        if ch.isalpha():\n            c[ch] += 1\n    return c\n" },
            { task_id: "EddyObj/0", completion: "    return Counter(text.lower())\n" },
            { task_id: "EddyObj/0", completion: "    return dict(Counter(c for c in text if c.isalpha()))\n" },
            // Wrong only in the count of 'Z', whose entry comes after the first 300 characters of the repr.
            { task_id: "EddyObj/0", completion: "    c = Counter(ch for ch in text if ch.isalpha())\n    if 'Z' in c:\n        c['Z'] += 1\n    return c\n" }
        ];
        writeFileSync(samples, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
        // Counter == Counter; lower-casing loses "Mississippi"'s M; a dict equals a Counter; one count off is wrong.
        const got = rows(samplesRun(samples, out, ["--model", "counter"]));
        expect(got.map((x) => x.category === "passed")).toEqual([true, false, true, false]);
    }, 240_000);

    it("expected outputs larger than the answer's 32 MB cap: the problem comes in, a correct answer passes, an answer over twice their size is refused", () => {
        const problem = {
            task_id: "EddyBig/0",
            prompt: 'def dashes(n: int) -> str:\n    """A string of n dashes."""\n',
            canonical_solution: "    return '-' * n\n",
            test: "\n\ndef check(candidate):\n    pass\n",
            entry_point: "dashes",
            contract: "",
            base_input: [[3]],
            // 36,000,000 bytes of outputs in all (34.3 MiB), each input alone under 16 MiB (kept whole, not as its digest).
            plus_input: [[12_000_000], [12_000_000], [12_000_000]],
            atol: 0
        };
        const file = path.join(dir, "big.jsonl");
        writeFileSync(file, JSON.stringify(problem) + "\n");
        const out = path.join(dir, "big");
        const imp = eddy(["import", "humaneval", file, "--out", out, "--workers", WORKERS, "--strict"]);
        expect(imp.status, imp.stderr).toBe(0);
        const samples = path.join(dir, "big-samples.jsonl");
        const lines = [
            { task_id: "EddyBig/0", completion: "    return ''.join('-' for _ in range(n))\n" },
            // Right on every input but the last plus input, five times too long there: past the cap
            // (results over twice the model solution's) there, with every earlier result right.
            { task_id: "EddyBig/0", completion: "    dashes.calls = getattr(dashes, 'calls', 0) + 1\n    return '-' * (n * 5 if dashes.calls == 4 else n)\n" },
            // Wrong on the base input already: the first failing input decides, before any cap.
            { task_id: "EddyBig/0", completion: "    return '-' * (n * 3)\n" }
        ];
        writeFileSync(samples, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
        const got = rows(samplesRun(samples, out, ["--model", "big"]));
        expect(got.map((x) => x.category)).toEqual(["passed", "resource_exhaustion", "assertion_error"]);
        expect(got[1]!.detail).toMatch(/output larger than 68\.\d MB \(2 x the model solution's outputs\)/);
        expect(got[2]!.detail).toMatch(/^fixed test 1: /);
    }, 240_000);

    it("an output too large to keep (over 16 MB) is stored as its digest and compared by it, exactly as == compares", () => {
        // MBPP+'s layout; one plus input whose answer is 1,210,000 tuples (about 20 MB as marshal writes it, what the 16 MB rule measures).
        const problem = {
            task_id: "Mbpp/9001",
            prompt: '"""\nWrite a function that lists every (x, y, x * y) with 0 <= x, y < n, x first, as tuples in a list.\nassert grid_products(2) == [(0, 0, 0), (0, 1, 0), (1, 0, 0), (1, 1, 1)]\n"""\n',
            code: "def grid_products(n):\n    return [(x, y, x * y) for x in range(n) for y in range(n)]\n",
            canonical_solution: "\ndef grid_products(n):\n    return [(x, y, x * y) for x in range(n) for y in range(n)]\n",
            entry_point: "grid_products",
            test_list: ["assert grid_products(2) == [(0, 0, 0), (0, 1, 0), (1, 0, 0), (1, 1, 1)]"],
            test_imports: [],
            test: "\ninputs = []\nresults = []\n",
            assertion: "\nassert grid_products(2) == [(0, 0, 0), (0, 1, 0), (1, 0, 0), (1, 1, 1)]\n",
            base_input: [[2], [3]],
            plus_input: [[0], [1100]],
            atol: 0,
            contract: "",
            source_file: "eddy"
        };
        const file = path.join(dir, "grid.jsonl");
        writeFileSync(file, JSON.stringify(problem) + "\n");
        const out = path.join(dir, "grid");
        const imp = eddy(["import", "mbpp", file, "--out", out, "--workers", WORKERS, "--strict"]);
        expect(imp.status, imp.stderr).toBe(0);
        const summary = JSON.parse(readFileSync(path.join(out, "humaneval-import.json"), "utf8"));
        expect(summary.templates[0]).toMatchObject({ digestOutputs: 1 });
        // The expected outputs file holds the digest, not the 20 MB.
        expect(summary.templates[0].expectedBytes).toBeLessThan(10_000);
        const env = { EDDY_TEMPLATES: path.join(out, "templates"), EDDY_ORACLES: path.join(out, "oracles") };
        const v = eddy(["templates", "validate", "--workers", WORKERS], env);
        expect(v.status, v.stdout + v.stderr).toBe(0);
        const big = "    if n > 1000:\n";
        const solutions = [
            // Right, built another way.
            "def grid_products(n):\n    out = []\n    for x in range(n):\n        for y in range(n):\n            out.append((x, y, x * y))\n    return out\n",
            // Right as == says: 6.0 == 6, True == 1 (each where the value is that integer).
            `def grid_products(n):\n    out = [(x, y, x * y) for x in range(n) for y in range(n)]\n${big}        out = [(x, True if y == 1 else y, float(p)) for x, y, p in out]\n    return out\n`,
            // One value off, deep inside the large answer only.
            `def grid_products(n):\n    out = [(x, y, x * y) for x in range(n) for y in range(n)]\n${big}        x, y, p = out[len(out) // 2 + 7]\n        out[len(out) // 2 + 7] = (x, y, p + 1)\n    return out\n`,
            // Lists where the answer has tuples ([1, 2] != (1, 2) for ==), in the large answer only.
            `def grid_products(n):\n    out = [(x, y, x * y) for x in range(n) for y in range(n)]\n${big}        out = [list(t) for t in out]\n    return out\n`,
            // A tuple subclass that says it equals anything, holding wrong values: compared by its
            // built-in value, never by its own __eq__ (EvalPlus's == would call it and pass it).
            `class Same(tuple):\n    def __eq__(self, other):\n        return True\n    __hash__ = tuple.__hash__\n\ndef grid_products(n):\n    out = [(x, y, x * y) for x in range(n) for y in range(n)]\n${big}        out = [Same((x, y, p + 1)) for x, y, p in out]\n    return out\n`,
            // A list subclass whose iteration shows the right answer over an empty list.
            `class Shown(list):\n    def __init__(self, real):\n        self.real = real\n    def __iter__(self):\n        return iter(self.real)\n    def __len__(self):\n        return len(self.real)\n\ndef grid_products(n):\n    out = [(x, y, x * y) for x in range(n) for y in range(n)]\n${big}        return Shown(out)\n    return out\n`
        ];
        const samples = path.join(dir, "grid-samples.jsonl");
        writeFileSync(samples, solutions.map((s) => JSON.stringify({ task_id: "Mbpp/9001", solution: s })).join("\n") + "\n");
        const got = rows(samplesRun(samples, out, ["--model", "grid"]));
        expect(got.map((x) => x.category), JSON.stringify(got.map((x) => x.detail))).toEqual(["passed", "passed", "assertion_error", "assertion_error", "assertion_error", "assertion_error"]);
        // The large input (fixed test 4) is the one that fails, compared by its digest.
        for (const r of got.slice(2)) expect(r.detail).toMatch(/^fixed test 4: .*expected <an output compared by its digest, sha256:[0-9a-f]{64}>, got /);
    }, 240_000);

    it("expected outputs past the answer's default limits in integer size and in values (as HumanEval+'s /83 and /100): a correct answer passes", () => {
        const problem = {
            task_id: "EddyWide/0",
            prompt: 'def widen(k: int):\n    """k = 0: ten to the millionth power; otherwise the list 0 .. 1,100,000 - k."""\n',
            canonical_solution: "    return 10 ** 1_000_000 if k == 0 else list(range(1_100_000 - k))\n",
            test: "\n\ndef check(candidate):\n    pass\n",
            entry_point: "widen",
            contract: "",
            // An integer of 221,000 15-bit digits (the default limit is 200,000); a list of 1,099,999 values (the default bound 1,000,000).
            base_input: [[0]],
            plus_input: [[1]],
            atol: 0
        };
        const file = path.join(dir, "wide.jsonl");
        writeFileSync(file, JSON.stringify(problem) + "\n");
        const out = path.join(dir, "wide");
        const imp = eddy(["import", "humaneval", file, "--out", out, "--workers", WORKERS, "--strict"]);
        expect(imp.status, imp.stderr).toBe(0);
        const samples = path.join(dir, "wide-samples.jsonl");
        const lines = [
            { task_id: "EddyWide/0", completion: "    if k == 0:\n        return 10 ** 500_000 * 10 ** 500_000\n    return [i for i in range(1_100_000 - k)]\n" },
            { task_id: "EddyWide/0", completion: "    return 10 ** 1_000_000 + 1 if k == 0 else list(range(1_100_000 - k))\n" }
        ];
        writeFileSync(samples, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
        const got = rows(samplesRun(samples, out, ["--model", "wide"]));
        expect(got.map((x) => x.category)).toEqual(["passed", "assertion_error"]);
    }, 240_000);

    it("each input is timed on its own as EvalPlus times it: one input over max(4 s, 4 x the canonical solution's time) fails though the whole answer is within the sum", () => {
        const problem = {
            task_id: "EddySlow/0",
            prompt: 'def doubled(n: int) -> int:\n    """Twice n."""\n',
            canonical_solution: "    return 2 * n\n",
            test: "\n\ndef check(candidate):\n    pass\n",
            entry_point: "doubled",
            contract: "",
            base_input: [[1], [2], [3]],
            plus_input: [[4], [5]],
            atol: 0
        };
        const file = path.join(dir, "slow.jsonl");
        writeFileSync(file, JSON.stringify(problem) + "\n");
        const out = path.join(dir, "slow");
        const imp = eddy(["import", "humaneval", file, "--out", out, "--workers", WORKERS, "--strict"]);
        expect(imp.status, imp.stderr).toBe(0);
        // The judge's host factor scales the 4 s (reference machine) to this machine's CPU time.
        const f = spawnSync("python3", ["-c", "from eddy_judge.budget import host_factor; print(host_factor())"], { encoding: "utf8", env: { ...process.env, PYTHONPATH: path.resolve("src/judge/python") } });
        expect(f.status, f.stderr).toBe(0);
        const spendS = (4 * Number(f.stdout.trim()) + 1).toFixed(2);
        const samples = path.join(dir, "slow-samples.jsonl");
        const lines = [
            { task_id: "EddySlow/0", completion: "    return n + n\n" },
            // Right on every input, but one input alone takes a second of CPU more than its limit.
            { task_id: "EddySlow/0", completion: `    import time\n    if n == 2:\n        t = time.process_time()\n        while time.process_time() - t < ${spendS}:\n            pass\n    return n + n\n` }
        ];
        writeFileSync(samples, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
        const got = rows(samplesRun(samples, out, ["--model", "slow"]));
        expect(got.map((x) => x.category)).toEqual(["passed", "resource_exhaustion"]);
        // Stopped as that input passed its limit (the answer's harness watches each call), not at the sum.
        expect(got[1]!.detail).toMatch(/^CPU time limit of one input exceeded: \d+ ms of CPU time, over its own limit of \d+ ms on fixed test 2$/);
    }, 240_000);

    it("a canonical solution that empties its argument list leaves the stored inputs as they were (validate and a run agree)", () => {
        const problem = {
            task_id: "EddyMut/0",
            prompt: 'def drain_total(values: list) -> int:\n    """Sum of the values (the list may be consumed)."""\n',
            canonical_solution: "    total = 0\n    while values:\n        total += values.pop()\n    return total\n",
            test: "\n\ndef check(candidate):\n    pass\n",
            entry_point: "drain_total",
            contract: "",
            base_input: [[[1, 2, 3]], [[5]], [[]]],
            plus_input: [[[10, 20, 30, 40]], [[-1, 1]]],
            atol: 0
        };
        const file = path.join(dir, "mutating.jsonl");
        writeFileSync(file, JSON.stringify(problem) + "\n");
        const out = path.join(dir, "mutating");
        expect(eddy(["import", "humaneval", file, "--out", out, "--workers", WORKERS]).status).toBe(0);
        const v = eddy(["templates", "validate", "--workers", WORKERS], { EDDY_TEMPLATES: path.join(out, "templates"), EDDY_ORACLES: path.join(out, "oracles") });
        expect(v.status, v.stdout + v.stderr).toBe(0);
        const samples = path.join(dir, "mutating-samples.jsonl");
        writeFileSync(samples, [{ task_id: "EddyMut/0", completion: "    return sum(values)\n" }, { task_id: "EddyMut/0", completion: "    return sum(values[1:])\n" }].map((l) => JSON.stringify(l)).join("\n") + "\n");
        // A database of its own, so that the oracle is checked before judging here.
        const r = eddy(["import", "evalplus-samples", samples, "--templates", out, "--json", "--judge-workers", WORKERS], { EDDY_DB: path.join(dir, "mutating.db") });
        expect(r.status, r.stderr).toBe(0);
        const got = eddy(["export", JSON.parse(r.stdout).runId], { EDDY_DB: path.join(dir, "mutating.db") }).stdout.trim().split("\n").map((l) => JSON.parse(l) as Row);
        expect(got.map((x) => x.category === "passed")).toEqual([true, false]);
    }, 240_000);

    it("a run reads the stored expected outputs and never recomputes them; a changed outputs file is refused", () => {
        const copy = path.join(dir, "he-copy");
        cpSync(he, copy, { recursive: true });
        // What a run asks of the oracle (prepare.py, and the check of the oracle before judging):
        // its fixed tests, its one input, the model solution's answers. With the canonical solution
        // made to raise, all still answer, from the stored outputs (the oracle never runs it outside the sandbox).
        const probe = [
            "import importlib.util, sys",
            "spec = importlib.util.spec_from_file_location('o', sys.argv[1]); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)",
            "m.solution.__dict__['fn'] = lambda *a: 1 / 0",
            "tests = list(m.tests(task_id=m.TASK_ID))",
            "args = m.inputs(None, task_id=m.TASK_ID)",
            "answers = [m.solution(*a, task_id=m.TASK_ID) for a, _ in tests]",
            "print(len(tests), len(tests[5][1].value), m.solution(*args, task_id=m.TASK_ID) == tests[0][1].value, all(m.compare(e, x) for (_, e), x in zip(tests, answers)))"
        ].join("\n");
        const oracle = path.join(copy, "oracles", "eddyplus_1.py");
        const p = spawnSync("python3", ["-c", probe, oracle], { encoding: "utf8" });
        expect(p.stderr).toBe("");
        // 8 tests; the answer for n = 1,000,011 (6,888,983 characters) read, not computed.
        expect(p.stdout.trim()).toBe("8 6888983 True True");
        // Tampered outputs: the oracle refuses them rather than judging by them.
        const stored = path.join(copy, "oracles", "eddyplus_1.expected.json");
        const bytes = readFileSync(stored);
        bytes[bytes.length - 5] = bytes[bytes.length - 5]! ^ 1;
        writeFileSync(stored, bytes);
        const samples = path.join(dir, "count-up.jsonl");
        writeFileSync(samples, readFileSync(path.join(SAMPLE, "samples.jsonl"), "utf8").split("\n").filter((l) => l.includes('"EddyPlus/1"')).join("\n") + "\n");
        // A database of its own: verdicts cached under this oracle's hash were made with the true outputs.
        const r = eddy(["import", "evalplus-samples", samples, "--templates", copy, "--model", "tampered", "--judge-workers", WORKERS], { EDDY_DB: path.join(dir, "tampered.db") });
        expect(r.status).not.toBe(0);
        expect(unwrapMessages(r.stderr)).toContain("eddyplus_1.expected.json does not match this oracle");
    }, 240_000);

    it("a problem that cannot come in is listed with its reason and the rest import; --strict keeps all-or-nothing", () => {
        const bad = {
            task_id: "EddyBad/0",
            prompt: 'def middle_char(text: str) -> str:\n    """Return the middle character of a text of odd length."""\n',
            canonical_solution: "    return text[len(text) // 2] if len(text) % 2 else text[len(text)]\n",
            test: "\n\ndef check(candidate):\n    assert candidate('abc') == 'b'\n",
            entry_point: "middle_char",
            contract: "",
            base_input: [["abc"]],
            plus_input: [["even"]],
            atol: 0
        };
        // Runs at import, but gives other answers in the judge: refused there, after its files were written.
        const unstable = { ...bad, task_id: "EddyRandom/0", prompt: 'def jitter(x: float) -> float:\n    """x plus a random amount."""\n', canonical_solution: "    import random\n    return x + random.random()\n", entry_point: "jitter", base_input: [[1.0]], plus_input: [[2.0]] };
        const file = path.join(dir, "with-bad.jsonl");
        writeFileSync(file, readFileSync(path.join(SAMPLE, "HumanEvalPlus-eddy.jsonl"), "utf8").split("\n").slice(0, 1).join("\n") + "\n" + JSON.stringify(bad) + "\n" + JSON.stringify(unstable) + "\n");
        const out = path.join(dir, "partial");
        const r = eddy(["import", "humaneval", file, "--out", out, "--workers", WORKERS]);
        expect(r.status, r.stderr).toBe(0);
        // Each skipped problem with its reason on stderr, as it happens, and in the summary.
        expect(unwrapMessages(r.stderr)).toContain("eddy: warning: skipped EddyBad/0: the canonical solution raises on plus input 1: IndexError");
        expect(unwrapMessages(r.stderr)).toContain("eddy: warning: skipped EddyRandom/0: the canonical solution does not pass its own tests in eddy's judge");
        expect(r.stdout).toContain("1 template(s) imported");
        expect(JSON.parse(readFileSync(path.join(out, "humaneval-import.json"), "utf8")).skipped).toEqual([
            { taskId: "EddyBad/0", reason: expect.stringContaining("IndexError") },
            { taskId: "EddyRandom/0", reason: expect.stringContaining("in eddy's judge") }
        ]);
        // A skipped problem leaves nothing behind that 'templates validate' or a run would load.
        expect(readdirSync(path.join(out, "templates"))).toHaveLength(1);
        expect(readdirSync(path.join(out, "oracles")).filter((f) => f.startsWith("eddyrandom_0"))).toEqual([]);
        const strictOut = path.join(dir, "strict");
        const s = eddy(["import", "humaneval", file, "--out", strictOut, "--strict", "--workers", WORKERS]);
        expect(s.status).not.toBe(0);
        expect(unwrapMessages(s.stderr).trim().split("\n")).toHaveLength(1);
        expect(unwrapMessages(s.stderr)).toContain("EddyBad/0: the canonical solution raises on plus input 1");
        expect(existsSync(strictOut)).toBe(false);
        // Nothing at all could come in: one line, non-zero.
        const only = path.join(dir, "only-bad.jsonl");
        writeFileSync(only, JSON.stringify(bad) + "\n");
        const n = eddy(["import", "humaneval", only, "--out", path.join(dir, "none"), "--workers", WORKERS]);
        expect(n.status).not.toBe(0);
        expect(unwrapMessages(n.stderr)).toContain("nothing could be imported");
        // MBPP+ needs its inputs.
        const noInputs = path.join(dir, "mbpp-no-inputs.jsonl");
        writeFileSync(noInputs, JSON.stringify({ ...JSON.parse(readFileSync(path.join(SAMPLE, "MbppPlus-eddy.jsonl"), "utf8").split("\n")[0]!), plus_input: undefined }) + "\n");
        const m = eddy(["import", "mbpp", noInputs, "--out", path.join(dir, "none")]);
        expect(m.status).not.toBe(0);
        expect(unwrapMessages(m.stderr).trim().split("\n")).toHaveLength(1);
        expect(unwrapMessages(m.stderr)).toContain("an MBPP+ problem needs 'base_input' and 'plus_input'");
    }, 240_000);

    it("HumanEval's own layout: prompt, solution and test run as one program (the test calls a prompt helper and the function by its name)", () => {
        const out = path.join(dir, "plain");
        const r = eddy(["import", "humaneval", path.join(SAMPLE, "HumanEval-eddy.jsonl"), "--out", out, "--workers", WORKERS, "--json"]);
        expect(r.status, r.stderr).toBe(0);
        expect(JSON.parse(r.stdout).templates[0]).toMatchObject({ id: "eddyhe_0", fixedTests: { base: 0, plus: 0, check: 3 } });
        const prompt = JSON.parse(readFileSync(path.join(SAMPLE, "HumanEval-eddy.jsonl"), "utf8")).prompt as string;
        const file = path.join(dir, "plain-samples.jsonl");
        const lines = [
            { task_id: "EddyHE/0", completion: "    return sorted(numbers, key=lambda n: sum(map(int, str(abs(n)))))\n" },
            { task_id: "EddyHE/0", solution: prompt + "    return sorted(numbers, key=digit_total, reverse=True)\n" }
        ];
        writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
        const got = rows(samplesRun(file, out, ["--model", "plain"]));
        expect(got.map((x) => x.category === "passed")).toEqual([true, false]);
    }, 240_000);

    it("imported samples keep their model name (org/name) and export what is unknown of their generation as unknown, valid against inspect's and EEE's schemas", () => {
        const run = samplesRun(path.join(SAMPLE, "samples.jsonl"), he, ["--model", "acme-labs/coder-7b-instruct"]);
        const file = path.join(dir, "inspect.json");
        const i = eddy(["export", run, "--format", "inspect", "--out", file]);
        expect(i.status, i.stderr).toBe(0);
        const log = JSON.parse(readFileSync(file, "utf8"));
        expect(log.eval.model).toBe("acme-labs/coder-7b-instruct");
        // No temperature was given: unknown, as are eddy's own settings the replay used.
        expect(log.eval.model_generate_config).toMatchObject({ temperature: null, max_tokens: null, seed: null, system_message: null });
        expect(log.eval.model_args).toEqual({ imported_from: "EvalPlus", source: path.join(SAMPLE, "samples.jsonl") });
        expect(log.samples[0].input.map((m: { role: string }) => m.role)).toEqual(["user"]);
        expect(log.samples[0].input[0].content.startsWith("import math")).toBe(true);
        expect(JSON.stringify(log.plan)).not.toContain("completion");
        const validateInspect = spawnSync(
            "python3",
            ["-c", "import json,sys,jsonschema\ns=json.load(open(sys.argv[1]))\nprint(len(list(jsonschema.Draft202012Validator(s).iter_errors(json.load(open(sys.argv[2]))))))", path.resolve("test/export/fixtures/inspect-log-schema.json"), file],
            { encoding: "utf8" }
        );
        expect(validateInspect.stdout.trim(), validateInspect.stderr).toBe("0");

        const folder = path.join(dir, "eee");
        const e = eddy(["export", run, "--format", "eee", "--out", folder]);
        expect(e.status, e.stderr).toBe(0);
        const [aggFile, samplesFile] = e.stdout.trim().split("\n");
        expect(aggFile).toContain(path.join("data", "eddy", "acme-labs", "coder-7b-instruct"));
        const agg = JSON.parse(readFileSync(aggFile!, "utf8"));
        expect(agg.model_info).toMatchObject({ id: "acme-labs/coder-7b-instruct", developer: "acme-labs", name: "coder-7b-instruct", inference_engine: { name: "unknown" } });
        expect(agg.model_info.additional_details).not.toHaveProperty("model_sha256");
        for (const r of agg.evaluation_results) expect(r.generation_config.generation_args).toEqual({});
        const pass = agg.evaluation_results.find((r: { evaluation_result_id: string }) => r.evaluation_result_id === "pass");
        expect(pass.score_details.score).toBeCloseTo(6 / 14, 10);
        const records = readFileSync(samplesFile!, "utf8").trim().split("\n").map((l) => JSON.parse(l));
        expect(new Set(records.map((r) => `${r.evaluation_result_id}|${r.evaluation_name}`))).toEqual(new Set(["pass|eddy pass"]));
        // The problem's text, not eddy's prompt wrapper (which never reached this model).
        expect(records[0].input.raw.startsWith("import math")).toBe(true);
        expect(records.every((r) => !r.input.raw.includes("Complete this Python function"))).toBe(true);
        const validate = (schema: string, docs: string[]) =>
            spawnSync("python3", ["-c", "import json,sys,jsonschema\ns=json.load(open(sys.argv[1]))\nv=jsonschema.Draft7Validator(s)\nprint(sum(len(list(v.iter_errors(json.loads(d)))) for d in sys.argv[2:]))", schema, ...docs], { encoding: "utf8" });
        expect(validate(path.resolve("test/export/fixtures/eee-eval.schema.json"), [JSON.stringify(agg)]).stdout.trim()).toBe("0");
        expect(validate(path.resolve("test/export/fixtures/eee-instance_level_eval.schema.json"), records.map((r) => JSON.stringify(r))).stdout.trim()).toBe("0");
        // A name that is neither name nor org/name is one line, non-zero.
        const bad = eddy(["import", "evalplus-samples", path.join(SAMPLE, "samples.jsonl"), "--templates", he, "--model", "a/b/c"]);
        expect(bad.status).not.toBe(0);
        expect(unwrapMessages(bad.stderr).trim().split("\n")).toHaveLength(1);
        expect(unwrapMessages(bad.stderr)).toContain("model name 'a/b/c'");
    }, 240_000);
});
