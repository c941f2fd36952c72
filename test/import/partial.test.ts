import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTurbulenceFixture } from "./fixtures.js";
import { unwrapMessages } from "../support/messages.js";

const BIN = path.resolve("dist/cli/bin.js");

/**
 * What a lab meets with Turbulence's data as published: question folders out of format, results
 * of questions it has no template for, responses in no known form, a `_T_D` folder, a model folder
 * that holds the questions beside the results, an import killed half way.
 */
describe("importing what can be imported", () => {
    let dir: string;
    let fx: { benchmark: string; results: string; minicoder: string };
    let db: string;
    const eddy = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: { ...process.env, EDDY_DB: db } });
    const imported = () => path.join(dir, "imported");

    beforeAll(() => {
        dir = mkdtempSync(path.join(tmpdir(), "eddy-partial-"));
        fx = writeTurbulenceFixture(path.join(dir, "fx"));
        db = path.join(dir, "eddy.db");
        // Q2 loses a file; Q4's solution no longer runs.
        rmSync(path.join(fx.benchmark, "Q2", "gen_function_params.py"));
        writeFileSync(path.join(fx.benchmark, "Q4", "solution.py.template"), "def average_from(values):\n    return sum(values[$0:]) / ($0 - $0)\n");
    }, 120_000);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("imports the other questions and lists what was skipped and why, in text and JSON", () => {
        const r = eddy(["import", "turbulence", fx.benchmark, "--out", imported(), "--results", fx.results, "--questions", "1,2,4,7", "--workers", "2"]);
        expect(r.status, r.stderr).toBe(0);
        expect(r.stdout).toMatch(/^turbulence_q1: span_total, 4 instance\(s\)/m);
        expect(r.stdout).toContain("skipped Q2: benchmark/Q2 is not a Turbulence question folder: gen_function_params.py is missing");
        expect(r.stdout).toMatch(/^skipped Q4: Q4 tuple 1 .*the model solution does not run: ZeroDivisionError/m);
        expect(r.stdout).toContain("2 template(s) imported into");
        expect(r.stdout).toContain("2 question(s) skipped");
        const summary = JSON.parse(readFileSync(path.join(imported(), "turbulence-import.json"), "utf8"));
        expect(summary.imported).toEqual(["turbulence_q1", "turbulence_q7"]);
        expect(summary.skipped.map((s: { location: string }) => s.location)).toEqual(["Q2", "Q4"]);
        expect(readdirSync(path.join(imported(), "templates")).sort()).toEqual(["turbulence_q1.yaml", "turbulence_q7.yaml"]);
        expect(readdirSync(dir).filter((f) => f.includes(".importing-"))).toEqual([]);
    });

    it("--strict stops at the first question that cannot be imported, with one line, and changes nothing", () => {
        const before = readFileSync(path.join(imported(), "turbulence-import.json"), "utf8");
        const r = eddy(["import", "turbulence", fx.benchmark, "--out", imported(), "--questions", "4,8", "--strict"]);
        expect(r.status).toBe(1);
        expect(unwrapMessages(r.stderr).trim().split("\n")).toHaveLength(1);
        expect(unwrapMessages(r.stderr)).toMatch(/^eddy: Q4 tuple 1 .*the model solution does not run: ZeroDivisionError/);
        expect(readFileSync(path.join(imported(), "turbulence-import.json"), "utf8")).toBe(before);
        expect(existsSync(path.join(imported(), "templates", "turbulence_q8.yaml"))).toBe(false);
        expect(readdirSync(dir).filter((f) => f.includes(".importing-"))).toEqual([]);
    });

    it("imports the responses it has templates for, and lists the rest (text and JSON); --strict refuses them", () => {
        // A response file in no known form, and a response whose tuple is not in the neighbourhood.
        const q1 = path.join(fx.results, "Q1", "tinycoder_results_2");
        writeFileSync(path.join(q1, "Folder_1", "response.txt"), "GenerateContentResponse(done=True, result=Result(parts=[]))");
        const report = path.join(q1, "Folder_2", "pre_existing_test_case_report.json");
        writeFileSync(report, readFileSync(report, "utf8").replace('"parameter(s)": [\n    1,\n    4\n  ]', '"parameter(s)": [\n    1,\n    5\n  ]'));
        const r = eddy(["import", "turbulence-results", fx.results, "--templates", imported(), "--json", "--judge-workers", "2", "--rerun-seeds", "0"]);
        expect(r.status, r.stderr).toBe(0);
        const s = JSON.parse(r.stdout);
        const reasons = Object.fromEntries((s.skipped as { location: string; reason: string }[]).map((x) => [x.location, x.reason]));
        expect(reasons["Q1/tinycoder_results_2/Folder_1/response.txt"]).toMatch(/^response\.txt holds a printed object in no known form/);
        expect(reasons["Q1/tinycoder_results_2/Folder_2"]).toBe("parameters [1,5] are not among the recorded tuples of turbulence_q1");
        for (const n of [2, 4, 5, 8, 55]) expect(reasons[`Q${n}`]).toMatch(new RegExp(`^no usable template turbulence_q${n} in .*; its 8 response\\(s\\) are left out$`));
        expect(s.runs[0]).toMatchObject({ templates: ["turbulence_q1", "turbulence_q7"], responses: 14 });
        const text = eddy(["import", "turbulence-results", fx.results, "--templates", imported(), "--judge-workers", "2", "--rerun-seeds", "0"]);
        expect(text.status, text.stderr).toBe(0);
        // Lines wrap at 100 columns, continuations indented: read them joined.
        const unwrapped = text.stdout.replace(/\n {4,}/g, " ");
        expect(unwrapped).toContain("skipped Q1/tinycoder_results_2/Folder_2: parameters [1,5] are not among the recorded tuples of turbulence_q1");
        expect(text.stdout).toContain("responses read as: openai 14");
        const runsBefore = eddy(["runs", "list", "--json"]).stdout;
        const strict = eddy(["import", "turbulence-results", fx.results, "--templates", imported(), "--strict"]);
        expect(strict.status).toBe(1);
        expect(unwrapMessages(strict.stderr).trim().split("\n")).toHaveLength(1);
        expect(unwrapMessages(strict.stderr)).toMatch(/^eddy: Q1\/tinycoder_results_2\/Folder_1\/response\.txt: response\.txt holds a printed object in no known form/);
        expect(eddy(["runs", "list", "--json"]).stdout).toBe(runsBefore);
    });

    it("asks for --temperature for a _T_D folder, in one line", () => {
        const r = eddy(["import", "turbulence-results", fx.minicoder, "--templates", imported()]);
        expect(r.status).toBe(1);
        expect(unwrapMessages(r.stderr).trim().split("\n")).toHaveLength(1);
        expect(unwrapMessages(r.stderr)).toMatch(/^eddy: the folder name 'Minicoder_T_D' ends in _T_D: .*pass --temperature <t>/);
    });

    it("reads the questions from a model folder that holds them beside its results (no --results needed)", () => {
        const model = path.join(dir, "Tinycoder_T_0");
        cpSync(fx.results, model, { recursive: true });
        for (const f of readdirSync(path.join(fx.benchmark, "Q8"))) cpSync(path.join(fx.benchmark, "Q8", f), path.join(model, "Q8", f));
        const out = path.join(dir, "from-model-folder");
        const r = eddy(["import", "turbulence", model, "--out", out, "--json", "--workers", "2"]);
        expect(r.status, r.stderr).toBe(0);
        const s = JSON.parse(r.stdout);
        expect(s.templates).toHaveLength(1);
        expect(s.templates[0]).toMatchObject({ id: "turbulence_q8", paramsSource: "Q8/tinycoder_results_1/params_report.json (and 1 later round(s))", instances: 4 });
        // The model folder's other Q<n>/ folders hold results only: not question folders, nothing to skip.
        expect(s.skipped).toEqual([]);
    });

    it("leaves no temporary folder behind when the import is ended by a signal", async () => {
        const out = path.join(dir, "killed");
        const child = spawn(process.execPath, [BIN, "import", "turbulence", fx.benchmark, "--out", out, "--questions", "1,7,8", "--workers", "1"], { env: { ...process.env, EDDY_DB: db }, stdio: "ignore" });
        const ended = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_c, signal) => resolve(signal)));
        // Wait until the temporary folder exists, then end the import as a timeout would.
        for (let i = 0; i < 600 && !readdirSync(dir).some((f) => f.startsWith(".killed.importing-")); i++) await new Promise((r) => setTimeout(r, 50));
        expect(readdirSync(dir).some((f) => f.startsWith(".killed.importing-"))).toBe(true);
        child.kill("SIGTERM");
        expect(await ended).toBe("SIGTERM");
        expect(readdirSync(dir).filter((f) => f.includes(".importing-"))).toEqual([]);
        expect(existsSync(out)).toBe(false);
    });
});

describe("a folder out of format", () => {
    it("is refused with one line, and nothing is written", () => {
        const dir = mkdtempSync(path.join(tmpdir(), "eddy-notturb-"));
        try {
            const empty = path.join(dir, "not-turbulence");
            mkdirSync(empty);
            writeFileSync(path.join(empty, "README.txt"), "hello");
            const target = path.join(dir, "never");
            const r = spawnSync(process.execPath, [BIN, "import", "turbulence", empty, "--out", target], { encoding: "utf8" });
            expect(r.status).toBe(1);
            expect(unwrapMessages(r.stderr).trim().split("\n")).toHaveLength(1);
            expect(unwrapMessages(r.stderr)).toMatch(/^eddy: .*not in the Turbulence layout/);
            expect(existsSync(target)).toBe(false);
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
});
