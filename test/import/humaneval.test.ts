import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unwrapMessages } from "../support/messages.js";

const BIN = path.resolve("dist/cli/bin.js");
/** Original problems and samples in EvalPlus's layouts (see its README.md). */
const SAMPLE = path.resolve("test/import/humaneval-sample");
/** inspect_ai's published log schema (see test/export/fixtures/README.md). */
const SCHEMA = path.resolve("test/export/fixtures/inspect-log-schema.json");
/**
 * One judge worker for every import and run here: each judges a few answers or problems, and a
 * second worker only adds its own start (a Python process and its sandbox's zygote).
 */
const WORKERS = "1";

interface Row {
    template: string;
    instance: number;
    round: number;
    category: string;
    detail: string;
    params: unknown[];
}

describe("eddy import humaneval / export evalplus / import evalplus-samples: a round trip on original problems", () => {
    let dir: string;
    let out: string;
    let db: string;
    let referenceRun: string;
    const eddy = (args: string[], env: Record<string, string> = {}) =>
        spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: { ...process.env, EDDY_DB: db, ...env } });
    const rows = (run: string): Row[] => {
        const r = eddy(["export", run]);
        expect(r.status, r.stderr).toBe(0);
        return r.stdout.trim().split("\n").map((l) => JSON.parse(l) as Row);
    };
    const samplesRun = (file: string, extra: string[] = []): string => {
        const r = eddy(["import", "evalplus-samples", file, "--templates", out, "--json", "--judge-workers", WORKERS, ...extra]);
        expect(r.status, r.stderr).toBe(0);
        return (JSON.parse(r.stdout) as { runId: string }).runId;
    };

    beforeAll(() => {
        dir = mkdtempSync(path.join(tmpdir(), "eddy-humaneval-"));
        out = path.join(dir, "he");
        db = path.join(dir, "eddy.db");
        const imp = eddy(["import", "humaneval", path.join(SAMPLE, "problems.jsonl"), "--out", out, "--json", "--workers", WORKERS]);
        expect(imp.status, imp.stderr).toBe(0);
        const run = eddy(["run", "--backend", "reference", "--instances", "1", "--rounds", "2", "--wrapper", "completion", "--judge-workers", WORKERS, "--no-progress"], {
            EDDY_TEMPLATES: path.join(out, "templates"),
            EDDY_ORACLES: path.join(out, "oracles")
        });
        expect(run.status, run.stderr).toBe(0);
        referenceRun = run.stdout.trim().split("\n").pop()!;
    }, 240_000);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("writes one template (a neighbourhood of one) and one oracle per problem", () => {
        expect(readdirSync(path.join(out, "templates")).sort()).toEqual(["eddy_0.yaml", "eddy_1.yaml", "eddy_2.yaml", "eddy_3.yaml"]);
        const yaml = readFileSync(path.join(out, "templates", "eddy_1.yaml"), "utf8");
        expect(yaml).toContain("A neighbourhood of one");
        expect(yaml).toContain('task_id: {choice: ["Eddy/1"]}');
        expect(yaml).toContain("function: mean_of_squares");
        expect(yaml).toContain("returns: float");
        const summary = JSON.parse(readFileSync(path.join(out, "humaneval-import.json"), "utf8"));
        expect(summary.templates.map((t: { taskId: string }) => t.taskId)).toEqual(["Eddy/0", "Eddy/1", "Eddy/2", "Eddy/3"]);
        expect(summary.templates[1]).toMatchObject({ atol: 1e-6, fixedTests: { base: 3, plus: 2 } });
        for (const t of summary.templates) expect(t.mutants.length).toBeGreaterThanOrEqual(3);
    });

    it("the reference run scores AS = 1", () => {
        const r = eddy(["report", referenceRun, "--format", "json"]);
        expect(r.status, r.stderr).toBe(0);
        expect(JSON.parse(r.stdout).configs[0]).toMatchObject({ AS: 1, wrapper: "completion" });
        expect(rows(referenceRun).every((x) => x.category === "passed")).toBe(true);
    });

    it("export --format evalplus → import evalplus-samples gives the same verdicts", () => {
        const exp = eddy(["export", referenceRun, "--format", "evalplus"]);
        expect(exp.status, exp.stderr).toBe(0);
        const samples = exp.stdout.trim().split("\n").map((l) => JSON.parse(l) as { task_id: string; solution: string });
        expect(samples.map((s) => s.task_id)).toEqual(["Eddy/0", "Eddy/0", "Eddy/1", "Eddy/1", "Eddy/2", "Eddy/2", "Eddy/3", "Eddy/3"]);
        expect(samples.every((s) => s.solution.includes("def "))).toBe(true);
        const file = path.join(dir, "exported.jsonl");
        writeFileSync(file, exp.stdout);
        const back = rows(samplesRun(file));
        const key = (x: Row) => `${x.template}|${x.instance}|${x.round}|${x.category}`;
        expect(back.map(key).sort()).toEqual(rows(referenceRun).map(key).sort());
    }, 120_000);

    it("stores EvalPlus's base_status/plus_status as published verdicts and reports the agreement", () => {
        const run = samplesRun(path.join(SAMPLE, "samples.jsonl"));
        const got = rows(run);
        expect(Object.fromEntries(got.map((x) => [x.template, x.category]))).toEqual({ eddy_0: "assertion_error", eddy_1: "passed", eddy_2: "assertion_error", eddy_3: "passed" });
        const text = eddy(["report", run]);
        expect(text.status, text.stderr).toBe(0);
        expect(text.stdout).toContain("Agreement with EvalPlus's published verdicts");
        expect(text.stdout).toMatch(/\n\s+4\s+4\s+100\.0%\s+2\s+2\s+0\s+0/);
    }, 120_000);

    it("judges as EvalPlus compares (check()'s recorded calls too), not by eddy's strict equality", () => {
        const prompt1 = JSON.parse(readFileSync(path.join(SAMPLE, "problems.jsonl"), "utf8").split("\n")[1]!).prompt as string;
        const lines = [
            // 2.0 == 2 in check() and in EvalPlus: passes (eddy's own 'ordered' comparator would reject a float for an int).
            { task_id: "Eddy/0", solution: 'def count_vowels(text):\n    return float(sum(c in "aeiouAEIOU" for c in text))\n' },
            // Within check()'s 1e-6 and EvalPlus's atol: passes.
            { task_id: "Eddy/1", completion: "    return sum(v * v for v in values) / len(values) + 1e-9\n" },
            // Outside both: fails.
            { task_id: "Eddy/1", solution: prompt1 + "    return sum(v * v for v in values) / len(values) + 1e-3\n" },
            // A tuple where check() compares with == against a list (a call check() made, recorded at import): fails, as in check().
            { task_id: "Eddy/2", solution: "def interleave(first, second):\n    return tuple(first + second)\n" }
        ];
        const file = path.join(dir, "semantics.jsonl");
        writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
        const got = rows(samplesRun(file, ["--model", "semantics"]));
        const cat = (t: string, round: number) => got.find((x) => x.template === t && x.round === round)?.category;
        expect(cat("eddy_0", 0)).toBe("passed");
        expect(cat("eddy_1", 0)).toBe("passed");
        expect(cat("eddy_1", 1)).toBe("assertion_error");
        expect(cat("eddy_2", 0)).toBe("assertion_error");
    }, 120_000);

    it("reads EvalPlus's folder layout (<task_id with / as _>/<n>.py)", () => {
        const folder = path.join(dir, "codegen");
        mkdirSync(path.join(folder, "Eddy_3"), { recursive: true });
        writeFileSync(path.join(folder, "Eddy_3", "0.py"), "def is_balanced(text):\n    return text.count('(') == text.count(')')\n");
        writeFileSync(path.join(folder, "Eddy_3", "1.py"), "def is_balanced(text):\n    d = 0\n    for c in text:\n        d += (c == '(') - (c == ')')\n        if d < 0:\n            return False\n    return d == 0\n");
        const got = rows(samplesRun(folder));
        expect(got.map((x) => [x.round, x.category])).toEqual([
            [0, "assertion_error"],
            [1, "passed"]
        ]);
    }, 120_000);

    it("export --format inspect is valid against inspect_ai's published log schema", () => {
        const file = path.join(dir, "run.json");
        const r = eddy(["export", referenceRun, "--format", "inspect", "--out", file]);
        expect(r.status, r.stderr).toBe(0);
        const log = JSON.parse(readFileSync(file, "utf8"));
        expect(log).toMatchObject({ version: 2, status: "success", eval: { task: "eddy", model: "eddy/reference", run_id: referenceRun } });
        expect(log.samples).toHaveLength(8);
        expect(log.samples[0]).toMatchObject({ id: "eddy_0/0", epoch: 1, scores: { eddy: { value: "C" } }, metadata: { template: "eddy_0", params: ["Eddy/0"], category: "passed" } });
        expect(log.eval.model_generate_config).toMatchObject({ temperature: 0 });
        // The schema is JSON Schema 2020-12 (prefixItems); Python's jsonschema validates it.
        const check = (doc: string) =>
            spawnSync("python3", ["-c", "import json,sys,jsonschema\ns=json.load(open(sys.argv[1]))\nerrs=list(jsonschema.Draft202012Validator(s).iter_errors(json.load(open(sys.argv[2]))))\nprint(len(errs)); [print(list(e.absolute_path), e.message[:200]) for e in errs[:5]]", SCHEMA, doc], { encoding: "utf8" });
        const v = check(file);
        expect(v.stderr).toBe("");
        expect(v.stdout.trim()).toBe("0");
        // The check can fail: a log without a required field is rejected.
        delete log.samples[0].output;
        writeFileSync(file, JSON.stringify(log));
        expect(check(file).stdout.trim()).not.toBe("0");
    });

    it("export --format eee writes an Every Eval Ever aggregate and per-instance records, valid against its published schemas", () => {
        const folder = path.join(dir, "eee");
        const r = eddy(["export", referenceRun, "--format", "eee", "--out", folder]);
        expect(r.status, r.stderr).toBe(0);
        const [aggFile, samplesFile] = r.stdout.trim().split("\n");
        expect(aggFile).toMatch(/eee\/data\/eddy\/unknown\/reference\/[0-9a-f-]{36}\.json$/);
        const agg = JSON.parse(readFileSync(aggFile!, "utf8"));
        expect(agg.model_info).toMatchObject({ name: "reference", inference_engine: { name: "eddy reference" }, additional_details: { deployment_type: "self_deployed" } });
        const as = agg.evaluation_results.find((x: { evaluation_result_id: string }) => x.evaluation_result_id === "as");
        expect(as.score_details).toMatchObject({ score: 1, uncertainty: { num_samples: 4, confidence_interval: { lower: 1, upper: 1, confidence_level: 0.95 } } });
        expect(as.generation_config.generation_args).toMatchObject({ temperature: 0, prompt_template: "completion" });
        const lines = readFileSync(samplesFile!, "utf8").trim().split("\n").map((l) => JSON.parse(l));
        expect(lines).toHaveLength(8);
        expect(lines[0]).toMatchObject({ sample_id: "eddy_0/0/0", evaluation: { score: 1, is_correct: true }, metadata: { template: "eddy_0", params: '["Eddy/0"]' } });
        expect(lines[0].input.raw).toContain("def count_vowels(text):");
        expect(agg.detailed_evaluation_results).toMatchObject({ total_rows: 8, file_path: path.relative(folder, samplesFile!) });
        const validate = (schema: string, docs: string[]) =>
            spawnSync("python3", ["-c", "import json,sys,jsonschema\ns=json.load(open(sys.argv[1]))\nv=jsonschema.Draft7Validator(s)\nprint(sum(len(list(v.iter_errors(json.loads(d)))) for d in sys.argv[2:]))", schema, ...docs], { encoding: "utf8" });
        expect(validate(path.resolve("test/export/fixtures/eee-eval.schema.json"), [JSON.stringify(agg)]).stdout.trim()).toBe("0");
        expect(validate(path.resolve("test/export/fixtures/eee-instance_level_eval.schema.json"), lines.map((l) => JSON.stringify(l))).stdout.trim()).toBe("0");
        // The check can fail: a record with a field the closed schema does not know is rejected.
        expect(validate(path.resolve("test/export/fixtures/eee-instance_level_eval.schema.json"), [JSON.stringify({ ...lines[0], extra: 1 })]).stdout.trim()).not.toBe("0");
        expect(eddy(["export", referenceRun, "--format", "eee"]).stderr).toContain("pass --out <folder>");
    });

    it("--config names the configuration; an unknown one is a one-line error", () => {
        const r = eddy(["export", referenceRun, "--format", "evalplus", "--config", "nope"]);
        expect(r.status).not.toBe(0);
        expect(unwrapMessages(r.stderr).trim().split("\n")).toHaveLength(1);
        expect(unwrapMessages(r.stderr)).toContain("no configuration 'nope'");
    });
});

describe("eddy import humaneval / evalplus-samples: bad input is one line, non-zero, and writes nothing", () => {
    let dir: string;
    beforeAll(() => {
        dir = mkdtempSync(path.join(tmpdir(), "eddy-humaneval-bad-"));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const eddy = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: { ...process.env, EDDY_DB: path.join(dir, "eddy.db") } });
    const problems = readFileSync(path.join(SAMPLE, "problems.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    const bad = (name: string, lines: unknown[]): string => {
        const f = path.join(dir, name);
        writeFileSync(f, lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n");
        return f;
    };

    it.each([
        ["a missing field", () => bad("missing.jsonl", [problems[0], { ...problems[1], entry_point: undefined }]), "problems:2: missing or non-text field 'entry_point'"],
        ["a line that is not JSON", () => bad("notjson.jsonl", [problems[0], "{oops"]), "notjson.jsonl:2: not JSON"],
        ["a task id twice", () => bad("twice.jsonl", [problems[0], problems[0]]), "task_id 'Eddy/0' appears twice"],
        // Without base_input/plus_input, check() is the test (with them, EvalPlus never runs it).
        ["a test without check()", () => bad("nocheck.jsonl", [{ ...problems[0], base_input: undefined, plus_input: undefined, test: "def test(candidate):\n    assert True\n" }]), "defines no check(candidate)"],
        ["bad base_input", () => bad("inputs.jsonl", [{ ...problems[0], base_input: [1, 2] }]), "'base_input' must be a list of argument lists"],
        ["a canonical solution its check() rejects", () => bad("wrong.jsonl", [{ ...problems[2], canonical_solution: "    return 0\n" }]), "Eddy/2: the canonical solution fails check(candidate)"]
    ])("%s", (_what, make, message) => {
        const file = make();
        const target = path.join(dir, "out-" + path.basename(file));
        const r = eddy(["import", "humaneval", file, "--out", target, "--workers", WORKERS]);
        expect(r.status).not.toBe(0);
        expect(unwrapMessages(r.stderr).trim().split("\n")).toHaveLength(1);
        expect(unwrapMessages(r.stderr)).toContain(message.replace("problems:2", path.basename(file) + ":2"));
        expect(existsSync(target)).toBe(false);
        expect(readdirSync(dir).filter((f) => f.includes(".importing-"))).toEqual([]);
    });

    it("reads a gzip'd problems file, keeps integers beyond 2^53 exact, and an unknown task in the samples stops before any run", () => {
        const gz = path.join(dir, "one.jsonl.gz");
        // A differential input beyond 2^53, written as Python's json writes it: it must reach the judge exact.
        const big = '{"task_id": "Big/0", "prompt": "def successor(n):\\n    \\"\\"\\"Return n + 1.\\"\\"\\"\\n", "canonical_solution": "    return n + 1\\n", "test": "def check(candidate):\\n    assert candidate(1) == 2\\n", "entry_point": "successor", "base_input": [[18446744073709551617]], "plus_input": [], "atol": 0}';
        writeFileSync(gz, gzipSync(JSON.stringify(problems[2]) + "\n" + big + "\n"));
        const target = path.join(dir, "he");
        const imp = eddy(["import", "humaneval", gz, "--out", target, "--workers", WORKERS]);
        expect(imp.status, imp.stderr).toBe(0);
        expect(imp.stdout).toContain("eddy_2: Eddy/2 interleave/2");
        const sneaky = bad("big.jsonl", [
            { task_id: "Big/0", solution: "def successor(n):\n    return n + 1\n" },
            { task_id: "Big/0", solution: "def successor(n):\n    return 0 if n == 18446744073709551617 else n + 1\n" }
        ]);
        const run = eddy(["import", "evalplus-samples", sneaky, "--templates", target, "--json", "--judge-workers", WORKERS]);
        expect(run.status, run.stderr).toBe(0);
        const got = eddy(["export", JSON.parse(run.stdout).runId]).stdout.trim().split("\n").map((l) => JSON.parse(l) as Row);
        expect(got.map((x) => x.category)).toEqual(["passed", "assertion_error"]);
        for (const f of ["eddy.db", "eddy.db-wal", "eddy.db-shm"]) rmSync(path.join(dir, f), { force: true });
        const samples = bad("samples.jsonl", [{ task_id: "Eddy/9", solution: "def f(x):\n    return x\n" }]);
        const r = eddy(["import", "evalplus-samples", samples, "--templates", target]);
        expect(r.status).not.toBe(0);
        expect(unwrapMessages(r.stderr).trim().split("\n")).toHaveLength(1);
        expect(unwrapMessages(r.stderr)).toContain("task 'Eddy/9' is not among the problems imported");
        expect(existsSync(path.join(dir, "eddy.db"))).toBe(false);
    }, 120_000);
});
