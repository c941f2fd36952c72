/**
 * The verdict's channel and each call's CPU time are out of the answer's reach, in every language
 * and every isolation mode (issue #43). Another language's answer shares its runtime's process with
 * the harness: it may write lines on fd 3, but the relay leads (one step at a time, each with a
 * nonce the answer cannot know) and reads each call's CPU time from the runtime's own clock, and the
 * runtime can make no process and can neither close nor replace fd 3. A Python answer whose calls
 * have limits of their own can make no process either (EvalPlus's limits, EvalPlus's rule).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JudgePool } from "../../src/judge/JudgePool.js";
import { startPoolIn } from "./fixtures/settings.js";
import { parseLanguage, type Language } from "../../src/languages/languages.js";
import { builtInLibrary, libraryAt } from "../../src/templates/library.js";
import { loadTemplate, selectTemplates } from "../../src/templates/loadTemplates.js";

const rotate = selectTemplates(builtInLibrary(), "list_rotate_right")[0]!;
const quick = { ...rotate, budget: { timeMs: 2000, memoryMb: 128 }, randomInputs: 10 };
const bindings = { k: 3 };

// A template whose every input has a CPU limit of its own (as an imported EvalPlus problem's do):
// 300 ms on the reference machine, against a whole-answer budget of 30 s, so that only the
// per-input limit can stop an answer that spends 1.5 s of CPU on one input.
const lib = mkdtempSync(path.join(tmpdir(), "eddy-channel-lib-"));
chmodSync(lib, 0o755); // read by the judge run as nobody too
mkdirSync(path.join(lib, "templates"));
mkdirSync(path.join(lib, "oracles"));
writeFileSync(
    path.join(lib, "templates/doubled_limited.yaml"),
    [
        "id: doubled_limited",
        "function: doubled",
        "arity: 1",
        "group: math",
        "subgroups: [arithmetic]",
        "returns: int",
        "question: >-",
        "  Write a function `doubled(n)` that returns n times {{m}}.",
        "params:",
        "  m: {int: {digits: [2]}}",
        "comparator: ordered",
        "budget: {time_ms: 30000, memory_mb: 256}",
        "random_inputs: 4",
        ""
    ].join("\n")
);
writeFileSync(
    path.join(lib, "oracles/doubled_limited.py"),
    [
        '"""Each input carries a CPU limit of its own (eddy_time_limit_ms), as imported EvalPlus problems do."""',
        "",
        "",
        "class Limited:",
        "    eddy_time_limit_ms = 300.0",
        "",
        "    def __init__(self, value):",
        "        self.value = value",
        "",
        "    @property",
        "    def eddy_value(self):",
        "        return self.value",
        "",
        "    def __repr__(self):",
        "        return repr(self.value)",
        "",
        "",
        "def solution(n, *, m):",
        "    return Limited(n * m)",
        "",
        "",
        "def compare(expected, actual, *, m):",
        "    return type(actual) is int and actual == expected.value",
        "",
        "",
        "def tests(*, m):",
        "    for n in (1, 7, 12):",
        "        yield (n,), Limited(n * m)",
        "",
        "",
        "def inputs(rng, *, m):",
        "    return (rng.randint(0, 50),)",
        ""
    ].join("\n")
);
const limited = loadTemplate(libraryAt(lib), "doubled_limited");
// A template whose outputs are kept as their digests (as an imported problem's too-large outputs
// are): one fixed test returns 1,500,000 integers of 13 digits, about 35 MB as another language's JSON line.
writeFileSync(
    path.join(lib, "templates/ramp_digest.yaml"),
    [
        "id: ramp_digest",
        "function: ramp",
        "arity: 1",
        "group: math",
        "subgroups: [arithmetic]",
        "returns: list",
        "question: >-",
        "  Write a function `ramp(n)` that returns the list of 10**12 + i times {{m}} for i from 0 to n - 1.",
        "params:",
        "  m: {int: {digits: [2]}}",
        "comparator: ordered",
        "budget: {time_ms: 20000, memory_mb: 1024}",
        "random_inputs: 3",
        ""
    ].join("\n")
);
writeFileSync(
    path.join(lib, "oracles/ramp_digest.py"),
    [
        '"""Every expected output is kept as its digest (eddy_digest), as an imported problem keeps one too large to store."""',
        "from eddy_sandbox.digest import digest",
        "",
        "",
        "class Digested:",
        "    def __init__(self, value):",
        "        self.d = digest(value)",
        "",
        "    @property",
        "    def eddy_digest(self):",
        "        return self.d",
        "",
        "    @property",
        "    def eddy_value(self):",
        "        return self.d",
        "",
        "    def __repr__(self):",
        "        return '<an output compared by its digest>'",
        "",
        "",
        "def solution(n, *, m):",
        "    return Digested([10**12 + i * m for i in range(n)])",
        "",
        "",
        "def compare(expected, actual, *, m):",
        "    return type(actual) is str and actual == expected.d",
        "",
        "",
        "def tests(*, m):",
        "    yield (5,), Digested([10**12 + i * m for i in range(5)])",
        "    yield (1500000,), Digested([10**12 + i * m for i in range(1500000)])",
        "",
        "",
        "def inputs(rng, *, m):",
        "    return (rng.randint(0, 50),)",
        ""
    ].join("\n")
);
const ramp = loadTemplate(libraryAt(lib), "ramp_digest");

const m = { m: 2 };

const PYTHON = parseLanguage("python");
const JAVASCRIPT = parseLanguage("javascript");
const RUBY = parseLanguage("ruby");
const PHP = parseLanguage("php");
// Right answers, and answers that spend 1.5 s of CPU on input 7 (CPU time, so load does not change it).
const RIGHT: Record<string, string> = {
    python: "def doubled(n):\n    return n * 2\n",
    javascript: "function doubled(n) { return n * 2; }\n",
    ruby: "def doubled(n)\n  n * 2\nend\n",
    php: "<?php\nfunction doubled($n) { return $n * 2; }\n"
};
const SLOW: [Language, string][] = [
    [JAVASCRIPT, "function doubled(n) {\n  if (n === 7) { const t = process.cpuUsage(); while (process.cpuUsage(t).user < 1500000) {} }\n  return n * 2;\n}\n"],
    [RUBY, "def doubled(n)\n  if n == 7\n    t = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)\n    nil while Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - t < 1.5\n  end\n  n * 2\nend\n"],
    [PHP, "<?php\nfunction cpu() { $u = getrusage(); return $u['ru_utime.tv_sec'] + $u['ru_utime.tv_usec'] / 1e6; }\nfunction doubled($n) {\n  if ($n === 7) { $t = cpu(); while (cpu() - $t < 1.5) {} }\n  return $n * 2;\n}\n"],
    [PYTHON, "import time\ndef doubled(n):\n    if n == 7:\n        t = time.process_time()\n        while time.process_time() - t < 1.5:\n            pass\n    return n * 2\n"]
];
// The same work done in a child process, where the process's own clock does not see it.
const IN_A_CHILD: [Language, string][] = [
    [
        PYTHON,
        "import os, time\ndef doubled(n):\n    r, w = os.pipe()\n    pid = os.fork()\n    if pid == 0:\n        t = time.process_time()\n        while n == 7 and time.process_time() - t < 1.5:\n            pass\n        os.write(w, str(n * 2).encode())\n        os._exit(0)\n    os.close(w)\n    out = int(os.read(r, 64))\n    os.waitpid(pid, 0)\n    return out\n"
    ],
    [
        JAVASCRIPT,
        "const cp = require('child_process');\nfunction doubled(n) {\n  const out = cp.execFileSync(process.execPath, ['-e', 'const n = ' + n + '; if (n === 7) { const t = process.cpuUsage(); while (process.cpuUsage(t).user < 1500000) {} } process.stdout.write(String(n * 2));']);\n  return Number(String(out));\n}\n"
    ],
    [RUBY, "def doubled(n)\n  r, w = IO.pipe\n  pid = fork do\n    t = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)\n    nil while n == 7 && Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - t < 1.5\n    w.write((n * 2).to_s)\n    exit!(0)\n  end\n  w.close\n  out = r.read.to_i\n  Process.wait(pid)\n  out\nend\n"]
];

// Wrong answers (they rotate the wrong way) that write the lines a right answer's harness would
// have written, for every call, with the arguments as they were and no sharing, after trying to
// keep the harness's own lines from the relay.
const ROTATE = "values.slice(n - s).concat(values.slice(0, n - s))";
const FORGERS: [Language, string, string][] = [
    [
        JAVASCRIPT,
        "closes fd 3 (or hands it to a child and closes it), then writes its own lines",
        "const fs = require('fs');\nlet closed = 'no';\ntry { fs.closeSync(3); closed = 'yes'; } catch (e) { closed = e.code; }\ntry { require('child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 5000)'], { stdio: ['ignore', 'ignore', 'ignore', 3] }); } catch (e) {}\nconst tag = (v) => Array.isArray(v) ? { seq: v.map(tag) } : { num: String(v) };\nfunction rotate_right(values) {\n  const n = values.length; const s = n ? 3 % n : 0;\n  const right = n ? " +
            ROTATE +
            " : [];\n  try { fs.writeSync(3, JSON.stringify({ i: 0, after: [tag(values)], shares: false, v: tag(right) }) + '\\n'); } catch (e) {}\n  return values.slice().reverse();\n}\n"
    ],
    [
        JAVASCRIPT,
        "writes a right answer's line before the harness writes its own",
        "const fs = require('fs');\nlet i = 0;\nconst tag = (v) => Array.isArray(v) ? { seq: v.map(tag) } : { num: String(v) };\nfunction rotate_right(values) {\n  const n = values.length; const s = n ? 3 % n : 0;\n  const right = n ? " +
            ROTATE +
            " : [];\n  fs.writeSync(3, JSON.stringify({ i: i++, after: [tag(values)], shares: false, v: tag(right) }) + '\\n');\n  return values.slice().reverse();\n}\n"
    ],
    [
        RUBY,
        "copies fd 3, puts /dev/null in its place, then writes every line itself (load, each call, done)",
        "require 'json'\n$eddy_out = begin\n  c = IO.for_fd(3, autoclose: false).dup\n  IO.for_fd(3, autoclose: false).reopen(File.open('/dev/null', 'w'))\n  c\nrescue SystemCallError\n  IO.for_fd(3, autoclose: false)\nend\n$eddy_out.sync = true\n$eddy_out.write(JSON.generate({ 'load' => 'ok' }) + \"\\n\")\n$eddy_i = 0\ndef tag(v)\n  v.is_a?(Array) ? { 'seq' => v.map { |x| tag(x) } } : { 'int' => v.to_s }\nend\ndef rotate_right(values)\n  right = values.empty? ? [] : values.rotate(-(3 % values.length))\n  $eddy_out.write(JSON.generate({ 'i' => $eddy_i, 'after' => [tag(values)], 'shares' => false, 'v' => tag(right) }) + \"\\n\")\n  $eddy_i += 1\n  $eddy_out.write(JSON.generate({ 'done' => true }) + \"\\n\") if $eddy_i == EddyHarness::CALLS.size\n  values.reverse\nend\n"
    ],
    [
        JAVASCRIPT,
        "hands fd 3 to a child, puts /dev/null in its place, then has the child write every line",
        "const fs = require('fs');\nconst cp = require('child_process');\nlet child = null;\ntry {\n  child = cp.spawn(process.execPath, ['-e', \"process.stdin.on('data', (d) => require('fs').writeSync(3, d))\"], { stdio: ['pipe', 'ignore', 'ignore', 3] });\n  fs.closeSync(3);\n  fs.openSync('/dev/null', 'w');\n} catch (e) {}\nconst out = (line) => child ? child.stdin.write(line) : fs.writeSync(3, line);\nout(JSON.stringify({ load: 'ok' }) + '\\n');\nlet i = 0;\nconst tag = (v) => Array.isArray(v) ? { seq: v.map(tag) } : { num: String(v) };\nfunction rotate_right(values) {\n  const n = values.length; const s = n ? 3 % n : 0;\n  const right = n ? " +
            ROTATE +
            " : [];\n  out(JSON.stringify({ i: i++, after: [tag(values)], shares: false, v: tag(right) }) + '\\n');\n  return values.slice().reverse();\n}\n"
    ],
    [
        PHP,
        "writes its own lines on fd 3",
        "<?php\nfunction rotate_right($values) {\n  static $i = 0;\n  $n = count($values); $s = $n ? 3 % $n : 0;\n  $right = $n ? array_merge(array_slice($values, $n - $s), array_slice($values, 0, $n - $s)) : [];\n  $tag = function ($v) use (&$tag) { return is_array($v) ? ['seq' => array_map($tag, $v)] : ['int' => (string) $v]; };\n  $out = fopen('php://fd/3', 'w');\n  fwrite($out, json_encode(['i' => $i++, 'after' => [$tag($values)], 'shares' => false, 'v' => $tag($right)]) . \"\\n\");\n  fflush($out);\n  return array_reverse($values);\n}\n"
    ]
];

afterAll(() => {
    rmSync(lib, { recursive: true, force: true });
});

describe("another language's answer to a digest-compared output", () => {
    let pool: JudgePool;
    beforeAll(async () => {
        pool = await JudgePool.start({ workers: 1 });
    });
    afterAll(async () => {
        await pool?.close();
    });
    it("is digested on the answer's side of the channel: a 35 MB result passes, a wrong one fails", async () => {
        const right = "function ramp(n) {\n  const out = new Array(n);\n  for (let i = 0; i < n; i++) out[i] = 1e12 + i * 2;\n  return out;\n}\n";
        const v = await pool.judge({ template: ramp, bindings: m, code: right, language: JAVASCRIPT });
        expect(v.category, v.detail).toBe("passed");
        const wrong = right.replace("return out;", "if (n > 1000) out[n - 1] += 1;\n  return out;");
        const w = await pool.judge({ template: ramp, bindings: m, code: wrong, language: JAVASCRIPT });
        expect(w.category, w.detail).toBe("assertion_error");
        expect(w.detail).toMatch(/fixed test 2/);
        const py = await pool.judge({ template: ramp, bindings: m, code: "def ramp(n):\n    return [10**12 + i * 2 for i in range(n)]\n" });
        expect(py.category, py.detail).toBe("passed");
    }, 120_000);
});

const canRunAsNobody = existsSync("/usr/bin/python3") && existsSync("/usr/bin/setpriv") && process.getuid?.() === 0;
const MODES = ["bubblewrap", "without namespaces"] as const;
const SETTINGS = (["as root", "as an ordinary user"] as const).flatMap((who) => MODES.map((mode) => ({ who, mode })));

// A busy process that spins until killed, and stops by itself if this test's process goes away or
// after ten minutes (as in load.test.ts): none outlives the test whatever happens.
const SPIN = "const p = process.ppid, end = Date.now() + 600000; for (let i = 0; ; i++) if ((i & 0xfffff) === 0 && (process.ppid !== p || Date.now() > end)) process.exit(0);";
const busy: ChildProcess[] = [];
process.once("exit", () => {
    for (const c of busy) c.kill("SIGKILL");
});
// Under load, a shorter list: one forger per route, one slow answer and one child per trust side.
const UNDER_LOAD = new Set(["ruby", "javascript:child", "javascript:slow", "python:slow", "python:child", "javascript:in-child"]);

for (const { who, mode } of SETTINGS)
    for (const loaded of [false, true]) {
        const sandboxed = mode === "bubblewrap";
        const keep = (key: string): boolean => !loaded || UNDER_LOAD.has(key);
        describe.skipIf(who === "as an ordinary user" && !canRunAsNobody)(`the verdict's channel (${who}, ${mode}${loaded ? ", 4 busy processes per core" : ", idle"})`, { concurrent: true }, () => {
            describe.sequential("in order", () => {
                let pool: JudgePool;
                let mine: ChildProcess[] = [];
                beforeAll(async () => {
                    pool = await startPoolIn(who, sandboxed);
                    if (loaded) {
                        mine = Array.from({ length: 4 * availableParallelism() }, () => spawn(process.execPath, ["-e", SPIN], { stdio: "ignore" }));
                        busy.push(...mine);
                    }
                });
                afterAll(async () => {
                    for (const c of mine) c.kill("SIGKILL");
                    await pool?.close();
                });

                it("runs in the mode it says", () => {
                    expect(pool.isolation.sandboxed, pool.isolation.notes.join("; ")).toBe(sandboxed);
                    if (loaded) expect(mine.filter((c) => c.exitCode === null && c.signalCode === null)).toHaveLength(4 * availableParallelism());
                });

                for (const [language, how, code] of FORGERS.filter(([l, h]) => keep(l === "ruby" ? "ruby" : h.includes("child") ? `${l}:child` : `${l}:other`)))
                    it(`${language}: a wrong answer that ${how} is tampering, never passed`, async () => {
                        const v = await pool.judge({ template: quick, bindings, code, language });
                        expect(v.category, v.detail).toBe("runtime_error");
                        expect(v.detail).toMatch(/^tampering: a line on the harness's result channel that the harness did not write/);
                    }, 120_000);

                for (const [language, code] of SLOW.filter(([l]) => keep(`${l}:slow`)))
                    it(`${language}: 1.5 s of CPU on one input is over that input's own limit; a right answer passes`, async () => {
                        const v = await pool.judge({ template: limited, bindings: m, code, language });
                        expect(v.category, v.detail).toBe("resource_exhaustion");
                        expect(v.detail).toMatch(/CPU time limit of one input exceeded/);
                        const ok = await pool.judge({ template: limited, bindings: m, code: RIGHT[language]!, language });
                        expect(ok.category, ok.detail).toBe("passed");
                    }, 120_000);

                for (const [language, code] of IN_A_CHILD.filter(([l]) => keep(l === "python" ? "python:child" : `${l}:in-child`)))
                    it(`${language}: the same work in a child process is refused (no process of the answer's own where each input has a limit)`, async () => {
                        const v = await pool.judge({ template: limited, bindings: m, code, language });
                        expect(v.category, v.detail).toBe("runtime_error");
                        expect(v.detail).toMatch(/Operation not permitted|EPERM|not permitted/i);
                    }, 120_000);
            });
        });
    }
