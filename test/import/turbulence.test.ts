import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTemplateFile } from "../../src/templates/loadTemplates.js";
import { sampleInstances } from "../../src/templates/instances.js";
import { measureStrength } from "../../src/templates/strength/measure.js";
import { QUESTIONS, expectedVerdicts, writeTurbulenceFixture } from "./fixtures.js";

const BIN = path.resolve("dist/cli/bin.js");
/** The checked-in sample; test/import/fixtures.ts writes it. */
const SAMPLE = "test/import/turbulence-sample";

/** Every file under `dir`, relative, sorted. */
function tree(dir: string): string[] {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
        .sort();
}

const sha = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

describe("the checked-in Turbulence sample", () => {
    it("is exactly what test/import/fixtures.ts writes", () => {
        const dir = mkdtempSync(path.join(tmpdir(), "eddy-sample-"));
        try {
            writeTurbulenceFixture(dir);
            const files = tree(dir);
            expect(tree(SAMPLE)).toEqual(files);
            for (const f of files) expect(readFileSync(path.join(SAMPLE, f), "utf8"), f).toBe(readFileSync(path.join(dir, f), "utf8"));
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
});

interface Summary {
    imported: string[];
    templates: {
        id: string;
        question: number;
        arity: number;
        comparator: string;
        arguments: string;
        instances: number;
        paramsSource: string;
        textParams: string[];
        mutants: { derived: string[]; generic: string[] };
        validation: { how: string };
        warnings: string[];
    }[];
    skipped: unknown[];
}
interface Runs {
    runs: { runId: string; replay: string; responses: number; instances: number; rounds: number; reruns: number }[];
    forms: Record<string, number>;
    skipped: unknown[];
}

describe("eddy import turbulence / turbulence-results / report: published results, end to end", () => {
    let dir: string;
    const fx = { benchmark: path.resolve(SAMPLE, "benchmark"), results: path.resolve(SAMPLE, "results", "Tinycoder_T_0"), minicoder: path.resolve(SAMPLE, "results", "Minicoder_T_D") };
    let out: string;
    let db: string;
    let summary: Summary;
    let tiny: Runs;
    let mini: Runs;
    const eddy = (args: string[], env: Record<string, string> = {}) =>
        spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: { ...process.env, EDDY_DB: db, ...env } });
    const json = <T>(args: string[]): T => {
        const r = eddy(args);
        expect(r.status, r.stderr).toBe(0);
        return JSON.parse(r.stdout) as T;
    };

    beforeAll(() => {
        dir = mkdtempSync(path.join(tmpdir(), "eddy-import-"));
        out = path.join(dir, "imported");
        db = path.join(dir, "eddy.db");
        summary = json<Summary>(["import", "turbulence", fx.benchmark, "--out", out, "--results", fx.results, "--json", "--workers", "2"]);
        tiny = json<Runs>(["import", "turbulence-results", fx.results, "--templates", out, "--json", "--judge-workers", "2"]);
        mini = json<Runs>(["import", "turbulence-results", fx.minicoder, "--templates", out, "--temperature", "1", "--rerun-seeds", "0", "--json", "--judge-workers", "2"]);
    }, 600_000);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("writes one template per question, the published tuples as the neighbourhood, the harness rules as data", () => {
        const by = new Map(summary.templates.map((t) => [t.question, t]));
        expect([...by.keys()]).toEqual([1, 2, 4, 5, 7, 8, 55]);
        expect(summary.imported).toHaveLength(7);
        expect(summary.skipped).toEqual([]);
        for (const t of summary.templates) {
            expect(t.paramsSource).toBe(`Q${t.question}/tinycoder_results_1/params_report.json (and 1 later round(s))`);
            expect(t.validation.how).toBe("checked");
        }
        expect(by.get(2)).toMatchObject({ arity: 2, arguments: "spread", comparator: "ordered" });
        expect(by.get(55)!.comparator).toBe("unordered"); // Turbulence's rule for Q55, from the rules table
        expect(by.get(4)!.comparator).toBe("float:1e-9"); // the solution answers with floats
        // Q5: no integer parameter, no comparison: no mutant can be derived, said per template.
        expect(by.get(5)!.mutants.derived).toEqual([]);
        expect(by.get(5)!.mutants.generic).toHaveLength(3);
        expect(by.get(5)!.warnings.join(" ")).toMatch(/no mutant could be derived/);
        expect(by.get(1)!.mutants.derived.length).toBeGreaterThanOrEqual(3);
        expect(JSON.parse(readFileSync(path.join(out, "turbulence-import.json"), "utf8")).templates).toHaveLength(7);
        const oracle = readFileSync(path.join(out, "oracles", "turbulence_q2.py"), "utf8");
        expect(oracle).toContain('TURBULENCE_ARGUMENTS = "spread"');
        expect(oracle).not.toMatch(/generated_answer import/); // the candidate import is rewritten
        expect(readdirSync(dir).filter((f) => f.includes(".importing-"))).toEqual([]);
    });

    it("keeps the published neighbourhood in folder order, and a float parameter as Turbulence writes it", () => {
        // Q8's genparams.py would give 2.0, 3.0, 10.0, 0.25: the published tuples win, in their order.
        const q8 = summary.templates.find((t) => t.question === 8)!;
        expect(q8.textParams).toEqual(["p0"]);
        const yaml = readFileSync(path.join(out, "templates", "turbulence_q8.yaml"), "utf8");
        expect(yaml).toContain('edge:\n  - ["0.5"]\n  - ["974.0"]\n  - ["2.0"]\n  - ["1.25"]\n');
        const t = loadTemplateFile(path.join(out, "templates", "turbulence_q8.yaml"), path.join(out, "oracles"));
        const questions = sampleInstances(t, 4, 0).map((i) => i.question);
        expect(questions[1]).toBe("Write a function called 'scaled' that takes a list of numbers and returns a new list with every element multiplied by 974.0.");
        const q1 = loadTemplateFile(path.join(out, "templates", "turbulence_q1.yaml"), path.join(out, "oracles"));
        expect(sampleInstances(q1, 4, 0).map((i) => i.params)).toEqual(QUESTIONS.find((q) => q.n === 1)!.tuples);
        expect(sampleInstances(q1, 5, 0).map((i) => i.params)).toEqual(QUESTIONS.find((q) => q.n === 1)!.tuples);
    });

    it("every imported template passes 'eddy templates validate' on its recorded tuples", () => {
        const v = eddy(["templates", "validate", "--instances", "4", "--workers", "2"], { EDDY_TEMPLATES: path.join(out, "templates"), EDDY_ORACLES: path.join(out, "oracles") });
        expect(v.status, v.stdout + v.stderr).toBe(0);
        expect(v.stdout).toContain("7/7 template(s) valid");
    });

    it("measures the strength of the question's solution, not of the oracle's wrapper around it", async () => {
        const t = loadTemplateFile(path.join(out, "templates", "turbulence_q2.yaml"), path.join(out, "oracles"));
        const m = await measureStrength(t, sampleInstances(t, 4, 0));
        // solution.py.template has one `if` (line 2): two outcomes; the wrapper's cache `if` and loop are not counted.
        expect(m.fixed.branches).toBe(2);
        expect(m.fixed.lines).toBe(4);
        expect(m.random.coverage).toBe(1);
    });

    it("reads every printed response object, judges each, and matches the hand-computed scores both ways", () => {
        expect(tiny.runs).toHaveLength(1);
        expect(tiny.runs[0]).toMatchObject({ responses: 56, instances: 4, rounds: 2, reruns: 7 });
        expect(tiny.forms).toEqual({ openai: 56 });
        expect(mini.forms).toEqual({ anthropic: 8 });
        expect(tiny.skipped).toEqual([]);
        const r = eddy(["report", tiny.runs[0]!.runId, "--format", "json"]);
        expect(r.status, r.stderr).toBe(0);
        const rep = JSON.parse(r.stdout);
        const a = rep.agreement;
        // 56 responses, 7 disagreements (timeout, crash, float ==, extraction, three of their test's slips): 49 agree.
        expect(a).toMatchObject({ responses: 56, agree: 49, matrix: { bothCorrect: 41, bothWrong: 8, eddyOnly: 7, publishedOnly: 0 } });
        // Hand-computed from the fixture's plans (4 tuples × 2 rounds each).
        const hand: Record<string, [number, number, number, number, number, number]> = {
            //                AS eddy, CPS eddy, CCS eddy, AS turb, CPS turb, CCS turb
            turbulence_q1: [7 / 8, 1, 3 / 4, 6 / 8, 1, 2 / 4],
            turbulence_q2: [6 / 8, 1, 2 / 4, 5 / 8, 3 / 4, 2 / 4],
            turbulence_q4: [7 / 8, 1, 3 / 4, 6 / 8, 1, 2 / 4],
            turbulence_q5: [6 / 8, 3 / 4, 3 / 4, 5 / 8, 3 / 4, 2 / 4],
            turbulence_q7: [1, 1, 1, 5 / 8, 1, 1 / 4],
            turbulence_q8: [7 / 8, 1, 3 / 4, 7 / 8, 1, 3 / 4],
            turbulence_q55: [7 / 8, 1, 3 / 4, 7 / 8, 1, 3 / 4]
        };
        for (const t of a.templates as { template: string; eddy: Record<string, number>; published: Record<string, number> }[]) {
            const [as, cps, ccs, pas, pcps, pccs] = hand[t.template]!;
            expect([t.eddy.AS, t.eddy.CPS, t.eddy.CCS], t.template).toEqual([as, cps, ccs]);
            expect([t.published.AS, t.published.CPS, t.published.CCS], t.template).toEqual([pas, pcps, pccs]);
        }
        // eddy's own neighbourhood scores of the run agree with the eddy column.
        for (const row of rep.runs[0].templates as { template: string; AS: number; CPS: number; CCS: number }[]) {
            const [as, cps, ccs] = hand[row.template]!;
            expect([row.AS, row.CPS, row.CCS]).toEqual([as, cps, ccs]);
        }
        // The fixture's own expectations, response by response.
        const total = QUESTIONS.flatMap((q) => q.plan.flat()).map(expectedVerdicts);
        expect(total.filter((v) => v.eddy === v.turbulence)).toHaveLength(49);
    });

    it("names the right cause for every disagreement, re-running their test in the sandbox where it decides", () => {
        const a = JSON.parse(eddy(["report", tiny.runs[0]!.runId, "--format", "json"]).stdout).agreement;
        const causes = (a.disagreements as { template: string; cause: string }[]).map((d) => `${d.template}:${d.cause}`).sort();
        expect(causes).toEqual([
            "turbulence_q1:their_harness", // a pytest timeout
            "turbulence_q2:their_harness", // pytest crashed
            "turbulence_q4:oracle", // their fuzzing compared floats with ==
            "turbulence_q5:extraction", // their harness took the usage block, not the function
            "turbulence_q7:their_test",
            "turbulence_q7:their_test",
            "turbulence_q7:their_test"
        ]);
        expect(a.causes).toEqual({ their_harness: 2, their_inconsistent: 0, their_test: 3, eddy_harness: 0, extraction: 1, oracle: 1 });
        const q7 = (a.disagreements as { template: string; explanation: string; rerun: { seeds: number; response: { seeds: string }; reference: { seeds: string } } }[]).filter(
            (d) => d.template === "turbulence_q7"
        );
        for (const d of q7) {
            expect(d.explanation).toMatch(/^their test is wrong here: it fails the model solution itself on \d+ of 20 seeded re-runs \(seed \d+: test_random_list: AssertionError/);
            // The response and the model solution fail their test on the same seeds: the lists of even length.
            expect(d.rerun.response.seeds).toBe(d.rerun.reference.seeds);
            expect(d.rerun.reference.seeds).toMatch(/^(?=.*P)(?=.*F)[PF]{20}$/);
        }
    });

    it("finds identical code with opposite published verdicts across two models' runs", () => {
        const a = JSON.parse(eddy(["report", tiny.runs[0]!.runId, mini.runs[0]!.runId, "--format", "json"]).stdout).agreement;
        const minis = (a.disagreements as { run: string; cause: string; explanation: string }[]).filter((d) => d.run === mini.runs[0]!.runId);
        expect(minis).toHaveLength(2);
        for (const d of minis) {
            expect(d.cause).toBe("their_inconsistent");
            expect(d.explanation).toMatch(/^their harness: inconsistent verdicts for identical code \(2 of 4 identical answers on this instance marked correct\)$/);
        }
        expect(a.causes.their_inconsistent).toBe(2);
    });

    it("shows the agreement table in text and HTML, escaped", () => {
        const text = eddy(["report", tiny.runs[0]!.runId]);
        expect(text.status, text.stderr).toBe(0);
        expect(text.stdout).toContain("Agreement with Turbulence's published verdicts");
        expect(text.stdout).toContain("87.5%");
        expect(text.stdout).toContain("their test is wrong here");
        const file = path.join(dir, "r.html");
        expect(eddy(["report", tiny.runs[0]!.runId, "--out", file]).status).toBe(0);
        const html = readFileSync(file, "utf8");
        expect(html).toContain('<section id="agreement">');
        expect(html).toContain("their harness timed out");
        expect(html.indexOf('id="agreement"')).toBeLessThan(html.lastIndexOf("</body>"));
    });

    it("re-importing makes a new run and leaves the earlier run and its replay file as they were", () => {
        const before = sha(tiny.runs[0]!.replay);
        const again = json<Runs>(["import", "turbulence-results", fx.results, "--templates", out, "--json", "--judge-workers", "2", "--rerun-seeds", "0"]);
        expect(again.runs[0]!.runId).not.toBe(tiny.runs[0]!.runId);
        expect(again.runs[0]!.replay).not.toBe(tiny.runs[0]!.replay);
        expect(sha(tiny.runs[0]!.replay)).toBe(before);
        for (const run of [tiny.runs[0]!.runId, again.runs[0]!.runId]) {
            const r = eddy(["report", run, "--format", "json"]);
            expect(r.status, r.stderr).toBe(0);
            expect(JSON.parse(r.stdout).agreement.responses).toBe(56);
        }
    });

    it("re-importing unchanged questions reuses their validation (same oracle hash) and judges nothing", () => {
        const again = json<Summary>(["import", "turbulence", fx.benchmark, "--out", out, "--results", fx.results, "--json", "--workers", "2"]);
        expect(again.templates.map((t) => t.validation.how)).toEqual(Array(7).fill("cached"));
        expect(readdirSync(dir).filter((f) => f.includes(".importing-"))).toEqual([]);
    });
});
