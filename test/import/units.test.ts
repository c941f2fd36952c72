import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { deriveMutants } from "../../src/import/turbulence/importQuestions.js";
import { readQuestionFolders } from "../../src/import/turbulence/layout.js";
import {
    parsePythonTuple,
    readTurbulenceResults,
    reportEntryParams,
    reportTuples,
    temperatureFromName,
    temperatureLabel,
    turbulenceExtraction
} from "../../src/import/turbulence/results.js";
import { readRulesFile, ruleFor } from "../../src/import/turbulence/rules.js";
import { templateYaml } from "../../src/import/turbulence/templateYaml.js";
import { scores3, type AgreementReport } from "../../src/report/agreement.js";
import { agreementHtml } from "../../src/report/agreementRender.js";
import { renderReport } from "../../src/report/renderReport.js";
import { sampleStudy } from "../report/sample.js";
import { loadTemplateFile } from "../../src/templates/loadTemplates.js";
import { sampleInstances } from "../../src/templates/instances.js";
import { makeTempDir, sweepStale } from "../../src/util/tempDir.js";
import { writeTurbulenceFixture } from "./fixtures.js";

const withDir = (fn: (dir: string) => void): void => {
    const dir = mkdtempSync(path.join(tmpdir(), "eddy-units-"));
    try {
        fn(dir);
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
};

describe("Turbulence results parsing", () => {
    it("reads parameter tuples as all_params.txt writes them", () => {
        expect(parsePythonTuple("(3, 5, 10, 20)")).toEqual([3, 5, 10, 20]);
        expect(parsePythonTuple("(7,)")).toEqual([7]);
        expect(parsePythonTuple("[14, 64]")).toEqual([14, 64]);
        expect(parsePythonTuple("('a', -2, True)")).toEqual(["a", -2, true]);
        expect(parsePythonTuple("('it''s',")).toBeUndefined();
    });

    it("reads the tuples of params_report.json, with or without Turbulence's metrics after them", () => {
        expect(reportEntryParams([14, 64])).toEqual([14, 64]);
        expect(reportEntryParams([[14, 64], 2.4e-6, { h1: 0 }, { loc: 3 }, "A"])).toEqual([14, 64]);
        expect(reportEntryParams([[1, 2]])).toEqual([[1, 2]]); // one list-valued parameter
        expect(reportEntryParams(743)).toEqual([743]);
        expect(reportEntryParams({ x: 1 })).toBeUndefined();
        const tuples = reportTuples({ wrong: { Folder_10: [5, 6], Folder_2: [3, 4] }, correct: { Folder_1: [[1, 2], 1e-6, { h: 1 }, "A"], note: [0] } });
        expect([...tuples.entries()]).toEqual([
            [1, [1, 2]],
            [2, [3, 4]],
            [10, [5, 6]]
        ]);
        expect(reportTuples({ wrong: 0, correct: 0 }).size).toBe(0);
    });

    it("reads the temperature from the folder name, and names _T_D", () => {
        expect(temperatureFromName("Claude_3_5_Haiku_T_0")).toBe(0);
        expect(temperatureFromName("Some_Model_T_1")).toBe(1);
        expect(temperatureFromName("Some_Model_T_0_5")).toBe(0.5);
        expect(temperatureFromName("results")).toBeUndefined();
        expect(temperatureFromName("Gemma_2_27B_T_D")).toBeUndefined();
        expect(temperatureLabel("Gemma_2_27B_T_D")).toBe("D");
        expect(temperatureLabel("results")).toBeUndefined();
    });

    it("extracts code the way each Turbulence harness did", () => {
        const text = "Here is Python code:\n```python\ndef f():\n    return 1\n```\nExample:\n```python\nf()\n```";
        // v1 (text, JSON): from the first fence to the end, so prose after the first block stays in.
        const got = turbulenceExtraction(text);
        expect(got.startsWith("\ndef f():")).toBe(true);
        expect(got).toContain("Example:");
        expect(turbulenceExtraction("```\ndef g():\n    pass\n```")).toBe("\ndef g():\n    pass\n");
        // v2 (printed objects): the first block only, trimmed (its generated_answer.py files).
        expect(turbulenceExtraction(text, "anthropic")).toBe("def f():\n    return 1");
        expect(turbulenceExtraction("no fence here", "openai")).toBe("no fence here");
        // v1 Cohere: between the first and the last fence.
        expect(turbulenceExtraction("```python\ndef h():\n    pass\n``` and ```x```", "cohere")).toBe("\ndef h():\n    pass\n``` and ```x");
    });
});

describe("reading a results folder", () => {
    it("reads Turbulence's verdicts and how far its harness got, and picks one model", () => {
        withDir((dir) => {
            const { results } = writeTurbulenceFixture(dir);
            const r = readTurbulenceResults(results);
            expect(r).toMatchObject({ model: "tinycoder", temperature: 0, temperatureLabel: "0", skipped: [] });
            expect(r.responses).toHaveLength(56);
            const at = (q: number, round: number, folder: number) => r.responses.find((x) => x.question === q && x.round === round && x.folder === folder)!;
            expect(at(1, 0, 3).verdict).toMatchObject({ correct: false, stage: "fixed_tests", fault: "timeout" });
            expect(at(1, 0, 3).verdict.detail).toContain("--timeout=7");
            // No test report and no all_params.txt: the parameters come from params_report.json.
            expect(at(2, 1, 2).verdict).toMatchObject({ correct: false, fault: "crash" });
            expect(at(2, 1, 2).params).toEqual([3]);
            expect(at(4, 0, 2).verdict).toMatchObject({ correct: false, stage: "fuzzing", fault: null });
            expect(at(5, 0, 2).verdict).toMatchObject({ correct: false, stage: "rejected" });
            expect(at(5, 0, 2).verdict.extracted).toBe("print(count_char('ee'))");
            expect(at(55, 0, 1).verdict).toMatchObject({ correct: true, stage: "passed" });
            expect(at(5, 0, 3).params).toEqual(["q"]);
            expect(at(8, 0, 2).params).toEqual([974]);
            expect(at(1, 0, 1).raw).toMatch(/^ChatCompletion\(id='chatcmpl-/);
            expect(at(1, 1, 2).response).toMatch(/^Here's a function that does it:\n\n```python\ndef span_total/);
            cpSync(path.join(results, "Q1", "tinycoder_results_1"), path.join(results, "Q1", "othercoder_results_1"), { recursive: true });
            expect(() => readTurbulenceResults(results)).toThrow(/two models .* choose one with --model/);
            expect(readTurbulenceResults(results, "othercoder").responses).toHaveLength(4);
            expect(() => readTurbulenceResults(results, "nobody")).toThrow(/no results of model 'nobody'/);
        });
    });

    it("skips what cannot be read and says why: a file in no known form, a response without parameters", () => {
        withDir((dir) => {
            const { results } = writeTurbulenceFixture(dir);
            const run = path.join(results, "Q1", "tinycoder_results_2");
            writeFileSync(path.join(run, "Folder_1", "response.txt"), "GenerateContentResponse(done=True, result=Result(parts=[]))");
            rmSync(path.join(run, "Folder_2", "pre_existing_test_case_report.json"));
            writeFileSync(path.join(run, "params_report.json"), JSON.stringify({ model_name: "x", wrong: 0, correct: { Folder_1: [0, 0], Folder_3: [3, 3], Folder_4: [2, 9] } }));
            const r = readTurbulenceResults(results);
            expect(r.responses).toHaveLength(54);
            expect(r.skipped).toEqual([
                { location: "Q1/tinycoder_results_2/Folder_1/response.txt", reason: expect.stringMatching(/^response\.txt holds a printed object in no known form/) },
                { location: "Q1/tinycoder_results_2/Folder_2", reason: expect.stringMatching(/^a response without parameters/) }
            ]);
        });
    });
});

describe("question folders", () => {
    it("skips a question folder out of format and imports the rest; strict stops at it", () => {
        withDir((dir) => {
            const { benchmark } = writeTurbulenceFixture(dir);
            rmSync(path.join(benchmark, "Q2", "tests.py.template"));
            writeFileSync(path.join(benchmark, "Q4", "question.txt.template"), "A question that names no function.\n");
            const { folders, skipped } = readQuestionFolders(benchmark);
            expect(folders.map((f) => f.n)).toEqual([1, 5, 7, 8, 55]);
            expect(skipped).toEqual([
                { location: "Q2", reason: "benchmark/Q2 is not a Turbulence question folder: tests.py.template is missing" },
                { location: "Q4", reason: expect.stringMatching(/^benchmark\/Q4\/question\.txt\.template: no function name in single quotes/) }
            ]);
            expect(() => readQuestionFolders(benchmark, undefined, true)).toThrow(/Q2 is not a Turbulence question folder: tests\.py\.template is missing/);
        });
    });

    it("says what to do with a results folder given as the benchmark", () => {
        withDir((dir) => {
            const { results } = writeTurbulenceFixture(dir);
            expect(() => readQuestionFolders(results)).toThrow(/no Q<n>\/ folders with question\.txt\.template \(its Q<n>\/ folders hold no question files: for published results, pass the benchmark folder and --results/);
        });
    });
});

describe("the published neighbourhood as a template", () => {
    const input = (paramNames: string[]) => ({
        id: "turbulence_q9",
        question: 9,
        text: "Write a function called 'pick' that takes a list and returns the elements at positions $0, each $1 times, when $2.",
        function: "pick",
        arity: 1,
        group: "list" as const,
        subgroup: "indexing",
        returns: "list",
        paramNames,
        paramsSource: "Q9/m_results_1/params_report.json",
        arguments: "spread",
        comparator: "ordered"
    });
    const ORACLE = "def solution(xs, *, p0, p1, p2):\n    return xs\n\n\ndef tests(*, p0, p1, p2):\n    return []\n\n\ndef inputs(rng, *, p0, p1, p2):\n    return ([],)\n";

    it("admits only the published tuples, list- and boolean-valued ones included", () => {
        withDir((dir) => {
            // List-valued parameters travel as Python text (the importer's rule), booleans as themselves.
            const rows = [
                ["[0, 2]", 1, true],
                ["[1]", 3, false],
                ["[0, [1, 'a\"b']]", 2, true]
            ];
            const yaml = templateYaml(input(["p0", "p1", "p2"]), rows);
            expect(yaml.constrained).toBe(true);
            mkdirSync(path.join(dir, "templates"));
            mkdirSync(path.join(dir, "oracles"));
            writeFileSync(path.join(dir, "templates", "turbulence_q9.yaml"), yaml.text);
            writeFileSync(path.join(dir, "oracles", "turbulence_q9.py"), ORACLE);
            const t = loadTemplateFile(path.join(dir, "templates", "turbulence_q9.yaml"), path.join(dir, "oracles"));
            expect(sampleInstances(t, 3, 0).map((i) => i.params)).toEqual(rows);
            // 3 × 3 × 2 combinations of the choices, but the neighbourhood is the 3 published tuples.
            // A neighbourhood smaller than M gives every tuple it holds.
            expect(sampleInstances(t, 4, 0).map((i) => i.params)).toEqual(rows);
            expect(sampleInstances(t, 3, 0)[1]!.question).toBe("Write a function called 'pick' that takes a list and returns the elements at positions [1], each 3 times, when False.");
        });
    });

    it("says when a tuple cannot be written as a constraint", () => {
        expect(templateYaml(input(["p0", "p1", "p2"]), [["a\nb", 1, true], ["c", 2, false]]).constrained).toBe(false);
        expect(templateYaml(input(["p0", "p1", "p2"]), [["a", 1, true], ["c", 2, false]]).constrained).toBe(true);
        expect(templateYaml(input(["p0"]), [[1], [2]]).constrained).toBe(true);
    });
});

describe("temporary folders", () => {
    it("go away on dispose, and a sweep removes those of processes that no longer run", () => {
        withDir((dir) => {
            const t = makeTempDir(dir, ".x.importing-");
            expect(existsSync(t.path)).toBe(true);
            t.dispose();
            expect(existsSync(t.path)).toBe(false);
            const dead = spawnSyncPid();
            mkdirSync(path.join(dir, `.x.importing-${dead}-abc`));
            mkdirSync(path.join(dir, `.x.importing-${process.pid}-def`));
            expect(sweepStale(dir, ".x.importing-")).toEqual([`.x.importing-${dead}-abc`]);
            expect(readdirSync(dir)).toEqual([`.x.importing-${process.pid}-def`]);
        });
    });

    it("go away when the process is ended by a signal", async () => {
        const dir = mkdtempSync(path.join(tmpdir(), "eddy-signal-"));
        try {
            const script = `import { makeTempDir } from ${JSON.stringify(path.resolve("src/util/tempDir.ts"))};\nconst t = makeTempDir(${JSON.stringify(dir)}, ".x.importing-");\nconsole.log(t.path);\nsetInterval(() => {}, 1000);\n`;
            const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
            const made = await new Promise<string>((resolve) => child.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim())));
            expect(existsSync(made)).toBe(true);
            const ended = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
            child.kill("SIGTERM");
            expect(await ended).toBe("SIGTERM");
            expect(readdirSync(dir)).toEqual([]);
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
});

/** The pid of a process that has ended. */
function spawnSyncPid(): number {
    const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    return Number(r.stdout);
}

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

    it("escapes every value in the HTML section; the agreement is a section of the report data each format draws", async () => {
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
            causes: { their_harness: 0, their_inconsistent: 0, their_test: 0, eddy_harness: 0, extraction: 0, oracle: 1 },
            notes: [],
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
                    location: "Q1/</td>",
                    evidence: [],
                    rerun: null
                }
            ]
        };
        const html = agreementHtml(a);
        expect(html).not.toMatch(/<script|<img|t<b>|Q1\/<\/td>/);
        expect(html).toContain("&lt;script&gt;");
        const study = sampleStudy();
        const render = (format: "html" | "json" | "csv" | "text" | "md", agreement?: AgreementReport) => renderReport(study, [], format, { generated: "2026-01-01T00:00:00Z", ...(agreement ? { agreement } : {}) });
        const doc = await render("html", a);
        expect(doc.indexOf('id="agreement"')).toBeGreaterThan(doc.indexOf('id="templates"'));
        expect(doc.indexOf('id="agreement"')).toBeLessThan(doc.indexOf("</main>"));
        expect(doc).toContain('<a href="#agreement">Agreement</a>');
        expect(JSON.parse(await render("json", a)).agreement.causes.oracle).toBe(1);
        expect(await render("csv", a)).toBe(await render("csv"));
        for (const f of ["text", "md"] as const) {
            expect(await render(f, a)).toContain("Agreement with Turbulence's published verdicts");
            expect(await render(f)).not.toContain("published verdicts");
        }
    });
});
