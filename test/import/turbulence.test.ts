import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

describe("eddy import turbulence / turbulence-results / report: a round trip on original fixtures", () => {
    let dir: string;
    let fx: { benchmark: string; results: string };
    let out: string;
    let db: string;
    let summary: { templates: { id: string; question: number; arity: number; comparator: string; arguments: string; instances: number; paramsSource: string; mutants: { derived: string[]; generic: string[] }; warnings: string[] }[] };
    let runId: string;
    const eddy = (args: string[], env: Record<string, string> = {}) =>
        spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: { ...process.env, EDDY_DB: db, ...env } });

    beforeAll(() => {
        dir = mkdtempSync(path.join(tmpdir(), "eddy-import-"));
        fx = { benchmark: path.resolve(SAMPLE, "benchmark"), results: path.resolve(SAMPLE, "results", "Tinycoder_T_0") };
        out = path.join(dir, "imported");
        db = path.join(dir, "eddy.db");
        const imp = eddy(["import", "turbulence", fx.benchmark, "--out", out, "--json", "--workers", "2"]);
        expect(imp.stderr).toContain("turbulence_q5");
        expect(imp.status, imp.stderr).toBe(0);
        summary = JSON.parse(imp.stdout);
        const res = eddy(["import", "turbulence-results", fx.results, "--templates", out, "--json", "--judge-workers", "2"]);
        expect(res.status, res.stderr).toBe(0);
        const runs = JSON.parse(res.stdout).runs as { runId: string; responses: number; instances: number; rounds: number }[];
        expect(runs).toHaveLength(1);
        expect(runs[0]).toMatchObject({ responses: 40, instances: 4, rounds: 2 });
        runId = runs[0]!.runId;
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("writes one template per question with the harness rules as data, and a summary file", () => {
        const by = new Map(summary.templates.map((t) => [t.question, t]));
        expect([...by.keys()]).toEqual([1, 2, 4, 5, 55]);
        expect(by.get(2)).toMatchObject({ arity: 2, arguments: "spread", comparator: "ordered", paramsSource: "Q2/genparams.py" });
        expect(by.get(55)!.comparator).toBe("unordered"); // Turbulence's rule for Q55, from the rules table
        expect(by.get(4)!.comparator).toBe("float:1e-9"); // the solution answers with floats
        expect(by.get(1)).toMatchObject({ paramsSource: "Q1/all_params.txt", instances: 4 });
        expect(by.get(5)!.paramsSource).toBe("Q5/manually_chosen_params.txt");
        // Q5: no integer parameter, no comparison: no mutant can be derived, said per template.
        expect(by.get(5)!.mutants.derived).toEqual([]);
        expect(by.get(5)!.mutants.generic).toHaveLength(3);
        expect(by.get(5)!.warnings.join(" ")).toMatch(/no mutant could be derived/);
        expect(by.get(1)!.mutants.derived.length).toBeGreaterThanOrEqual(3);
        expect(JSON.parse(readFileSync(path.join(out, "turbulence-import.json"), "utf8")).templates).toHaveLength(5);
        const yaml = readFileSync(path.join(out, "templates", "turbulence_q2.yaml"), "utf8");
        expect(yaml).toContain("comparator: \"ordered\"");
        expect(yaml).toContain("{{p0}}");
        const oracle = readFileSync(path.join(out, "oracles", "turbulence_q2.py"), "utf8");
        expect(oracle).toContain('TURBULENCE_ARGUMENTS = "spread"');
        expect(oracle).not.toMatch(/generated_answer import/); // the candidate import is rewritten
        expect(readdirSync(dir).filter((f) => f.includes(".importing-"))).toEqual([]);
    });

    it("every imported template passes 'eddy templates validate' on its recorded tuples", () => {
        const v = eddy(["templates", "validate", "--instances", "4", "--workers", "2"], { EDDY_TEMPLATES: path.join(out, "templates"), EDDY_ORACLES: path.join(out, "oracles") });
        expect(v.status, v.stdout + v.stderr).toBe(0);
        expect(v.stdout).toContain("5/5 template(s) valid");
    });

    it("judges every response like the fixture's authors expect and matches the hand-computed scores both ways", () => {
        const r = eddy(["report", runId, "--format", "json"]);
        expect(r.status, r.stderr).toBe(0);
        const rep = JSON.parse(r.stdout);
        const a = rep.agreement;
        // 40 responses, 4 disagreements (timeout, crash, float ==, extraction): 36 agree.
        expect(a).toMatchObject({ responses: 40, agree: 36, matrix: { bothCorrect: 29, bothWrong: 7, eddyOnly: 4, publishedOnly: 0 } });
        expect(a.rate).toBeCloseTo(0.9, 12);
        // Hand-computed from the fixture's plans (4 tuples × 2 rounds each).
        const hand: Record<string, [number, number, number, number, number, number]> = {
            //                AS eddy, CPS eddy, CCS eddy, AS turb, CPS turb, CCS turb
            turbulence_q1: [7 / 8, 1, 3 / 4, 6 / 8, 1, 2 / 4],
            turbulence_q2: [6 / 8, 1, 2 / 4, 5 / 8, 3 / 4, 2 / 4],
            turbulence_q4: [7 / 8, 1, 3 / 4, 6 / 8, 1, 2 / 4],
            turbulence_q5: [6 / 8, 3 / 4, 3 / 4, 5 / 8, 3 / 4, 2 / 4],
            turbulence_q55: [7 / 8, 1, 3 / 4, 7 / 8, 1, 3 / 4]
        };
        for (const t of a.templates as { template: string; eddy: Record<string, number>; published: Record<string, number> }[]) {
            const [as, cps, ccs, pas, pcps, pccs] = hand[t.template]!;
            expect([t.eddy.AS, t.eddy.CPS, t.eddy.CCS]).toEqual([as, cps, ccs]);
            expect([t.published.AS, t.published.CPS, t.published.CCS]).toEqual([pas, pcps, pccs]);
        }
        expect(a.scores.eddy.AS).toBeCloseTo((7 / 8 + 6 / 8 + 7 / 8 + 6 / 8 + 7 / 8) / 5, 12);
        expect(a.scores.published.CCS).toBeCloseTo((2 / 4 + 2 / 4 + 2 / 4 + 2 / 4 + 3 / 4) / 5, 12);
        // eddy's own neighbourhood scores of the run agree with the eddy column.
        for (const row of rep.runs[0].templates as { template: string; AS: number; CPS: number; CCS: number }[]) {
            const [as, cps, ccs] = hand[row.template]!;
            expect([row.AS, row.CPS, row.CCS]).toEqual([as, cps, ccs]);
        }
        // Each disagreement with the cause eddy names.
        const causes = Object.fromEntries((a.disagreements as { template: string; cause: string }[]).map((d) => [d.template, d.cause]));
        expect(causes).toEqual({ turbulence_q1: "their_harness", turbulence_q2: "their_harness", turbulence_q4: "oracle", turbulence_q5: "extraction" });
        expect(a.causes).toEqual({ their_harness: 2, eddy_harness: 0, extraction: 1, oracle: 1 });
        // The fixture's own expectations, response by response.
        const total = QUESTIONS.flatMap((q) => q.plan.flat()).map(expectedVerdicts);
        expect(total.filter((v) => v.eddy === v.turbulence)).toHaveLength(36);
    });

    it("shows the agreement table in text and HTML, escaped", () => {
        const text = eddy(["report", runId]);
        expect(text.status, text.stderr).toBe(0);
        expect(text.stdout).toContain("Agreement with Turbulence's published verdicts");
        expect(text.stdout).toContain("90.0%");
        expect(text.stdout).toContain("extraction difference");
        const file = path.join(dir, "r.html");
        expect(eddy(["report", runId, "--out", file]).status).toBe(0);
        const html = readFileSync(file, "utf8");
        expect(html).toContain('<section id="agreement">');
        expect(html).toContain("their harness timed out");
        expect(html.indexOf('id="agreement"')).toBeLessThan(html.lastIndexOf("</body>"));
    });

    it("refuses a folder that is not in the format, and leaves nothing behind", () => {
        const empty = path.join(dir, "not-turbulence");
        mkdirSync(empty);
        writeFileSync(path.join(empty, "README.txt"), "hello");
        const target = path.join(dir, "never");
        const r = eddy(["import", "turbulence", empty, "--out", target]);
        expect(r.status).toBe(1);
        expect(r.stderr.trim().split("\n")).toHaveLength(1);
        expect(r.stderr).toMatch(/^eddy: .*not in the Turbulence layout/);
        expect(existsSync(target)).toBe(false);
    });

    it("refuses a question whose solution does not run, leaving an existing import untouched", () => {
        const broken = path.join(dir, "broken");
        cpSync(fx.benchmark, broken, { recursive: true });
        writeFileSync(path.join(broken, "Q2", "solution.py.template"), "def multiples_between(x, y):\n    return y // ($0 - $0)\n");
        const before = readFileSync(path.join(out, "oracles", "turbulence_q2.py"), "utf8");
        const r = eddy(["import", "turbulence", broken, "--out", out]);
        expect(r.status).toBe(1);
        expect(r.stderr.trim().split("\n")).toHaveLength(1);
        expect(r.stderr).toMatch(/^eddy: Q2 tuple 1 .*the model solution does not run: ZeroDivisionError/);
        expect(readFileSync(path.join(out, "oracles", "turbulence_q2.py"), "utf8")).toBe(before);
        expect(readdirSync(dir).filter((f) => f.includes(".importing-"))).toEqual([]);
    });

    it("refuses a response without parameters before storing anything", () => {
        const results = path.join(dir, "results-noparams");
        cpSync(fx.results, results, { recursive: true });
        const run = path.join(results, "Q1", "tinycoder_results_1");
        rmSync(path.join(run, "all_params.txt"));
        rmSync(path.join(run, "Folder_2", "pre_existing_test_case_report.json"));
        const before = eddy(["runs", "list", "--json"]).stdout;
        const r = eddy(["import", "turbulence-results", results, "--templates", out, "--temperature", "0"]);
        expect(r.status).toBe(1);
        expect(r.stderr).toMatch(/^eddy: Q1\/tinycoder_results_1\/Folder_2: a response without parameters/);
        expect(eddy(["runs", "list", "--json"]).stdout).toBe(before);
    });
});
