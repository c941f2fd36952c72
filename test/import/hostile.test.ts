/**
 * Issue #43: a problems file is untrusted input. `eddy import humaneval|mbpp` ran each problem's
 * canonical solution unsandboxed, as whoever ran the import (root, in a lab), pickled what it
 * returned and unpickled it in every trusted judge worker; the oracle ran the problem's prompt and
 * check() in the trusted worker when it judged; a task id was pasted into the oracle's docstring.
 * Here, original problems in the HumanEval+ layout (none copied from a benchmark) do all of that:
 * none of it may run outside the sandbox, the ones that cannot come in are skipped with their
 * reasons, and the good ones still judge correctly. As root and as an ordinary user (nobody) who
 * owns a copy of eddy.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unwrapMessages } from "../support/messages.js";

const ROOT = path.resolve(".");
const BIN = path.join(ROOT, "dist/cli/bin.js");

interface Row {
    template: string;
    round: number;
    category: string;
    detail: string;
}

const evalplus = (task_id: string, prompt: string, entry_point: string, canonical_solution: string, base_input: unknown[][], plus_input: unknown[][]) => ({
    task_id,
    prompt,
    entry_point,
    canonical_solution,
    test: "\n\ndef check(candidate):\n    pass\n",
    contract: "",
    base_input,
    plus_input,
    atol: 0
});

/** Where a canary file would appear if the problem's code ran outside the sandbox. */
const canaries = (dir: string) => ({
    reduce: path.join(dir, "reduce-unpickled"),
    sly: path.join(dir, "sly-unpickled"),
    written: path.join(dir, "written-by-canonical"),
    injected: path.join(dir, "i"),
    check: path.join(dir, "written-by-check"),
    prompt: path.join(dir, "written-by-prompt")
});

/**
 * The hostile problems file. `dir` holds the canaries: it exists outside the sandbox only (the
 * sandbox's world has no host folders), so each problem also shows where its code ran.
 */
function hostileProblems(dir: string, tmpCanary: string): string {
    const c = canaries(dir);
    // An object whose unpickling runs code: pickle calls eval(...) with this text.
    const payload = (canary: string) =>
        `class Payload:\n    def __reduce__(self):\n        return (eval, (${JSON.stringify(`__import__('pathlib').Path(${JSON.stringify(canary)}).write_text('pwned') and 42`)},))\n\n\n`;
    const lines = [
        evalplus("Good/0", 'def word_lengths(words: list) -> list:\n    """The length of each word, in order."""\n', "word_lengths", "    return [len(w) for w in words]\n", [[["ab", "c"]], [[]]], [[["hello", "", "xyz"]], [["a", "bb", "ccc", "dddd"]]]),
        // OpenAI's HumanEval layout: check(candidate) is the test; it calls a helper of the prompt.
        {
            task_id: "GoodCheck/0",
            prompt: 'def twice(n: int) -> int:\n    return 2 * n\n\n\ndef quadruple(n: int) -> int:\n    """Four times n.\n    >>> quadruple(3)\n    12\n    """\n',
            entry_point: "quadruple",
            canonical_solution: "    return twice(twice(n))\n",
            test: "\n\ndef check(candidate):\n    assert candidate(3) == 12\n    assert candidate(-1) == twice(-2)\n    assert candidate(0) == 0\n"
        },
        // Returns an object whose unpickling writes a file (the attack of the issue).
        evalplus("Reduce/0", `${payload(c.reduce)}def scaled(n: int) -> int:\n    """n times 42."""\n`, "scaled", "    return Payload() if n == 2 else 42 * n\n", [[1]], [[2], [3]]),
        // The same, but only where it can see the host's folders: inside the sandbox it behaves.
        evalplus("Sly/0", `import os\n\n\n${payload(c.sly)}def answer(n: int) -> int:\n    """Always 42."""\n`, "answer", `    return Payload() if os.path.exists(${JSON.stringify(dir)}) else 42\n`, [[1]], [[2]]),
        // Writes a file on the host (a folder that exists only there), then answers.
        evalplus("Writes/0", 'def shout(s: str) -> str:\n    """s in capitals."""\n', "shout", `    open(${JSON.stringify(c.written)}, "w").write("pwned")\n    return s.upper()\n`, [["ab"]], [["Cd"]]),
        // Writes into /tmp, which the sandbox has too (a fresh one of its own): it imports, the host's /tmp is untouched.
        evalplus("TmpWrite/0", 'def echo(n: int) -> int:\n    """n."""\n', "echo", `    open(${JSON.stringify(tmpCanary)}, "w").write("pwned")\n    return n\n`, [[1]], [[5]]),
        // Never returns: spins, or sleeps.
        evalplus("Spin/0", 'def forever(n: int) -> int:\n    """n, eventually."""\n', "forever", "    while n > 1:\n        pass\n    return n\n", [[1]], [[2]]),
        evalplus("Sleep/0", 'def nap(n: int) -> int:\n    """n, after a rest."""\n', "nap", "    import time\n    if n > 1:\n        time.sleep(3600)\n    return n\n", [[1]], [[2]]),
        // Raises on one plus input.
        evalplus("Raises/0", 'def ratio(n: int) -> int:\n    """12 divided by (n - 3), rounded down."""\n', "ratio", "    return 12 // (n - 3)\n", [[4], [5]], [[6], [3], [7]]),
        // Its prompt's own module code writes a file when the program loads.
        evalplus("Prompt/0", `open(${JSON.stringify(c.prompt)}, "w").write("pwned")\n\n\ndef inc(n: int) -> int:\n    """n + 1."""\n`, "inc", "    return n + 1\n", [[1]], [[2]]),
        // A task id that closes the oracle's docstring and writes a file when the oracle loads.
        evalplus(`Inject/0"""\nopen(${JSON.stringify(c.injected)}, "w").write("pwned")\n"""`, 'def neg(n: int) -> int:\n    """-n."""\n', "neg", "    return -n\n", [[1], [0]], [[-7]]),
        // check() writes a file on the host (quietly, where it cannot), then tests as usual.
        {
            task_id: "CheckWrites/0",
            prompt: 'def last(items: list):\n    """The last item."""\n',
            entry_point: "last",
            canonical_solution: "    return items[-1]\n",
            test: `\n\ndef check(candidate):\n    try:\n        open(${JSON.stringify(c.check)}, "w").write("pwned")\n    except OSError:\n        pass\n    assert candidate([1, 2]) == 2\n    assert candidate(["x"]) == "x"\n`
        }
    ];
    return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

const IMPORTED = ["Good/0", "GoodCheck/0", "Sly/0", "TmpWrite/0", "Inject/0", "CheckWrites/0"];
const SKIPPED: [string, RegExp][] = [
    ["Reduce/0", /^the canonical solution returns a Payload on plus input 1, which is not plain data and cannot be stored/],
    ["Writes/0", /^the canonical solution raises on base input 1: FileNotFoundError/],
    ["Spin/0", /^the canonical solution did not finish within its CPU time limit at import, \d+ s of CPU time on this machine \(1 s on the reference machine x host factor [\d.]+\): stopped on plus input 1$/],
    ["Sleep/0", /^the canonical solution sleeps or waits instead of returning: stopped while sleeping or blocked: .* on plus input 1$/],
    ["Raises/0", /^the canonical solution raises on plus input 2: ZeroDivisionError: integer division or modulo by zero$/],
    ["Prompt/0", /^prompt \+ canonical_solution does not run: FileNotFoundError/]
];

/** Answers to the good problems, and what each must get. */
const SAMPLES: { task_id: string; solution: string; passes: boolean }[] = [
    { task_id: "Good/0", solution: "def word_lengths(words):\n    return list(map(len, words))\n", passes: true },
    { task_id: "Good/0", solution: "def word_lengths(words):\n    return [len(w) for w in words if w]\n", passes: false },
    { task_id: "GoodCheck/0", solution: "def quadruple(n):\n    return n * 4\n", passes: true },
    { task_id: "GoodCheck/0", solution: "def quadruple(n):\n    return n + 9\n", passes: false },
    { task_id: "Sly/0", solution: "def answer(n):\n    return 42\n", passes: true },
    { task_id: "CheckWrites/0", solution: "def last(items):\n    return items[len(items) - 1]\n", passes: true },
    { task_id: "CheckWrites/0", solution: "def last(items):\n    return items[0]\n", passes: false }
];

interface Setting {
    /** eddy's command line, as this user. */
    eddy: (args: string[], env?: Record<string, string>) => ReturnType<typeof spawnSync>;
    /** A folder this user owns, for its files and canaries. */
    home: string;
}

function checkImport(s: Setting, out: string, canaryDir: string, tmpCanary: string): void {
    const file = path.join(s.home, "hostile.jsonl");
    writeFileSync(file, hostileProblems(canaryDir, tmpCanary));
    // One judge worker and the least CPU the problems' code may take (1 s): Spin/0 spins to that limit, and a
    // second worker would only add its own start.
    const r = s.eddy(["import", "humaneval", file, "--out", out, "--workers", "1", "--canonical-cpu", "1"]);
    const stderr = unwrapMessages(String(r.stderr));
    expect(r.status, stderr).toBe(0);
    const summary = JSON.parse(readFileSync(path.join(out, "humaneval-import.json"), "utf8"));
    expect(summary.templates.map((t: { taskId: string }) => t.taskId).map((t: string) => (t.startsWith("Inject/0") ? "Inject/0" : t))).toEqual(IMPORTED);
    const skipped = summary.skipped as { taskId: string; reason: string }[];
    expect(skipped.map((x) => x.taskId)).toEqual(SKIPPED.map(([id]) => id));
    for (const [id, reason] of SKIPPED) {
        const got = skipped.find((x) => x.taskId === id)!.reason;
        expect(got, id).toMatch(reason);
        // On stderr too, as it happens.
        expect(stderr).toContain(`eddy: warning: skipped ${id}: ${got}`);
    }
    expect(summary.canonical).toMatchObject({ cpuS: 1, memoryMb: 4096, isolation: expect.stringMatching(/^bwrap\+/) });
    // Nothing pickled: tagged JSON beside each oracle, and no oracle unpickles or unmarshals anything.
    const oracles = readdirSync(path.join(out, "oracles"));
    expect(oracles.filter((f) => f.endsWith(".pkl"))).toEqual([]);
    expect(oracles.filter((f) => f.endsWith(".expected.json"))).toHaveLength(IMPORTED.length);
    for (const f of oracles.filter((x) => x.endsWith(".py"))) expect(readFileSync(path.join(out, "oracles", f), "utf8")).not.toMatch(/\bpickle\b|marshal\.loads/);
}

function nothingEscaped(canaryDir: string, tmpCanary: string): void {
    for (const [name, f] of Object.entries(canaries(canaryDir))) expect(existsSync(f), `${name}: ${f}`).toBe(false);
    expect(existsSync(tmpCanary), tmpCanary).toBe(false);
}

describe("issue #43: a hostile problems file runs nothing outside the judge's sandbox", () => {
    let dir: string;
    let out: string;
    let canaryDir: string;
    let tmpCanary: string;
    const db = () => path.join(dir, "eddy.db");
    const setting = (): Setting => ({
        eddy: (args, env = {}) => spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: { ...process.env, EDDY_DB: db(), ...env } }),
        home: dir
    });

    beforeAll(() => {
        dir = mkdtempSync(path.join(tmpdir(), "eddy-hostile-"));
        out = path.join(dir, "he");
        canaryDir = path.join(dir, "canaries");
        mkdirSync(canaryDir);
        tmpCanary = path.join("/tmp", `eddy-canary-${path.basename(dir)}`);
        checkImport(setting(), out, canaryDir, tmpCanary);
    }, 240_000);
    afterAll(() => {
        rmSync(dir, { recursive: true, force: true });
        rmSync(tmpCanary, { force: true });
    });

    it("skips what cannot come in with its reason (in the summary and on stderr), imports the rest, and nothing ran outside the sandbox", () => {
        nothingEscaped(canaryDir, tmpCanary);
        // The task id stays a string of the oracle's: the text it holds is data, not code.
        const summary = JSON.parse(readFileSync(path.join(out, "humaneval-import.json"), "utf8"));
        const injected = summary.templates.find((t: { taskId: string }) => t.taskId.startsWith("Inject/0"));
        expect(injected.taskId).toContain('"""\nopen(');
    });

    it("templates validate and judging answers load every oracle in trusted workers: nothing runs, and the good problems judge correctly", () => {
        const env = { EDDY_TEMPLATES: path.join(out, "templates"), EDDY_ORACLES: path.join(out, "oracles") };
        const v = setting().eddy(["templates", "validate", "--workers", "1"], env);
        expect(v.status, String(v.stdout) + String(v.stderr)).toBe(0);
        expect(String(v.stdout)).toContain(`${IMPORTED.length}/${IMPORTED.length} template(s) valid`);
        nothingEscaped(canaryDir, tmpCanary);
        const file = path.join(dir, "samples.jsonl");
        writeFileSync(file, SAMPLES.map(({ task_id, solution }) => JSON.stringify({ task_id, solution })).join("\n") + "\n");
        const r = setting().eddy(["import", "evalplus-samples", file, "--templates", out, "--json", "--judge-workers", "1"]);
        expect(r.status, String(r.stderr)).toBe(0);
        const run = (JSON.parse(String(r.stdout)) as { runId: string }).runId;
        const rows = String(setting().eddy(["export", run]).stdout)
            .trim()
            .split("\n")
            .map((l) => JSON.parse(l) as Row)
            .filter((x) => x.category !== "missing");
        const byTask = new Map<string, boolean[]>();
        for (const s of SAMPLES) byTask.set(s.task_id, [...(byTask.get(s.task_id) ?? []), s.passes]);
        for (const [task, want] of byTask) {
            const got = rows.filter((x) => x.template === task.toLowerCase().replace("/", "_")).sort((a, b) => a.round - b.round);
            expect(
                got.map((x) => x.category === "passed"),
                `${task}: ${JSON.stringify(got.map((x) => x.detail))}`
            ).toEqual(want);
        }
        nothingEscaped(canaryDir, tmpCanary);
    }, 240_000);

    it("an oracle answers only its stored inputs in a trusted process, and never runs the problem's code for another", () => {
        const probe = [
            "import importlib.util, sys",
            "spec = importlib.util.spec_from_file_location('o', sys.argv[1]); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)",
            "tests = list(m.tests(task_id=m.TASK_ID))",
            "print([m.solution(*a, task_id=m.TASK_ID) for a, _ in tests])",
            "try:",
            "    m.solution(['never', 'seen'], task_id=m.TASK_ID)",
            "except LookupError as e:",
            "    print('refused:', e)"
        ].join("\n");
        const p = spawnSync("python3", ["-I", "-c", probe, path.join(out, "oracles", "good_0.py")], { encoding: "utf8" });
        expect(p.stderr).toBe("");
        expect(p.stdout).toContain("[[2, 1], [], [5, 0, 3], [1, 2, 3, 4]]");
        expect(p.stdout).toContain("refused: an imported problem's model solution answers its stored test inputs only");
    });

    it("where no sandbox can be had, the import stops before any of the problems' code runs (unless allowed)", () => {
        const env: NodeJS.ProcessEnv = { ...process.env, EDDY_DB: db(), EDDY_JUDGE_NO_NAMESPACES: "1" };
        delete env.EDDY_ALLOW_UNSANDBOXED;
        const fresh = path.join(dir, "no-sandbox-canaries");
        mkdirSync(fresh);
        const file = path.join(dir, "no-sandbox.jsonl");
        writeFileSync(file, hostileProblems(fresh, tmpCanary));
        const r = spawnSync(process.execPath, [BIN, "import", "humaneval", file, "--out", path.join(dir, "no-sandbox"), "--workers", "1", "--canonical-cpu", "1"], { encoding: "utf8", env });
        expect(r.status).not.toBe(0);
        expect(unwrapMessages(r.stderr)).toContain("no sandbox is possible here");
        expect(existsSync(path.join(dir, "no-sandbox"))).toBe(false);
        nothingEscaped(fresh, tmpCanary);
    }, 120_000);

    it("a changed expected-outputs file is refused before it is parsed", () => {
        const copy = path.join(dir, "he-copy");
        cpSync(out, copy, { recursive: true });
        writeFileSync(path.join(copy, "oracles", "good_0.expected.json"), readFileSync(path.join(copy, "oracles", "good_0.expected.json"), "utf8").replace("[[2,1]", "[[2,2]"));
        const v = setting().eddy(["templates", "validate", "good_0", "--workers", "1"], { EDDY_TEMPLATES: path.join(copy, "templates"), EDDY_ORACLES: path.join(copy, "oracles") });
        expect(v.status).not.toBe(0);
        expect(unwrapMessages(String(v.stdout) + String(v.stderr))).toContain("good_0.expected.json does not match this oracle");
    }, 120_000);
});

const canRunAsNobody = process.getuid?.() === 0 && existsSync("/usr/sbin/runuser") && existsSync("/usr/bin/python3");

describe.skipIf(!canRunAsNobody)("issue #43, as an ordinary user (nobody) who owns a copy of eddy", () => {
    let copy: string;
    beforeAll(() => {
        copy = mkdtempSync(path.join(tmpdir(), "eddy-hostile-user-"));
        chmodSync(copy, 0o755);
        cpSync(path.join(ROOT, "dist"), path.join(copy, "dist"), { recursive: true });
        cpSync(path.join(ROOT, "src/judge/python"), path.join(copy, "src/judge/python"), { recursive: true });
        cpSync(path.join(ROOT, "src/languages"), path.join(copy, "src/languages"), { recursive: true });
        cpSync(path.join(ROOT, "src/import/humaneval"), path.join(copy, "src/import/humaneval"), { recursive: true });
        cpSync(path.join(ROOT, "package.json"), path.join(copy, "package.json"));
        symlinkSync(path.join(ROOT, "node_modules"), path.join(copy, "node_modules"));
        mkdirSync(path.join(copy, "canaries"));
        execFileSync("chown", ["-R", "-h", "nobody:nogroup", copy]);
    });
    afterAll(() => {
        if (copy) rmSync(copy, { recursive: true, force: true });
    });

    it("imports as nobody: the same skips, and no file written anywhere nobody may write", () => {
        const tmpCanary = path.join("/tmp", `eddy-canary-${path.basename(copy)}`);
        try {
            const s: Setting = {
                eddy: (args, env = {}) =>
                    spawnSync(
                        "runuser",
                        ["-u", "nobody", "--", "env", "-i", "PATH=/usr/bin:/bin", "EDDY_PYTHON=/usr/bin/python3", "HOME=" + copy, `EDDY_DB=${path.join(copy, "eddy.db")}`, ...Object.entries(env).map(([k, v]) => `${k}=${v}`), process.execPath, path.join(copy, "dist/cli/bin.js"), ...args],
                        { encoding: "utf8", timeout: 300_000 }
                    ),
                home: copy
            };
            const out = path.join(copy, "he");
            checkImport(s, out, path.join(copy, "canaries"), tmpCanary);
            nothingEscaped(path.join(copy, "canaries"), tmpCanary);
            // The trusted workers load every oracle: still nothing.
            const v = s.eddy(["templates", "validate", "--workers", "1"], { EDDY_TEMPLATES: path.join(out, "templates"), EDDY_ORACLES: path.join(out, "oracles") });
            expect(v.status, String(v.stdout) + String(v.stderr)).toBe(0);
            nothingEscaped(path.join(copy, "canaries"), tmpCanary);
        } finally {
            rmSync(tmpCanary, { force: true });
        }
    }, 300_000);
});
