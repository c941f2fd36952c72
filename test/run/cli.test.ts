import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { ensureTinyModels } from "../../src/inference/gguf/tinyModel.js";
import { BIN, cleanTmp, countRows, ROOT, tmpDir, verdictTable } from "./helpers.js";
import { sharedModelsDir } from "./sharedModels.js";
import { unwrapMessages } from "../support/messages.js";

afterAll(cleanTmp);
const tiny = ensureTinyModels();
const run = promisify(execFile);

/** Run the eddy CLI to completion; never throws, returns code and output. */
async function eddy(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
        const r = await run(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env }, maxBuffer: 64 << 20 });
        return { code: 0, stdout: r.stdout, stderr: r.stderr };
    } catch (err) {
        const e = err as { code: number; stdout: string; stderr: string };
        return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
}

/** Start the eddy CLI in the background. */
function start(args: string[]): ChildProcess {
    return spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
}

const exited = (p: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> =>
    new Promise((resolve) => (p.exitCode !== null || p.signalCode !== null ? resolve({ code: p.exitCode, signal: p.signalCode }) : p.once("exit", (code, signal) => resolve({ code, signal }))));

/** Count generations in a database another process is writing; 0 while it does not exist yet. */
function generationsSoFar(db: string): number {
    if (!existsSync(db)) return 0;
    try {
        return countRows(db, "generations");
    } catch {
        return 0; // schema not created yet
    }
}

/** Wait until the running process has stored at least `n` generations; false if it exited first. */
async function waitForGenerations(p: ChildProcess, db: string, n: number): Promise<boolean> {
    for (;;) {
        if (p.exitCode !== null || p.signalCode !== null) return false;
        if (generationsSoFar(db) >= n) return true;
        await new Promise((r) => setTimeout(r, 30));
    }
}

const runIdOf = (db: string): string => {
    const d = new Database(db, { readonly: true });
    try {
        return (d.prepare("SELECT id FROM runs").get() as { id: string }).id;
    } finally {
        d.close();
    }
};

// 2 templates × 12 instances × 2 rounds = 48 greedy queries on the tiny model: a few seconds, long enough to kill mid-way.
// One sequence: llama.cpp does not promise bit-identical logits across different batch compositions.
// Context 1024: the tiny model's byte-level prompts do not fit its trained 512.
const STUDY = ["run", "--model", tiny.f32, "--templates", "list_every_kth,math_count_coprime", "--instances", "12", "--rounds", "2", "--max-tokens", "48", "--context-size", "1024", "--threads", "1", "--sequences", "1", "--seed", "5", "--no-progress"];
const TOTAL = 48;

describe("eddy run (CLI)", () => {
    it("SIGKILL at any moment resumes to the same final result as an uninterrupted greedy run", async () => {
        const dir = tmpDir();
        const baseDb = path.join(dir, "base.db");
        const killDb = path.join(dir, "kill.db");
        const base = await eddy([...STUDY, "--db", baseDb]);
        expect(base.code, base.stderr).toBe(0);
        const baseline = verdictTable(baseDb);
        expect(baseline).toHaveLength(TOTAL);
        expect(baseline.filter((r) => JSON.parse(r).response.length > 0)).toHaveLength(TOTAL); // real generated text is compared

        // Kill once early (a few generations stored), then again later in a resumed session.
        const p1 = start([...STUDY, "--db", killDb]);
        const midway1 = await waitForGenerations(p1, killDb, 3);
        p1.kill("SIGKILL");
        await exited(p1);
        const id = runIdOf(killDb);
        const after1 = generationsSoFar(killDb);
        const p2 = start(["run", "--resume", id, "--db", killDb, "--no-progress"]);
        const midway2 = await waitForGenerations(p2, killDb, after1 + 6);
        p2.kill("SIGKILL");
        await exited(p2);
        // At least one kill must have landed mid-study for the test to mean anything.
        expect(midway1 || midway2).toBe(true);
        // The first kill left the study unfinished (the second may land after the last generation, before
        // the judging ends: the final command then has only that left, which is still a resume).
        expect(after1).toBeLessThan(TOTAL);

        // The same command again continues the same run.
        const final = await eddy([...STUDY, "--db", killDb]);
        expect(final.code, final.stderr).toBe(0);
        expect(final.stdout.trim()).toBe(id);
        expect(verdictTable(killDb)).toEqual(baseline);
        const d = new Database(killDb, { readonly: true });
        expect(d.pragma("integrity_check", { simple: true })).toBe("ok");
        expect((d.prepare("SELECT status FROM runs").get() as { status: string }).status).toBe("complete");
        d.close();
    }, 300_000);

    it("Ctrl-C stops cleanly: exit 130, run marked interrupted, resume completes it", async () => {
        const dir = tmpDir();
        const db = path.join(dir, "int.db");
        const p = start([...STUDY, "--db", db]);
        let stderr = "";
        p.stderr!.on("data", (b) => (stderr += String(b)));
        const midway = await waitForGenerations(p, db, 3);
        p.kill("SIGINT");
        const { code } = await exited(p);
        // The study is long enough that the signal lands mid-way; if it ever does not, the test says so.
        expect(midway, "the study finished before Ctrl-C could land").toBe(true);
        expect(code, stderr).toBe(130);
        const d = new Database(db, { readonly: true });
        expect((d.prepare("SELECT status FROM runs").get() as { status: string }).status).toBe("interrupted");
        d.close();
        const id = runIdOf(db);
        const r = await eddy(["run", "--resume", id, "--db", db, "--no-progress"]);
        expect(r.code, r.stderr).toBe(0);
        expect(countRows(db, "generations")).toBe(TOTAL);
        expect(countRows(db, "verdicts")).toBe(TOTAL);
    });

    it("two eddy processes on one database at once: both finish, nothing duplicated, database intact", async () => {
        const db = path.join(tmpDir(), "shared.db");
        const ref = ["run", "--backend", "reference", "--templates", "list_every_kth,math_count_coprime,set_add_range", "--instances", "15", "--rounds", "2", "--db", db, "--no-progress"];
        // Two with the same config (one run, worked on together) and one with another seed (a second run).
        const procs = [start(ref), start(ref), start([...ref, "--seed", "9"])];
        const errs = procs.map((p) => {
            let s = "";
            p.stderr!.on("data", (b) => (s += String(b)));
            return () => s;
        });
        const codes = await Promise.all(procs.map(exited));
        codes.forEach((c, i) => expect(c.code, errs[i]!()).toBe(0));
        const d = new Database(db, { readonly: true });
        expect(d.pragma("integrity_check", { simple: true })).toBe("ok");
        expect((d.prepare("SELECT COUNT(*) AS n FROM runs").get() as { n: number }).n).toBe(2);
        const per = d.prepare("SELECT c.run_id, COUNT(*) AS n, SUM(v.category = 'passed') AS passed FROM generations g JOIN configurations c ON c.id = g.config_id JOIN verdicts v ON v.generation_id = g.id GROUP BY c.run_id").all() as { n: number; passed: number }[];
        d.close();
        expect(per.map((r) => [r.n, r.passed])).toEqual([[90, 90], [90, 90]]);
        // One process per run at a time: the two on one run did its 90 answers once between them, not twice.
        const generated = errs.slice(0, 2).map((e) => Number(/generate: (\d+) responses/.exec(e())?.[1]));
        expect(generated.reduce((a, b) => a + b), errs.map((e) => e()).join("\n")).toBe(90);
    });

    it("runs list/show and export (jsonl, csv) after a tiny-model run; dry-run prints the plan", async () => {
        const dir = tmpDir();
        const db = path.join(dir, "e2e.db");
        const plan = await eddy(["run", "--model", tiny.f32, "--templates", "list_every_kth", "--instances", "4", "--rounds", "3", "--temperature", "0,0.7", "--dry-run", "--json", "--db", db]);
        expect(plan.code, plan.stderr).toBe(0);
        expect(JSON.parse(plan.stdout)).toMatchObject({ queries: 4 * 3 * 2, max_generated_tokens: 4 * 3 * 2 * 512, templates: ["list_every_kth"] });
        expect(existsSync(db)).toBe(false);

        const r = await eddy(["run", "--model", tiny.f32, "--templates", "list_every_kth", "--instances", "3", "--rounds", "2", "--temperature", "0,0.8", "--max-tokens", "24", "--context-size", "1024", "--threads", "1", "--db", db]);
        expect(r.code, r.stderr).toBe(0);
        const id = r.stdout.trim();
        expect(id).toMatch(/^\d{8}-[0-9a-f]{6}$/);
        expect(unwrapMessages(r.stderr)).toMatch(/generate: 12 responses/);

        const list = JSON.parse((await eddy(["runs", "list", "--json", "--db", db])).stdout);
        expect(list).toHaveLength(1);
        expect(list[0]).toMatchObject({ id, status: "complete", configurations: ["eddy-tiny-f32 t=0 default", "eddy-tiny-f32 t=0.8 default"] });
        const show = JSON.parse((await eddy(["runs", "show", id, "--json", "--db", db])).stdout);
        expect(show.counts).toMatchObject({ generations: 12, verdicts: 12 });
        expect(show.configurations[1].decoding).toEqual({ temperature: 0.8 });

        const jsonl = (await eddy(["export", id, "--format", "jsonl", "--db", db])).stdout.trim().split("\n").map((l) => JSON.parse(l));
        expect(jsonl).toHaveLength(12);
        for (const row of jsonl) for (const k of ["template", "instance", "params", "round", "seed", "code", "category", "detail"]) expect(row).toHaveProperty(k);
        // Sampled rounds carry distinct explicit seeds.
        expect(new Set(jsonl.filter((x) => x.temperature === 0.8).map((x) => x.seed)).size).toBe(6);
        const out = path.join(dir, "e.csv");
        expect((await eddy(["export", id, "--format", "csv", "--out", out, "--db", db])).code).toBe(0);
        const csv = readFileSync(out, "utf8").trim().split("\r\n");
        expect(csv[0]).toMatch(/^run,config,model,.*template.*instance.*params.*round.*seed.*code.*category.*detail/);

        const bad = await eddy(["runs", "show", "nope", "--db", db]);
        expect(bad.code).not.toBe(0);
        expect(unwrapMessages(bad.stderr)).toMatch(/^eddy: no run 'nope'/);
        const unknown = await eddy(["run", "--backend", "reference", "--templates", "nope_nope", "--db", db]);
        expect(unknown.code).not.toBe(0);
        expect(unwrapMessages(unknown.stderr).trim().split("\n")).toHaveLength(1);
    });

    it("a group size that cannot be, or one given with --fast, is one clear line and nothing is stored", async () => {
        const dir = tmpDir();
        const db = path.join(dir, "g.db");
        const cases: [string[], RegExp][] = [
            [["run", "--model", tiny.f32, "--fast", "--group-size", "4"], /^eddy: --group-size applies to the reproducible mode; --fast schedules sequences freely/],
            [["run", "--model", tiny.f32, "--group-size", "0"], /^eddy: group size must be an integer >= 1 \(got "0"\)/],
            [["run", "--model", tiny.f32, "--group-size", "65"], /^eddy: group size must be at most 64 \(got 65\)/],
            [["run", "--model", tiny.f32, "--groups", "none"], /^eddy: groups must be an integer >= 1/],
            [["audit", "determinism", "--model", tiny.f32, "--group-size", "1", "--groups", "2"], /^eddy: --groups does not apply here: with --backend llama and --group-size 1, what runs at once is compared with --sequences/],
            [["audit", "determinism", "--model", tiny.f32, "--sequences", "2"], /^eddy: --sequences does not apply here: with --backend llama and --group-size 8, what runs at once is compared with --groups/],
            // The audit takes each backend's own flags from its descriptor, checked by the same schema as eddy run.
            [["audit", "determinism", "--model", tiny.f32, "--gpu", "tpu"], /^eddy: --gpu must be one of auto, cuda, metal, vulkan, cpu \(got 'tpu'\)/]
        ];
        for (const [args, message] of cases) {
            const r = await eddy([...args, "--db", db]);
            expect(r.code, args.join(" ")).not.toBe(0);
            expect(unwrapMessages(r.stderr)).toMatch(message);
            expect(unwrapMessages(r.stderr).trim().split("\n"), r.stderr).toHaveLength(1);
        }
        expect(existsSync(db) ? countRows(db, "runs") : 0).toBe(0);
    });

    it("a YAML config file takes the same keys as the flags; flags win", async () => {
        const dir = tmpDir();
        const cfg = path.join(dir, "study.yaml");
        writeFileSync(cfg, `backend: reference\ntemplates: [list_every_kth, math_count_coprime]\ninstances: 4\nrounds: 3\ntemperature: [0, 0.5]\nmax-tokens: 100\n`);
        const r = await eddy(["run", "--config", cfg, "--rounds", "2", "--dry-run", "--json", "--db", path.join(dir, "x.db")]);
        expect(r.code, r.stderr).toBe(0);
        expect(JSON.parse(r.stdout)).toMatchObject({ templates: ["list_every_kth", "math_count_coprime"], rounds: 2, temperatures: [0, 0.5], queries: 2 * 4 * 2 * 2, max_generated_tokens: 2 * 4 * 2 * 2 * 100 });
        writeFileSync(cfg, "instances: 4\nmodles: [a.gguf]\n");
        const bad = await eddy(["run", "--config", cfg, "--dry-run"]);
        expect(bad.code).not.toBe(0);
        expect(unwrapMessages(bad.stderr)).toMatch(/^eddy: unknown setting 'modles'/);
    });

    it("eddy demo: tiny model, simulated flawed model and reference backend end to end, scores table, database and report", async () => {
        const dir = tmpDir();
        const db = path.join(dir, "demo.db");
        const r = await eddy(["demo", "--db", db, "--instances", "2", "--rounds", "1", "--templates", "list_every_kth,math_count_coprime"]);
        expect(r.code, r.stderr).toBe(0);
        // The reference row scores AS = CPS = CCS = 1, and every row shows its decoding mode.
        expect(r.stdout).toMatch(/reference t=0 default\s+reproducible\s+1\.000\s+1\.000\s+1\.000/);
        expect(r.stdout).toMatch(/eddy-tiny-f32 t=0 default/);
        expect(r.stdout).toMatch(/demo-simulated-answers t=0 default/);
        expect(r.stdout).toContain(`database: ${db}`);
        const report = path.join(dir, "reports", "demo.html");
        expect(r.stdout).toContain(report);
        expect(readFileSync(report, "utf8")).toMatch(/<html/i);
    });

    const shared = sharedModelsDir();
    it.skipIf(!shared)("end to end on the real stories260K model (EDDY_TEST_MODELS)", async () => {
        const db = path.join(tmpDir(), "stories.db");
        const r = await eddy(["run", "--model", path.join(shared!, "stories260K.gguf"), "--templates", "list_every_kth", "--instances", "3", "--rounds", "2", "--max-tokens", "32", "--threads", "1", "--db", db, "--no-progress"]);
        expect(r.code, r.stderr).toBe(0);
        const rows = verdictTable(db);
        expect(rows).toHaveLength(6);
        // A story model writes no code: every answer fails (or is cut off), none passes.
        for (const row of rows) expect(JSON.parse(row).category).not.toBe("passed");
    });
    if (!shared) console.warn("skipping the stories260K end-to-end test: EDDY_TEST_MODELS is not set");
});
