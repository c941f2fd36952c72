import { describe, expect, it } from "vitest";
import { deriveMutants } from "../../src/import/turbulence/importQuestions.js";
import { parsePythonTuple, readTurbulenceResults, temperatureFromName, turbulenceExtraction } from "../../src/import/turbulence/results.js";
import { cpSync } from "node:fs";
import { writeTurbulenceFixture } from "./fixtures.js";
import { readRulesFile, ruleFor } from "../../src/import/turbulence/rules.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { scores3, type AgreementReport } from "../../src/report/agreement.js";
import { agreementHtml, appendAgreement } from "../../src/report/agreementRender.js";

describe("Turbulence results parsing", () => {
    it("reads parameter tuples as all_params.txt writes them", () => {
        expect(parsePythonTuple("(3, 5, 10, 20)")).toEqual([3, 5, 10, 20]);
        expect(parsePythonTuple("(7,)")).toEqual([7]);
        expect(parsePythonTuple("[14, 64]")).toEqual([14, 64]);
        expect(parsePythonTuple("('a', -2, True)")).toEqual(["a", -2, true]);
        expect(parsePythonTuple("('it''s',")).toBeUndefined();
    });

    it("reads the temperature from the folder name", () => {
        expect(temperatureFromName("Claude_3_5_Haiku_T_0")).toBe(0);
        expect(temperatureFromName("Some_Model_T_1")).toBe(1);
        expect(temperatureFromName("Some_Model_T_0_5")).toBe(0.5);
        expect(temperatureFromName("results")).toBeUndefined();
    });

    it("extracts code the way Turbulence's harness does: from the first fence to the end", () => {
        const text = "Here is Python code:\n```python\ndef f():\n    return 1\n```\nExample:\n```python\nf()\n```";
        const got = turbulenceExtraction(text);
        expect(got.startsWith("\ndef f():")).toBe(true);
        expect(got).toContain("Example:"); // prose after the first block stays in: it no longer parses
        expect(turbulenceExtraction("```\ndef g():\n    pass\n```")).toBe("\ndef g():\n    pass\n");
    });
});

describe("reading a results folder", () => {
    it("reads Turbulence's verdicts and how far its harness got, and picks one model", () => {
        const dir = mkdtempSync(path.join(tmpdir(), "eddy-results-"));
        try {
            const { results } = writeTurbulenceFixture(dir);
            const r = readTurbulenceResults(results);
            expect(r).toMatchObject({ model: "tinycoder", temperature: 0 });
            expect(r.responses).toHaveLength(40);
            const at = (q: number, round: number, folder: number) => r.responses.find((x) => x.question === q && x.round === round && x.folder === folder)!.verdict;
            expect(at(1, 0, 3)).toMatchObject({ correct: false, stage: "fixed_tests", fault: "timeout" });
            expect(at(1, 0, 3).detail).toContain("--timeout=7");
            expect(at(2, 1, 2)).toMatchObject({ correct: false, fault: "crash" });
            expect(at(4, 0, 2)).toMatchObject({ correct: false, stage: "fuzzing", fault: null });
            expect(at(5, 0, 2)).toMatchObject({ correct: false, stage: "rejected" });
            expect(at(55, 0, 1)).toMatchObject({ correct: true, stage: "passed" });
            expect(r.responses.find((x) => x.question === 5 && x.folder === 3)!.params).toEqual(["q"]);
            cpSync(path.join(results, "Q1", "tinycoder_results_1"), path.join(results, "Q1", "othercoder_results_1"), { recursive: true });
            expect(() => readTurbulenceResults(results)).toThrow(/two models .* choose one with --model/);
            expect(readTurbulenceResults(results, "othercoder").responses).toHaveLength(4);
            expect(() => readTurbulenceResults(results, "nobody")).toThrow(/no results of model 'nobody'/);
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
});

describe("harness rules and mutants", () => {
    it("keeps Turbulence's per-question rules as data, with user entries on top", () => {
        expect(ruleFor(55).comparator).toBe("unordered");
        expect(ruleFor(54).arguments).toBe("single");
        expect(ruleFor(1)).toEqual({});
        expect(ruleFor(1, { "1": { comparator: "set" } }).comparator).toBe("set");
    });

    it("reads a rules file and rejects a bad one with one line", () => {
        const dir = mkdtempSync(path.join(tmpdir(), "eddy-rules-"));
        try {
            const good = path.join(dir, "good.yaml");
            writeFileSync(good, "7: {comparator: unordered, arguments: single, group: list, subgroup: filtering}\n");
            expect(ruleFor(7, readRulesFile(good))).toEqual({ comparator: "unordered", arguments: "single", group: "list", subgroup: "filtering" });
            const bad = path.join(dir, "bad.yaml");
            writeFileSync(bad, "7: {arguments: scatter}\n");
            expect(() => readRulesFile(bad)).toThrow(/question 7: arguments must be one of spread, single, list/);
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });

    it("derives parameter and comparison mutants, and none where there is nothing to change", () => {
        const m = deriveMutants("def f(xs):\n    if len(xs) > $0:\n        return xs[$0:$1]\n    return []\n", [[1, 4], [2, 9]]);
        expect(m.map((x) => x.name)).toEqual(["mutant_p0_plus_one", "mutant_p0_minus_one", "mutant_p1_plus_one", "mutant_p1_minus_one", "mutant_compare_1"]);
        expect(m[0]!.template).toContain("xs[($0 + 1):$1]");
        expect(m[4]!.template).toContain("len(xs) >= $0");
        // A string parameter and no comparison: nothing to derive.
        expect(deriveMutants("def f(s):\n    return s.count('$0')\n", [["a"], ["b"]])).toEqual([]);
        // A return annotation is not a comparison.
        expect(deriveMutants("def f(s) -> int:\n    return 1\n", [["a"]])).toEqual([]);
    });
});

describe("agreement scores", () => {
    it("computes AS, CPS and CCS like a hand count", () => {
        // instance 0: 2/2, instance 1: 1/2, instance 2: 0/2
        const rows = [
            { instance: 0, correct: true },
            { instance: 0, correct: true },
            { instance: 1, correct: false },
            { instance: 1, correct: true },
            { instance: 2, correct: false },
            { instance: 2, correct: false }
        ];
        expect(scores3(rows)).toEqual({ AS: 3 / 6, CPS: 2 / 3, CCS: 1 / 3 });
    });

    it("escapes every value in the HTML section and adds the agreement to JSON", () => {
        const a: AgreementReport = {
            source: "turbulence",
            runs: ["r"],
            responses: 1,
            agree: 0,
            rate: 0,
            matrix: { bothCorrect: 0, bothWrong: 0, eddyOnly: 1, publishedOnly: 0 },
            excluded: { missing: 0, eddyHarness: 0 },
            scores: { eddy: { AS: 1, CPS: 1, CCS: 1 }, published: { AS: 0, CPS: 0, CCS: 0 } },
            templates: [{ template: "t<b>", responses: 1, agree: 0, rate: 0, eddy: { AS: 1, CPS: 1, CCS: 1 }, published: { AS: 0, CPS: 0, CCS: 0 } }],
            causes: { their_harness: 0, eddy_harness: 0, extraction: 0, oracle: 1 },
            disagreements: [
                {
                    run: "r",
                    template: "t<b>",
                    instance: 0,
                    params: ["<img src=x onerror=alert(1)>"],
                    round: 0,
                    eddy: "passed",
                    eddyDetail: "",
                    published: "wrong",
                    publishedStage: "fuzzing",
                    publishedDetail: "<script>alert(1)</script>",
                    cause: "oracle",
                    explanation: "their tests failed it at fuzzing (<script>alert(1)</script>)",
                    location: "Q1/</td>"
                }
            ]
        };
        const html = agreementHtml(a);
        expect(html).not.toMatch(/<script|<img|t<b>|Q1\/<\/td>/);
        expect(html).toContain("&lt;script&gt;");
        const doc = appendAgreement("html", "<html><body><main><p>x</p></main></body></html>", a);
        expect(doc.indexOf('id="agreement"')).toBeLessThan(doc.indexOf("</main>"));
        expect(JSON.parse(appendAgreement("json", '{"runs": []}', a)).agreement.causes.oracle).toBe(1);
        expect(appendAgreement("csv", "a,b\n", a)).toBe("a,b\n");
        expect(appendAgreement("text", "x\n", undefined)).toBe("x\n");
    });
});
