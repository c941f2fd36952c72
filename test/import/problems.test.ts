import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parsePythonJson, readHumanEvalProblems } from "../../src/import/humaneval/problems.js";

describe("reading EvalPlus's release files", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "eddy-problems-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const problem = { task_id: "Mbpp/9", prompt: '"""\nWrite a function.\n"""\n', entry_point: "f", canonical_solution: "def f(x):\n    return x\n", atol: 0 };

    it("reads NaN and infinities as Python's json writes them, outside strings only", () => {
        expect(parsePythonJson('{"a": [NaN, -Infinity, Infinity], "s": "NaN \\" Infinity"}')).toEqual({ a: [null, null, null], s: 'NaN " Infinity' });
        expect(() => parsePythonJson('{"a": Nope}')).toThrow();
    });

    it("takes an MBPP+ line with such inputs and an empty mapping for no plus inputs (as EvalPlus iterates it)", () => {
        const file = path.join(dir, "mbpp.jsonl");
        const line = JSON.stringify({ ...problem, base_input: [[1]], plus_input: {} }).replace('"base_input":[[1]]', '"base_input":[[1], [Infinity], [NaN]]');
        writeFileSync(file, line + "\n");
        const [p] = readHumanEvalProblems(file, "mbpp");
        expect(p!.base_input).toEqual([[1], [null], [null]]);
        expect(p!.plus_input).toEqual([]);
        // The line goes to Python as written.
        expect(p!.line).toContain("[Infinity], [NaN]");
    });

    it("asks MBPP+ for its inputs, and HumanEval for check() only when it has none", () => {
        const file = path.join(dir, "bad.jsonl");
        writeFileSync(file, JSON.stringify({ ...problem, base_input: [[1]] }) + "\n");
        expect(() => readHumanEvalProblems(file, "mbpp")).toThrow(/an MBPP\+ problem needs 'base_input' and 'plus_input'/);
        writeFileSync(file, JSON.stringify({ ...problem, test: "x = 1\n", base_input: [[1]], plus_input: [] }) + "\n");
        expect(readHumanEvalProblems(file, "humaneval")).toHaveLength(1);
        writeFileSync(file, JSON.stringify({ ...problem, test: "x = 1\n" }) + "\n");
        expect(() => readHumanEvalProblems(file, "humaneval")).toThrow(/defines no check\(candidate\)/);
    });
});
