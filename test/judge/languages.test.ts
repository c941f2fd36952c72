/**
 * Answers in JavaScript and Ruby (issue #26): judged by the same oracles, in the same sandbox, as
 * root and as an ordinary user. Reference translations pass, wrong answers fail with the right
 * category, hostile answers are contained, and a missing runtime is one clear line.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JudgePool } from "../../src/judge/JudgePool.js";
import { startPoolIn } from "./fixtures/settings.js";
import type { Category } from "../../src/vocabulary.js";
import { parseLanguage, type Language } from "../../src/languages/languages.js";
import { sampleInstances } from "../../src/templates/instances.js";
import { selectTemplates } from "../../src/templates/loadTemplates.js";
import { builtInLibrary } from "../../src/templates/library.js";
import { unwrapMessages } from "../support/messages.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const JAVASCRIPT = parseLanguage("javascript");
const RUBY = parseLanguage("ruby");
const PHP = parseLanguage("php");
const EXT: Record<string, Language> = { js: JAVASCRIPT, rb: RUBY, php: PHP };
// Every hand-written translation shipped (oracles/translations/<template>.<ext>).
const translations = readdirSync(path.join(root, "oracles/translations")).map((f) => ({ id: f.replace(/\.\w+$/, ""), language: EXT[path.extname(f).slice(1)]! }));
const rotate = selectTemplates(builtInLibrary(), "list_rotate_right")[0]!;
const quick = { ...rotate, budget: { timeMs: 400, memoryMb: 128 }, randomInputs: 10 };
// JavaScript's socket answer starts a second Node to try the connection (its function must return at
// once): two runtimes' start-up is over 400 ms of CPU on a busy machine, and this case is about the
// socket, not the budget.
const roomy = { ...quick, budget: { timeMs: 2000, memoryMb: 128 } };
const bindings = { k: 3 };
const secretDir = mkdtempSync(path.join(tmpdir(), "eddy-lang-secret-"));
const secretFile = path.join(secretDir, "secret.txt");

const RIGHT: Record<string, string> = {
    javascript: "function rotate_right(values) {\n    const n = values.length;\n    if (n === 0) return [];\n    const s = 3 % n;\n    return values.slice(n - s).concat(values.slice(0, n - s));\n}\n",
    ruby: "def rotate_right(values)\n  return [] if values.empty?\n  values.rotate(-(3 % values.length))\nend\n",
    php: "<?php\nfunction rotate_right($values) {\n    $n = count($values);\n    if ($n === 0) return [];\n    $s = 3 % $n;\n    return array_merge(array_slice($values, $n - $s), array_slice($values, 0, $n - $s));\n}\n"
};

// [language, name, code, category]: one wrong answer per failure category.
const wrong: [Language, string, string, Category][] = [
    [JAVASCRIPT, "a syntax error", "function rotate_right(values) { return values.slice( }\n", "syntax_error"],
    [JAVASCRIPT, "no function of that name", "function rotate(values) { return values; }\n", "no_function"],
    [JAVASCRIPT, "the wrong number of parameters", "function rotate_right(values, k) { return values; }\n", "wrong_arg_count"],
    [JAVASCRIPT, "a runtime error", "function rotate_right(values) { return values.nope.length; }\n", "runtime_error"],
    [JAVASCRIPT, "a wrong answer on a fixed test", "function rotate_right(values) { return values.slice(); }\n", "assertion_error"],
    [JAVASCRIPT, "a string instead of an array", "function rotate_right(values) { return String(values); }\n", "assertion_error"],
    // Fixed tests hold multiples of 10; random inputs hold digits: only they see the mistake.
    [JAVASCRIPT, "a wrong answer only on random inputs", RIGHT.javascript!.replace("if (n === 0)", "if (values.some((v) => v % 10 !== 0)) return values.slice();\n    if (n === 0)"), "fuzzing_failure"],
    [JAVASCRIPT, "modifying its argument", RIGHT.javascript!.replace("return values.slice(n - s).concat(values.slice(0, n - s));", "const out = values.slice(n - s).concat(values.slice(0, n - s));\n    values[0] = -1;\n    return out;"), "assertion_error"],
    [JAVASCRIPT, "unbounded recursion", "function rotate_right(values) { return rotate_right(values); }\n", "resource_exhaustion"],
    [RUBY, "a syntax error", "def rotate_right(values)\n  values.rotate(\nend\n", "syntax_error"],
    [RUBY, "no method of that name", "def rotate(values)\n  values\nend\n", "no_function"],
    [RUBY, "the wrong number of parameters", "def rotate_right(values, k)\n  values\nend\n", "wrong_arg_count"],
    [RUBY, "a runtime error", "def rotate_right(values)\n  values.nope\nend\n", "runtime_error"],
    [RUBY, "a wrong answer on a fixed test", "def rotate_right(values)\n  values.dup\nend\n", "assertion_error"],
    [RUBY, "a wrong answer only on random inputs", RIGHT.ruby!.replace("  return [] if", "  return values.dup if values.any? { |v| v % 10 != 0 }\n  return [] if"), "fuzzing_failure"],
    [RUBY, "modifying its argument", RIGHT.ruby!.replace("  return [] if values.empty?\n", "  return [] if values.empty?\n  out = values.rotate(-(3 % values.length))\n  values[0] = -1\n  return out\n"), "assertion_error"],
    [RUBY, "returning the argument itself", "def rotate_right(values)\n  values.rotate!(-(3 % values.length)) unless values.empty?\n  values\nend\n", "assertion_error"],
    [RUBY, "unbounded recursion", "def rotate_right(values)\n  rotate_right(values)\nend\n", "resource_exhaustion"],
    [PHP, "a syntax error", "function rotate_right($values) { return array_slice($values, ; }\n", "syntax_error"],
    [PHP, "no function of that name", "function rotate($values) { return $values; }\n", "no_function"],
    [PHP, "the wrong number of parameters", "function rotate_right($values, $k) { return $values; }\n", "wrong_arg_count"],
    [PHP, "a runtime error", "function rotate_right($values) { return $values->nope(); }\n", "runtime_error"],
    [PHP, "a wrong answer on a fixed test", "function rotate_right($values) { return $values; }\n", "assertion_error"],
    [PHP, "a string instead of an array", "function rotate_right($values) { return implode(',', $values); }\n", "assertion_error"],
    [PHP, "a wrong answer only on random inputs", RIGHT.php!.replace("if ($n === 0)", "foreach ($values as $v) if ($v % 10 !== 0) return $values;\n    if ($n === 0)"), "fuzzing_failure"],
    [
        PHP,
        "modifying its argument (by reference)",
        "function rotate_right(&$values) {\n    $n = count($values);\n    if ($n === 0) return [];\n    $s = 3 % $n;\n    $out = array_merge(array_slice($values, $n - $s), array_slice($values, 0, $n - $s));\n    $values[0] = -1;\n    return $out;\n}\n",
        "assertion_error"
    ],
    [PHP, "unbounded recursion", "function rotate_right($values) { return rotate_right($values); }\n", "resource_exhaustion"]
];

// [language, name, code, categories]: each is contained, and a right answer passes after it.
const hostile: [Language, string, string, Category[]][] = [
    [JAVASCRIPT, "infinite loop", "function rotate_right(values) { for (;;) {} }\n", ["resource_exhaustion"]],
    [JAVASCRIPT, "memory bomb", "function rotate_right(values) { const hog = []; for (;;) hog.push(new Array(1e6).fill(7)); }\n", ["resource_exhaustion"]],
    [
        JAVASCRIPT,
        "spawning processes without end",
        "const cp = require('child_process');\nfunction rotate_right(values) { for (;;) cp.spawnSync(process.execPath, ['-e', 'for(;;){}']); }\n",
        ["resource_exhaustion", "runtime_error"]
    ],
    [
        JAVASCRIPT,
        "opening a socket",
        "const cp = require('child_process');\nfunction rotate_right(values) {\n  cp.execFileSync(process.execPath, ['-e', \"require('net').connect(80, '1.1.1.1').on('connect', () => process.exit(0)).on('error', (e) => { console.error(e.code); process.exit(3); })\"]);\n  return values;\n}\n",
        ["runtime_error"]
    ],
    [JAVASCRIPT, "reading a private file", `function rotate_right(values) { return require('fs').readFileSync(${JSON.stringify(secretFile)}, 'utf8'); }\n`, ["runtime_error"]],
    [JAVASCRIPT, "reading /etc/shadow", "function rotate_right(values) { return require('fs').readFileSync('/etc/shadow', 'utf8'); }\n", ["runtime_error"]],
    [RUBY, "infinite loop", "def rotate_right(values)\n  loop {}\nend\n", ["resource_exhaustion"]],
    [RUBY, "memory bomb", "def rotate_right(values)\n  hog = []\n  loop { hog << ('x' * 10_000_000) }\nend\n", ["resource_exhaustion"]],
    // Another language's runtime may make no process (its CPU-time clock is then all of its work): fork fails at once.
    [RUBY, "fork bomb", "def rotate_right(values)\n  loop { fork { sleep 100 } }\nend\n", ["runtime_error"]],
    [RUBY, "opening a socket", "require 'socket'\ndef rotate_right(values)\n  TCPSocket.new('1.1.1.1', 80)\n  values\nend\n", ["runtime_error"]],
    [RUBY, "reading a private file", `def rotate_right(values)\n  File.read(${JSON.stringify(secretFile)})\nend\n`, ["runtime_error"]],
    [RUBY, "reading /etc/shadow", "def rotate_right(values)\n  File.read('/etc/shadow')\nend\n", ["runtime_error"]],
    [PHP, "infinite loop", "function rotate_right($values) { while (true) {} }\n", ["resource_exhaustion"]],
    [PHP, "memory bomb", "function rotate_right($values) { $hog = []; while (true) $hog[] = str_repeat('x', 10000000); }\n", ["resource_exhaustion"]],
    [PHP, "spawning processes without end", "function rotate_right($values) { while (true) proc_open([PHP_BINARY, '-r', 'while (true) {}'], [], $pipes); }\n", ["resource_exhaustion", "runtime_error"]],
    [PHP, "opening a socket", "function rotate_right($values) { $s = fsockopen('1.1.1.1', 80, $errno, $errstr, 1); if (!$s) throw new Exception($errstr); return $values; }\n", ["runtime_error"]],
    [PHP, "reading a private file", `function rotate_right($values) { $t = file_get_contents(${JSON.stringify(secretFile)}); if ($t === false) throw new Exception('unreadable'); return $t; }\n`, ["runtime_error"]],
    [PHP, "reading /etc/shadow", "function rotate_right($values) { $t = file_get_contents('/etc/shadow'); if ($t === false) throw new Exception('unreadable'); return $t; }\n", ["runtime_error"]]
];

beforeAll(() => {
    writeFileSync(secretFile, "the oracle's secret", { mode: 0o600 });
});
afterAll(() => {
    rmSync(secretDir, { recursive: true, force: true });
});

const canRunAsNobody = existsSync("/usr/bin/python3") && existsSync("/usr/bin/setpriv") && process.getuid?.() === 0;

// Every isolation mode: bubblewrap's sandbox, and the fallback without namespaces (rlimits, the
// seccomp list and a uid of the candidate's own are what hold there), each as root and as nobody.
const MODES = ["bubblewrap", "without namespaces"] as const;
const SETTINGS = (["as root", "as an ordinary user"] as const).flatMap((who) => MODES.map((mode) => ({ who, mode })));
const isRoot = process.getuid?.() === 0;
// The four settings run side by side (a fork bomb in Ruby sleeps out the judge's wall-clock backstop,
// ~14 s each, and would otherwise leave its test lane idle for a minute). Pools start one at a
// time: the mode is an environment variable a starting worker reads.
for (const { who, mode } of SETTINGS) {
    const sandboxed = mode === "bubblewrap";
    // "as root" is the test runner's own user: root in CI, the owner of a checkout where a lab runs it.
    const label = who === "as root" && !isRoot ? "as the user running the tests" : who;
    // Without a sandbox an ordinary user's answers run as that user, so its own files are theirs to read
    // (README's isolation table says so): that case holds only where the judge's user is root.
    const unprotected = !sandboxed && who === "as root" && !isRoot ? ["reading a private file"] : [];
    // Concurrent with the other settings; within one, tests run in order (one pool, one worker): a test
    // waiting at the pool would hold one of vitest's few concurrent places while the fork bomb runs.
    // (`skip` stays out of the options: there it would reach every test and undo their own runIf.)
    describe.skipIf(who === "as an ordinary user" && !canRunAsNobody)(`answers in other languages (${label}, ${mode})`, { concurrent: true }, () => {
        describe.sequential("in order", () => {
            let pool: JudgePool;
            beforeAll(async () => {
                pool = await startPoolIn(who, sandboxed);
            });
            afterAll(async () => {
                await pool?.close();
            });

            it(sandboxed ? "runs them in bubblewrap's sandbox" : "runs them without a sandbox, and says so", () => {
                expect(pool.isolation.sandboxed, pool.isolation.notes.join("; ")).toBe(sandboxed);
                if (!sandboxed) expect(pool.isolation.level).toContain("NO-SANDBOX");
                expect(pool.runtimes.javascript).toBeTruthy();
                expect(pool.runtimes.ruby).toBeTruthy();
                expect(pool.runtimes.php).toBeTruthy();
            });

            // Verdicts on right and wrong answers do not depend on the mode: checked once, in the sandbox.
            it.runIf(sandboxed)("every hand-written reference translation passes its template's instances", async () => {
                expect(translations.length).toBeGreaterThanOrEqual(15);
                for (const { id, language } of translations) {
                    const t = selectTemplates(builtInLibrary(), id)[0]!;
                    for (const inst of sampleInstances(t, who === "as root" ? 3 : 1, 7)) {
                        const code = await pool.answerSource(t, inst.bindings, "solution", language);
                        const v = await pool.judge({ template: t, bindings: inst.bindings, code, language });
                        expect(`${id} ${language} ${JSON.stringify(inst.bindings)}: ${v.category} ${v.detail}`).toContain(": passed");
                    }
                }
            }, 300_000);

            if (who === "as root" && sandboxed)
                for (const [language, name, code, want] of wrong)
                    it(`${language}: ${name} → ${want}`, async () => {
                        const v = await pool.judge({ template: rotate, bindings, code, language });
                        expect(v.category, v.detail).toBe(want);
                        if (name.startsWith("modifying its argument")) expect(v.detail).toContain("modified its argument");
                    });

            for (const [language, name, code, want] of hostile.filter(([, n]) => !unprotected.includes(n)))
                it(`${language}: ${name} → ${want.join(" | ")}, and a right answer passes after it`, async () => {
                    const v = await pool.judge({ template: language === "javascript" && name === "opening a socket" ? roomy : quick, bindings, code, language });
                    expect(want, `${v.category}: ${v.detail}`).toContain(v.category);
                    const ok = await pool.judge({ template: quick, bindings, code: RIGHT[language]!, language });
                    expect(ok.category, ok.detail).toBe("passed");
                }, 60_000);

            it("the private file really was there to be read (the read tests can fail)", async () => {
                const v = await pool.judge({ template: quick, bindings, code: "def rotate_right(values):\n    return open(" + JSON.stringify(secretFile) + ").read()\n" });
                expect(v.category).not.toBe("judge_error");
                expect(existsSync(secretFile)).toBe(true);
            });
        });
    });
}

describe("a missing runtime", () => {
    const empty = mkdtempSync(path.join(tmpdir(), "eddy-no-runtimes-"));
    const saved = process.env.EDDY_RUNTIME_PATH;
    beforeAll(() => {
        process.env.EDDY_RUNTIME_PATH = empty;
    });
    afterAll(() => {
        if (saved === undefined) delete process.env.EDDY_RUNTIME_PATH;
        else process.env.EDDY_RUNTIME_PATH = saved;
        rmSync(empty, { recursive: true, force: true });
    });

    it("refuses a pool for that language with one line", async () => {
        await expect(JudgePool.start({ workers: 1, language: RUBY })).rejects.toThrow(/^Ruby answers need ruby, which is not installed: install Debian's ruby package/);
    });

    it("makes a judge_error (never the answer's fault) where a pool judges it anyway", async () => {
        const pool = await JudgePool.start({ workers: 1 });
        try {
            const v = await pool.judge({ template: rotate, bindings, code: RIGHT.ruby!, language: RUBY });
            expect(v.category).toBe("judge_error");
            expect(v.detail).toContain("ruby answers need ruby, which is not installed");
        } finally {
            await pool.close();
        }
    });

    it("stops `eddy run --language ruby` with one line and a non-zero exit", () => {
        const db = path.join(empty, "e.db");
        const r = spawnSync(process.execPath, [path.join(root, "dist/cli/bin.js"), "run", "--backend", "reference", "--language", "ruby", "--templates", "list_rotate_right", "--instances", "1", "--rounds", "1", "--db", db, "--no-progress"], {
            encoding: "utf8",
            env: { ...process.env, EDDY_RUNTIME_PATH: empty }
        });
        expect(r.status).not.toBe(0);
        const lines = unwrapMessages(r.stderr).trim().split("\n").filter((l) => !l.startsWith("eddy: run "));
        expect(lines.at(-1)).toMatch(/Ruby answers need ruby, which is not installed: install Debian's ruby package/);
    });
});

describe("runs in two languages, reported together", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "eddy-lang-report-"));
    const db = path.join(dir, "r.db");
    const eddy = (...args: string[]) => spawnSync(process.execPath, [path.join(root, "dist/cli/bin.js"), ...args], { encoding: "utf8" });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("show each run's language; a Python-only report has no language column", () => {
        for (const language of ["python", "javascript"]) {
            const r = eddy("run", "--backend", "reference", "--language", language, "--templates", "list_rotate_right", "--instances", "2", "--rounds", "1", "--db", db, "--no-progress");
            expect(r.status, r.stderr).toBe(0);
        }
        const python = eddy("report", "latest~1", "--db", db, "--wide");
        expect(python.status, python.stderr).toBe(0);
        expect(python.stdout).not.toMatch(/\blanguage\b/);
        const both = eddy("report", "latest", "latest~1", "--db", db, "--wide");
        expect(both.status, both.stderr).toBe(0);
        const runs = both.stdout.split("\n\n").find((b) => b.startsWith("Runs"))!;
        expect(runs).toMatch(/backend\s+language\s+isolation/);
        expect(runs).toMatch(/reference\s+javascript\s/);
        expect(runs).toMatch(/reference\s+python\s/);
        const html = eddy("report", "latest", "latest~1", "--db", db, "--format", "html", "--out", path.join(dir, "r.html"));
        expect(html.status, html.stderr).toBe(0);
        expect(readFileSync(path.join(dir, "r.html"), "utf8")).toContain("<th>backend</th><th>language</th><th>isolation</th>");
    });
});
