import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parsePythonRepr, parsePythonTuple, PyReprError, readPythonString } from "../../src/import/turbulence/pythonRepr.js";
import { decodeResponse } from "../../src/import/turbulence/responseForms.js";
import { readTurbulenceResults } from "../../src/import/turbulence/results.js";
import { FORMS, printedResponse, pyRepr, QUESTIONS, responseText, writeTurbulenceFixture } from "./fixtures.js";

/** Texts with every escape Python's repr() writes, and both quotes. */
const TRICKY = [
    "plain",
    "it's",
    'say "hi"',
    `both ' and "`,
    "tab\there, newline\nthere, return\r",
    "back\\slash and \\n written out",
    "bell \x07, nul \x00, escape \x1b, del \x7f",
    "zero\u200bwidth, line\u2028separator, non-breaking\u00a0space",
    "printable: é — ü 中文 🐍",
    "astral control \u{e0001} tag",
    "```python\ndef f(s):\n    return s.replace('\\n', \"\\t\")\n```"
];

describe("the Python literal reader", () => {
    it("reads strings in every quoting and escape Python accepts", () => {
        expect(readPythonString(`'a\\'b'`).value).toBe("a'b");
        expect(readPythonString(`"a\\"b"`).value).toBe('a"b');
        expect(readPythonString(`'\\n\\t\\\\\\r\\a\\b\\f\\v'`).value).toBe("\n\t\\\r\x07\b\f\v");
        expect(readPythonString(`'\\x41\\u00e9\\U0001F40D'`).value).toBe("Aé🐍");
        expect(readPythonString(`'\\101\\0\\7'`).value).toBe("A\x00\x07");
        expect(readPythonString(`'''a'b"c\nd'''`).value).toBe(`a'b"c\nd`);
        expect(readPythonString(`"""x""" `).value).toBe("x");
        expect(readPythonString(`r'\\d+\\n'`).value).toBe("\\d+\\n");
        expect(readPythonString(`b'bytes'`).value).toBe("bytes");
        expect(readPythonString(`'line \\\ncontinued'`).value).toBe("line continued");
        expect(readPythonString(`'unknown \\q escape'`).value).toBe("unknown \\q escape");
        // Adjacent literals are one string, as in Python source.
        expect(readPythonString(`'ab' "cd"\n  'ef'`)).toEqual({ value: "abcdef", end: 16 });
    });

    it("says where and why a literal does not read", () => {
        expect(() => readPythonString(`'open`)).toThrow(/unterminated string literal/);
        expect(() => readPythonString(`'a\nb'`)).toThrow(/end of line inside a string literal at character 3/);
        expect(() => readPythonString(`'\\x4'`)).toThrow(/\\x needs 2 hex digits at character 2/);
        expect(() => readPythonString(`'\\N{BULLET}'`)).toThrow(/\\N\{…\} escapes .* not supported/);
        expect(() => parsePythonRepr("Foo(a=1")).toThrow(PyReprError);
        expect(() => parsePythonRepr("[1, 2] extra")).toThrow(/unexpected text after the value/);
    });

    it("reads every string exactly as Python's own repr() writes it", () => {
        const py = spawnSync("python3", ["-c", "import json,sys\nfor s in json.load(sys.stdin): print(repr(s))"], { input: JSON.stringify(TRICKY), encoding: "utf8" });
        expect(py.status, py.stderr).toBe(0);
        const lines = py.stdout.trimEnd().split("\n");
        expect(lines).toHaveLength(TRICKY.length);
        lines.forEach((line, i) => {
            expect(readPythonString(line).value).toBe(TRICKY[i]);
            // The fixtures' writer is Python's repr(), not an imitation of it.
            expect(pyRepr(TRICKY[i]!)).toBe(line);
        });
    });

    it("reads printed objects, pydantic fields, containers and parameter tuples", () => {
        expect(parsePythonRepr("Outer(a=1, b=[Inner(x='y')], c=None, d={'k': (1, 2.5)}, e=<Foo object at 0x7f>)")).toEqual({
            kind: "call",
            name: "Outer",
            args: [],
            kwargs: { a: 1, b: [{ kind: "call", name: "Inner", args: [], kwargs: { x: "y" } }], c: null, d: { kind: "dict", entries: [["k", [1, 2.5]]] }, e: { kind: "name", name: "<Foo object at 0x7f>" } }
        });
        expect(parsePythonRepr("id='x' created=12 usage=U(n=-1)")).toEqual({ kind: "call", name: "", args: [], kwargs: { id: "x", created: 12, usage: { kind: "call", name: "U", args: [], kwargs: { n: -1 } } } });
        expect(parsePythonTuple("(3, 5, 10, 20)")).toEqual([3, 5, 10, 20]);
        expect(parsePythonTuple("(7,)")).toEqual([7]);
        expect(parsePythonTuple("[14, 64]")).toEqual([14, 64]);
        expect(parsePythonTuple("('a', -2, True, 1_000, 974.0, [1, 'b'])")).toEqual(["a", -2, true, 1000, 974, [1, "b"]]);
        expect(parsePythonTuple("7")).toEqual([7]);
        expect(parsePythonTuple("('it''s',")).toBeUndefined();
        expect(parsePythonTuple("(None,)")).toBeUndefined();
    });
});

describe("published response files", () => {
    const code = "```python\ndef f(x):\n    return x + '\\n'\n```";

    it("decodes each form found in the published repositories to the model's text", () => {
        for (const form of FORMS) {
            for (const text of [...TRICKY, code]) {
                if (form === "cohere" && text.includes("\n\tlikelihood:")) continue;
                const p = printedResponse(form, text, 7, "somecoder");
                const d = decodeResponse(p.content, p.file);
                expect(d, `${form}: ${JSON.stringify(text)}`).toEqual({ text, form });
            }
        }
    });

    it("keeps a message without text as an empty answer, and says so", () => {
        const none = "ChatCompletion(id='c', choices=[Choice(finish_reason='tool_calls', index=0, message=ChatCompletionMessage(content=None, role='assistant', tool_calls=[]))], model='m')";
        expect(decodeResponse(none)).toEqual({ text: "", form: "openai", detail: "the printed ChatCompletion has no message text (content=None)" });
        expect(decodeResponse("Message(id='m', content=[], model='x', role='assistant')")).toMatchObject({ text: "", form: "anthropic" });
    });

    it("reads a message in another printed object the same way, named after the object", () => {
        const hf = "ChatCompletionOutput(choices=[ChatCompletionOutputComplete(finish_reason='stop', index=0, message=ChatCompletionOutputMessage(role='assistant', content='def g():\\n    pass'))], created=1, model='m')";
        expect(decodeResponse(hf)).toEqual({ text: "def g():\n    pass", form: "object:ChatCompletionOutput" });
    });

    it("names a printed object in no known form instead of judging it, and takes prose as prose", () => {
        const odd = decodeResponse("GenerateContentResponse(done=True, candidates=[Candidate(parts=[Part(data=b'x')])])");
        expect(odd.text).toBeNull();
        expect(odd.form).toBe("unknown");
        expect(odd.detail).toMatch(/^response\.txt holds a printed object in no known form \(starts "GenerateContentResponse\(done=True/);
        expect(odd.detail).toContain("known forms: ChatCompletion");
        const broken = decodeResponse("ChatCompletion(id='x', choices=[Choice(message=ChatCompletionMessage(content='unterminated");
        expect(broken).toMatchObject({ text: null, form: "unknown" });
        expect(broken.detail).toMatch(/does not read as one \(unterminated string literal at character \d+\)/);
        expect(decodeResponse("Sure(ly) this works:\n```python\ndef f(): pass\n```")).toMatchObject({ form: "text" });
        expect(decodeResponse("def f(x):\n    return x")).toEqual({ text: "def f(x):\n    return x", form: "text" });
        expect(decodeResponse('{"choices": []}', "response.json")).toMatchObject({ text: null, form: "unknown" });
    });

    it("reads a results folder written in every form back to the fixture's own texts", () => {
        for (const form of FORMS) {
            const dir = mkdtempSync(path.join(tmpdir(), `eddy-forms-${form}-`));
            try {
                const { results } = writeTurbulenceFixture(dir, { form });
                const r = readTurbulenceResults(results);
                expect(r.skipped).toEqual([]);
                expect(r.responses).toHaveLength(56);
                for (const x of r.responses) {
                    const q = QUESTIONS.find((y) => y.n === x.question)!;
                    const kind = q.plan[x.round]![x.folder - 1]!;
                    expect(x.form).toBe(form);
                    expect(x.response, `${form} ${x.verdict.location}`).toBe(responseText(q, kind, q.tuples[x.folder - 1]!, x.folder + x.round));
                    expect(x.raw).not.toBeNull();
                }
            } finally {
                rmSync(dir, { recursive: true, force: true });
            }
        }
    });
});
