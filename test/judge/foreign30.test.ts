/**
 * Issue #30, answers in JavaScript, Ruby and PHP: the answer shares its process with its
 * language's harness, and must not be able to forge the harness's reports (an argument it changed
 * shown unchanged, its argument object shown as a new one), nor turn a line of its own on fd 3 into
 * a judge_error. Each case below got `passed` (or a judge_error) from the harnesses before; every
 * setting of languages.test.ts: bubblewrap and without namespaces, as root and as an ordinary user.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JudgePool } from "../../src/judge/JudgePool.js";
import { parseLanguage, type Language } from "../../src/languages/languages.js";
import { loadTemplate } from "../../src/templates/loadTemplates.js";
import { builtInLibrary } from "../../src/templates/library.js";
import type { Category } from "../../src/vocabulary.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const nobodyPython = path.join(here, "fixtures/nobody-python.sh");
const canRunAsNobody = existsSync("/usr/bin/python3") && existsSync("/usr/bin/setpriv") && process.getuid?.() === 0;
const FLOAT_400 = "9".repeat(400);

const JAVASCRIPT = parseLanguage("javascript");
const RUBY = parseLanguage("ruby");
const PHP = parseLanguage("php");
// [language, name, template, code, wanted categories, detail pattern]
type Case = [Language, string, "copy_last_n" | "copy_block", string, Category[], RegExp];
const cases: Case[] = [
    [
        JAVASCRIPT,
        "a Proxy of its argument returned as the new list",
        "copy_last_n",
        "function copy_last_n(values) {\n    return values.length <= 5 ? new Proxy(values, {}) : values.slice(-5);\n}\n",
        ["runtime_error"],
        /^tampering: .*Proxy/
    ],
    [
        JAVASCRIPT,
        "its argument's own Symbol.iterator hiding a change",
        "copy_last_n",
        "function copy_last_n(values) {\n    const out = values.slice(-5);\n    const orig = values.slice();\n    values.length = 0;\n    values[Symbol.iterator] = function* () { yield* orig; };\n    return out;\n}\n",
        ["runtime_error"],
        /^tampering: .*a redefined hook \(Symbol\.iterator\)/
    ],
    [
        JAVASCRIPT,
        "Array.prototype.map redefined to hide a change",
        "copy_last_n",
        "const realMap = Array.prototype.map;\nfunction copy_last_n(values) {\n    const out = values.slice(-5);\n    const orig = values.slice();\n    values.length = 0;\n    Array.prototype.map = function (f) { return realMap.call(this.length === 1 && this[0] === values ? [orig] : this, f); };\n    return out;\n}\n",
        ["runtime_error"],
        /^tampering: .*a redefined Array\.prototype\.map/
    ],
    [
        JAVASCRIPT,
        "a getter on its argument",
        "copy_last_n",
        "function copy_last_n(values) {\n    const out = values.slice(-5);\n    if (values.length) Object.defineProperty(values, 0, { get() { return out[0]; } });\n    return out;\n}\n",
        ["runtime_error"],
        /^tampering: .*getter/
    ],
    [
        JAVASCRIPT,
        "the caller's inner rows in a new outer list",
        "copy_block",
        "function copy_block(matrix) {\n    return matrix.slice(0, 7).map((row) => (row.length <= 7 ? row : row.slice(0, 7)));\n}\n",
        ["assertion_error"],
        /returned its argument object/
    ],
    [
        JAVASCRIPT,
        "a line of its own on fd 3 with a 400-digit float",
        "copy_last_n",
        `function copy_last_n(values) {\n    require('fs').writeSync(3, '{"i":0,"v":{"float":${FLOAT_400}},"after":null}\\n');\n    return values.slice(-5);\n}\n`,
        ["runtime_error"],
        /./
    ],
    [
        RUBY,
        "a singleton #map on its argument hiding a change",
        "copy_last_n",
        "def copy_last_n(values)\n  out = values.last(5)\n  orig = values.dup\n  values.clear\n  values.define_singleton_method(:map) { |&b| orig.map(&b) }\n  values.define_singleton_method(:each) { |&b| orig.each(&b) }\n  out\nend\n",
        ["assertion_error"],
        /modified its argument/
    ],
    [
        RUBY,
        "redefining the harness's sharing check",
        "copy_last_n",
        "def eddy_shares(*) = false\nclass Object\n  def eddy_shares(*) = false\nend\ndef copy_last_n(values)\n  values.length <= 5 ? values : values.last(5)\nend\n",
        ["assertion_error"],
        /returned its argument object/
    ],
    [
        RUBY,
        "redefining Array#map (a core class the judge froze)",
        "copy_last_n",
        "class Array\n  def map\n    []\n  end\nend\ndef copy_last_n(values)\n  values.last(5)\nend\n",
        ["runtime_error"],
        /^tampering: .*redefine Array \(frozen by the judge\)/
    ],
    [
        RUBY,
        "the caller's inner rows in a new outer list",
        "copy_block",
        "def copy_block(matrix)\n  (matrix[0, 7] || []).map { |row| row.length <= 7 ? row : row[0, 7] }\nend\n",
        ["assertion_error"],
        /returned its argument object/
    ],
    [
        RUBY,
        "a thread left running that puts the argument back",
        "copy_last_n",
        "def copy_last_n(values)\n  orig = values.dup\n  values.clear\n  Thread.new { sleep 0.001; values.replace(orig) }\n  orig.last(5)\nend\n",
        ["runtime_error"],
        /left a thread running/
    ],
    [
        RUBY,
        "a line of its own on fd 3 with a 400-digit float",
        "copy_last_n",
        `def copy_last_n(values)\n  io = IO.for_fd(3, autoclose: false)\n  io.write('{"i":0,"v":{"float":${FLOAT_400}},"after":null}' + "\\n")\n  io.flush\n  values.last(5)\nend\n`,
        ["runtime_error"],
        /./
    ],
    [
        PHP,
        "a destructor hung on the harness's previous result (a global) that puts the argument back",
        "copy_last_n",
        "<?php\nclass Restore { public $t; public $s; function __destruct() { $this->t = $this->s; } }\nfunction copy_last_n(&$values) {\n    $out = array_slice($values, -5);\n    $r = new Restore();\n    $r->s = $values;\n    $r->t = &$values;\n    $values = [];\n    $GLOBALS['v'] = [$r];\n    return $out;\n}\n",
        ["assertion_error"],
        /modified its argument/
    ],
    [
        PHP,
        "a line of its own on fd 3 with a 400-digit float",
        "copy_last_n",
        `<?php\nfunction copy_last_n($values) {\n    fwrite(fopen('php://fd/3', 'w'), '{"i":0,"v":{"float":${FLOAT_400}},"after":null}' . "\\n");\n    return array_slice($values, -5);\n}\n`,
        ["runtime_error"],
        /./
    ]
];
const RIGHT: Record<string, string> = {
    python: "",
    javascript: "function copy_last_n(values) {\n    return values.slice(-5);\n}\n",
    ruby: "def copy_last_n(values)\n  values.last(5)\nend\n",
    php: "<?php\nfunction copy_last_n($values) {\n    return array_slice($values, -5);\n}\n"
};
const BINDINGS = { copy_last_n: { n: 5 }, copy_block: { r0: 0, r1: 6, c0: 0, c1: 6 } };

const MODES = ["bubblewrap", "without namespaces"] as const;
const SETTINGS = (["as root", "as an ordinary user"] as const).flatMap((who) => MODES.map((mode) => ({ who, mode })));
for (const { who, mode } of SETTINGS) {
    const sandboxed = mode === "bubblewrap";
    describe.skipIf(who === "as an ordinary user" && !canRunAsNobody)(`foreign harnesses cannot be forged (${who}, ${mode})`, () => {
        let pool: JudgePool;
        beforeAll(async () => {
            const saved = process.env.EDDY_JUDGE_NO_NAMESPACES;
            if (!sandboxed) process.env.EDDY_JUDGE_NO_NAMESPACES = "1";
            try {
                pool = await JudgePool.start({ workers: 1, allowUnsandboxed: !sandboxed, ...(who === "as root" ? {} : { python: nobodyPython }) });
            } finally {
                if (saved === undefined) delete process.env.EDDY_JUDGE_NO_NAMESPACES;
                else process.env.EDDY_JUDGE_NO_NAMESPACES = saved;
            }
        });
        afterAll(async () => {
            await pool?.close();
        });

        for (const [language, name, id, code, want, detail] of cases)
            it(`${language}: ${name} → ${want.join(" | ")}`, async () => {
                const template = { ...loadTemplate(builtInLibrary(), id), randomInputs: 10 };
                const v = await pool.judge({ template: { ...template, oracleHash: `${template.oracleHash}|${who}|${mode}` }, bindings: BINDINGS[id], code, language });
                expect(want, `${name}: ${v.category} (${v.detail})`).toContain(v.category);
                expect(v.detail).toMatch(detail);
            });

        for (const language of [JAVASCRIPT, RUBY, PHP])
            it(`${language}: a right answer passes`, async () => {
                const template = { ...loadTemplate(builtInLibrary(), "copy_last_n"), randomInputs: 10 };
                const v = await pool.judge({ template, bindings: BINDINGS.copy_last_n, code: RIGHT[language]!, language });
                expect(v.category, v.detail).toBe("passed");
            });
    });
}
