/**
 * Issue #44: agree with EvalPlus wherever EvalPlus was right, and say exactly why where it was not.
 * Original problems and samples in EvalPlus's release layout with the results EvalPlus's own code
 * wrote for them (test/import/evalplus-evidence/README.md), one set per cause of disagreement; a
 * peer timeout, which no idle machine reproduces, is a results file written here in its layout.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { datasetHash, evalPlusVersionOf, parseEvalPlusVersion, rulesAsOf } from "../../src/import/humaneval/evalplusVersions.js";
import { parseJsonKeepingRaw } from "../../src/import/humaneval/samples.js";
import { messageLines } from "../support/messages.js";

const BIN = path.resolve("dist/cli/bin.js");
const FIXTURES = path.resolve("test/import/evalplus-evidence");
/**
 * One judge worker for every import and replay here (the evidence's probes included): each judges a
 * few answers, and a second worker only adds its own start (a Python process and its sandbox's zygote).
 */
const WORKERS = "1";
const PROBLEMS = path.join(FIXTURES, "EvidencePlus-eddy.jsonl");

interface Disagreement {
    template: string;
    round: number;
    eddy: string;
    published: string;
    cause: string;
    explanation: string;
    evidence: string[];
}
interface Agreement {
    causes: Record<string, number>;
    disagreements: Disagreement[];
    notes: string[];
}

describe("EvalPlus's versions, read from its history", () => {
    it("the minimum per-input limit and the defects in force on each date", () => {
        const at = (d: string) => rulesAsOf({ id: d, asOf: d, from: "flag" });
        expect(at("2023-11-24").minTimeLimitS).toBe(0.2); // v0.2.0
        expect(at("2024-01-25").minTimeLimitS).toBe(0.5); // 467b542
        expect(at("2024-04-01")).toMatchObject({ minTimeLimitS: 1, npTestingFloatBug: true, typeAndLengthChecked: false, findZero: "compared" }); // v0.2.1
        expect(at("2024-04-17")).toMatchObject({ npTestingFloatBug: false, typeAndLengthChecked: false }); // 5f4ebca
        expect(at("2024-10-20")).toMatchObject({ minTimeLimitS: 1, typeAndLengthChecked: true, findZero: "unrecorded" }); // v0.3.0, v0.3.1
        expect(at("2024-11-01")).toMatchObject({ minTimeLimitS: 1, findZero: "poly" });
        expect(at("2025-04-02").minTimeLimitS).toBe(4); // af49138
        expect(rulesAsOf(parseEvalPlusVersion("0.2.0")).minTimeLimitS).toBe(0.2);
        expect(rulesAsOf(parseEvalPlusVersion("v0.3.1")).minTimeLimitS).toBe(1);
        expect(rulesAsOf(parseEvalPlusVersion("main")).minTimeLimitS).toBe(4);
        expect(() => parseEvalPlusVersion("0.9.9")).toThrow(/knows EvalPlus's releases/);
        // Which EvalPlus judged: the version given, else the results' date, else the current release.
        expect(evalPlusVersionOf(undefined, "2024-08-08 15:55")).toEqual({ id: "main as of 2024-08-08", asOf: "2024-08-08", from: "date" });
        expect(evalPlusVersionOf(parseEvalPlusVersion("0.2.1"), "2024-08-08 15:55").id).toBe("v0.2.1");
        expect(evalPlusVersionOf(undefined, null)).toMatchObject({ id: "v0.3.1", from: "default" });
    });

    it("a dataset's hash is the md5 EvalPlus computes: of the JSONL it reads (a release gunzipped), and of the file as named", () => {
        const dir = mkdtempSync(path.join(tmpdir(), "eddy-hash-"));
        try {
            const text = readFileSync(PROBLEMS);
            const gz = path.join(dir, "p.jsonl.gz");
            writeFileSync(gz, gzipSync(text));
            const md5 = (b: Buffer) => createHash("md5").update(b).digest("hex");
            expect(datasetHash(PROBLEMS)).toEqual({ evalplus: md5(text), file: md5(text) });
            expect(datasetHash(gz)).toEqual({ evalplus: md5(text), file: md5(readFileSync(gz)) });
            // What EvalPlus v0.2.1 wrote for these problems (HUMANEVAL_OVERRIDE_PATH naming the file).
            expect(JSON.parse(readFileSync(path.join(FIXTURES, "evidence-v021_eval_results.json"), "utf8")).hash).toBe(md5(text));
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });

    it("a results file's failing inputs are kept as written: integers past 2^53 and NaN included", () => {
        const raw = new WeakMap<object, string[]>();
        const doc = parseJsonKeepingRaw('{"eval": {"T/1": [{"plus_fail_tests": [[123456789012345678901234567890, NaN], [1e100]]}]}, "__proto__": 1}', raw) as {
            eval: Record<string, { plus_fail_tests: unknown[] }[]>;
        };
        expect(raw.get(doc.eval["T/1"]![0]!.plus_fail_tests)).toEqual(["[123456789012345678901234567890, NaN]", "[1e100]"]);
        expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
    });
});

describe("agreement with EvalPlus: a cause, with its evidence, for every disagreement", () => {
    let dir: string;
    let db: string;
    let he: string;
    const eddy = (args: string[], env: Record<string, string> = {}) => spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: { ...process.env, EDDY_DB: db, ...env } });
    const samplesRun = (file: string, extra: string[] = []) => {
        const r = eddy(["import", "evalplus-samples", file, "--templates", he, "--json", "--judge-workers", WORKERS, "--no-progress", ...extra]);
        expect(r.status, r.stderr).toBe(0);
        return { runId: (JSON.parse(r.stdout) as { runId: string }).runId, stderr: r.stderr };
    };
    const agreement = (run: string): Agreement => {
        const r = eddy(["report", run, "--format", "json"]);
        expect(r.status, r.stderr).toBe(0);
        return JSON.parse(r.stdout).agreement as Agreement;
    };
    const hostFactor = (): number => {
        const f = spawnSync("python3", ["-c", "from eddy_judge.budget import host_factor; print(host_factor())"], { encoding: "utf8", env: { ...process.env, PYTHONPATH: path.resolve("src/judge/python") } });
        expect(f.status, f.stderr).toBe(0);
        return Number(f.stdout.trim());
    };

    beforeAll(() => {
        dir = mkdtempSync(path.join(tmpdir(), "eddy-evidence-"));
        db = path.join(dir, "eddy.db");
        he = path.join(dir, "he");
        const r = eddy(["import", "humaneval", PROBLEMS, "--out", he, "--workers", WORKERS]);
        expect(r.status, r.stderr).toBe(0);
    }, 240_000);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("the import records the dataset's md5 as EvalPlus computes it", () => {
        const summary = JSON.parse(readFileSync(path.join(he, "humaneval-import.json"), "utf8"));
        const md5 = createHash("md5").update(readFileSync(PROBLEMS)).digest("hex");
        expect(summary.datasetHash).toEqual({ evalplus: md5, file: md5 });
        expect(summary.limits.minTimeLimitS).toBe(4);
    });

    it("EvalPlus v0.2.1's float bug: an answer 2 ulp from the canonical float failed there; eddy names the defect, with the ulp difference", () => {
        const file = path.join(FIXTURES, "evidence-v021.jsonl");
        const a = agreement(samplesRun(file, ["--evalplus-version", "0.2.1", "--model", "v021"]).runId);
        expect(a.causes).toMatchObject({ their_defect: 1, their_harness: 0, dataset: 0, unknown: 0 });
        expect(a.causes).not.toHaveProperty("oracle");
        const [d] = a.disagreements;
        expect(d).toMatchObject({ template: "eddyevidence_0", round: 0, eddy: "passed", published: "wrong", cause: "their_defect" });
        expect(d!.explanation).toMatch(/EvalPlus v0\.2\.1: floats compared by np\.testing\.assert_allclose.*evalplus#157; fixed in 5f4ebca, 2024-04-17.*\(2 ulp here\)/);
        // The evidence: the input (the first plus input: EvalPlus v0.2.1 names none when it is the first), both values, their distance.
        expect(d!.evidence.join("\n")).toMatch(/plus input 0: output 0\.19999999999999998, expected 0\.20000000000000004, 2 ulp apart/);
        expect(a.notes[0]).toMatch(/rules of EvalPlus v0\.2\.1 \(as given at import\): at least 1 s per input/);
        // The same results read by the rules of the date they carry (today's EvalPlus had no such bug): not filed as that defect.
        const again = agreement(samplesRun(file, ["--model", "v021-by-date"]).runId);
        expect(again.causes.their_defect).toBe(0);
        expect(again.disagreements[0]!.cause).toBe("unknown");
    }, 240_000);

    it("EvalPlus before de8c082 did not check the type: a tuple for a list of floats passed there, and eddy fails it", () => {
        const a = agreement(samplesRun(path.join(FIXTURES, "evidence-5f4ebca.jsonl"), ["--evalplus-version", "2024-04-17", "--model", "at-5f4ebca"]).runId);
        expect(a.disagreements).toHaveLength(1);
        expect(a.disagreements[0]).toMatchObject({ template: "eddyevidence_2", eddy: "assertion_error", published: "correct", cause: "their_defect" });
        expect(a.disagreements[0]!.explanation).toMatch(/no type or length check before np\.allclose \(added in de8c082, 2024-05-10\): it accepted \(0\.25, 0\.75\) for \[0\.25, 0\.75\]/);
    }, 240_000);

    it("EvalPlus v0.3.1's 1 s limit: an answer that needs 1.5 s of CPU failed there, by its own rule; the import takes that version's limits when asked", () => {
        const file = path.join(FIXTURES, "evidence-v031.jsonl");
        const a = agreement(samplesRun(file, ["--evalplus-version", "0.3.1", "--model", "v031"]).runId);
        expect(a.disagreements).toHaveLength(1);
        expect(a.disagreements[0]).toMatchObject({ template: "eddyevidence_1", eddy: "passed", cause: "their_rules" });
        expect(a.disagreements[0]!.explanation).toMatch(/EvalPlus v0\.3\.1's own limit: the answer needs 1\.\d\d s of CPU here, over its/);
        expect(a.disagreements[0]!.evidence.join("\n")).toMatch(/EvalPlus: plus fail on \[777\]/);
        // Imported with v0.3.1's limits, eddy times each input as that EvalPlus did, and agrees.
        const out = path.join(dir, "he-v031");
        const imp = eddy(["import", "humaneval", PROBLEMS, "--out", out, "--workers", WORKERS, "--evalplus-version", "0.3.1"]);
        expect(imp.status, imp.stderr).toBe(0);
        const summary = JSON.parse(readFileSync(path.join(out, "humaneval-import.json"), "utf8"));
        expect(summary).toMatchObject({ evalplusVersion: "v0.3.1", limits: { minTimeLimitS: 1 } });
        // EddyEvidence/1: 2 base inputs at max(1 s, ...) + 2 s, 3 plus inputs at max(1 s, ...) + 2 s.
        expect(readFileSync(path.join(out, "templates", "eddyevidence_1.yaml"), "utf8")).toContain("budget: {time_ms: 9000,");
        const r = eddy(["import", "evalplus-samples", file, "--templates", out, "--json", "--judge-workers", WORKERS, "--no-progress", "--model", "v031-limits", "--evalplus-version", "0.3.1"], { EDDY_DB: path.join(dir, "v031.db") });
        expect(r.status, r.stderr).toBe(0);
        const report = JSON.parse(eddy(["report", JSON.parse(r.stdout).runId, "--format", "json"], { EDDY_DB: path.join(dir, "v031.db") }).stdout);
        expect(report.agreement).toMatchObject({ responses: 4, agree: 4 });
    }, 240_000);

    it("a peer timeout, and EvalPlus's version from the results' date: the same failure is their harness under a 4 s minimum, their rule under 1 s", () => {
        // An answer right on every input that spends 70% of EvalPlus's 4 s minimum (this machine's share of it) on one:
        // EvalPlus failed it there, as a loaded machine's wall clock does.
        const spend = (0.7 * 4 * hostFactor()).toFixed(3);
        const samples = path.join(dir, "slow.jsonl");
        const completion = `    import time\n    if n == 777:\n        start = time.process_time()\n        while time.process_time() - start < ${spend}:\n            pass\n    return n * (n + 1) // 2\n`;
        writeFileSync(samples, JSON.stringify({ task_id: "EddyEvidence/1", completion }) + "\n");
        const prompt = JSON.parse(readFileSync(PROBLEMS, "utf8").split("\n")[1]!).prompt as string;
        const results = (date: string) => ({
            date,
            hash: createHash("md5").update(readFileSync(PROBLEMS)).digest("hex"),
            eval: { "EddyEvidence/1": [{ task_id: "EddyEvidence/1", solution: prompt + completion, base_status: "pass", plus_status: "fail", base_fail_tests: [], plus_fail_tests: [[777]] }] }
        });
        writeFileSync(path.join(dir, "slow.eval_results.json"), JSON.stringify(results("2025-06-01 10:00")));
        const a = agreement(samplesRun(samples, ["--model", "slow-2025"]).runId);
        expect(a.disagreements[0]).toMatchObject({ cause: "their_harness", eddy: "passed" });
        expect(a.disagreements[0]!.explanation).toMatch(/EvalPlus's harness timed it out: the answer gives the expected output in .* of CPU here, (6\d|7\d|8\d)% of its limit/);
        expect(a.causes.their_harness).toBe(1);
        expect(a.notes[0]).toMatch(/main as of 2025-06-01 \(by the results file's date \(2025-06-01 10:00\)\): at least 4 s per input/);
        // Dated when EvalPlus's minimum was 1 s: the same answer was over that version's own limit.
        writeFileSync(path.join(dir, "slow.eval_results.json"), JSON.stringify(results("2024-08-08 15:55")));
        const b = agreement(samplesRun(samples, ["--model", "slow-2024"]).runId);
        expect(b.disagreements[0]!.cause).toBe("their_rules");
    }, 240_000);

    it("results of another dataset version: one warning line naming both, the report says so, and the sample failed on an input the imported problem lacks is the dataset's", () => {
        const { runId, stderr } = samplesRun(path.join(FIXTURES, "evidence-v2.jsonl"), ["--model", "v2"]);
        const v1 = createHash("md5").update(readFileSync(PROBLEMS)).digest("hex");
        const v2 = createHash("md5").update(readFileSync(path.join(FIXTURES, "EvidencePlus-v2-eddy.jsonl"))).digest("hex");
        const warnings = messageLines(stderr).filter((l) => l.startsWith("eddy: warning:"));
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toContain(`md5 ${v2} there`);
        expect(warnings[0]).toContain(`EvidencePlus-eddy.jsonl, md5 ${v1} here`);
        const a = agreement(runId);
        expect(a.notes.join("\n")).toContain(`Another version of the dataset: EvalPlus judged these samples against md5 ${v2}; eddy imported md5 ${v1}`);
        expect(a.disagreements).toHaveLength(1);
        expect(a.disagreements[0]).toMatchObject({ template: "eddyevidence_0", cause: "dataset" });
        expect(a.disagreements[0]!.explanation).toMatch(/not among the imported problem's plus inputs/);
        // Results of the same dataset give no warning: the next test's run checks that.
        // The text report shows the evidence per sample.
        const text = eddy(["report", runId]).stdout;
        expect(text).toContain("another version of the dataset");
        expect(text).toMatch(/eddyevidence_0 #0 round 0: the input EvalPlus failed it on is not among/);
    }, 240_000);

    it("a model named org/name keeps its name in the configuration, the report and every export", () => {
        const model = "meta-llama/Meta-Llama-3.1-70B-Instruct";
        // Any samples do: these have one disagreement, quick to probe (evidence-v031.jsonl's spends its answer's 1.5 s of CPU again).
        const { runId, stderr } = samplesRun(path.join(FIXTURES, "evidence-5f4ebca.jsonl"), ["--model", model]);
        // Results of the same dataset as the one imported: no warning.
        expect(stderr).not.toContain("warning:");
        const report = JSON.parse(eddy(["report", runId, "--format", "json"]).stdout);
        expect(report.configs.map((c: { model: string }) => c.model)).toEqual([model]);
        const jsonl = eddy(["export", runId]).stdout.trim().split("\n").map((l) => JSON.parse(l) as { model: string; config: string });
        expect(new Set(jsonl.map((r) => `${r.model}|${r.config}`))).toEqual(new Set([`${model}|${model} t=0 completion`]));
        const csv = eddy(["export", runId, "--format", "csv"]).stdout;
        expect(csv.split("\n")[1]).toContain(`,${model} t=0 completion,${model},`);
        expect(csv).not.toContain("meta-llama--");
        const file = path.join(dir, "inspect.json");
        expect(eddy(["export", runId, "--format", "inspect", "--out", file, "--config", `${model} t=0 completion`]).status).toBe(0);
        expect(JSON.parse(readFileSync(file, "utf8")).eval.model).toBe(model);
        const text = eddy(["report", runId]).stdout;
        expect(text).toContain(model);
        expect(text).not.toContain("meta-llama--");
    }, 240_000);

    it("eddy import evalplus-samples shows its progress as eddy run does (none with --no-progress)", () => {
        const file = path.join(FIXTURES, "evidence-5f4ebca.jsonl");
        const r = eddy(["import", "evalplus-samples", file, "--templates", he, "--judge-workers", WORKERS, "--model", "progress"], { EDDY_DB: path.join(dir, "progress.db") });
        expect(r.status, r.stderr).toBe(0);
        expect(r.stderr).toMatch(/\[\d{8}-[0-9a-f]{6}\] .*judged 4\/6 passed 3 .*done in /);
        // The same database: its verdicts are cached now, and what is checked is that none of the progress is shown.
        const quiet = eddy(["import", "evalplus-samples", file, "--templates", he, "--judge-workers", WORKERS, "--model", "quiet", "--no-progress"], { EDDY_DB: path.join(dir, "progress.db") });
        expect(quiet.status, quiet.stderr).toBe(0);
        expect(quiet.stderr).not.toMatch(/judged \d+\/\d+/);
    }, 240_000);

    it("eddy judge needs no --params for a template with one instance, and names what is missing for one with more", () => {
        const answer = path.join(dir, "answer.py");
        writeFileSync(answer, "def triangle(n):\n    return n * (n + 1) // 2\n");
        const env = { EDDY_TEMPLATES: path.join(he, "templates"), EDDY_ORACLES: path.join(he, "oracles") };
        const one = eddy(["judge", "-t", "eddyevidence_1", "-c", answer, "--json"], env);
        expect(one.status, one.stderr).toBe(0);
        expect(JSON.parse(one.stdout)).toMatchObject({ category: "passed", params: ["EddyEvidence/1"] });
        const many = eddy(["judge", "-t", "list_every_kth", "-c", answer]);
        expect(many.status).toBe(2);
        expect(many.stderr).toMatch(/--params is needed: template list_every_kth has more than one instance/);
    }, 120_000);
});
