/**
 * Issue #44: the judge's Python environment is explicit. An answer that imports numpy imports the
 * judge interpreter's own numpy (its site folders bound read-only into bubblewrap's world, on the
 * answers' path after the standard library, numpy's BLAS and LAPACK reached through the library
 * links the world makes), in the answer's own time (the zygote does not preload it); a run records
 * the interpreter and its packages, and `eddy doctor` shows them. Run as root here, in both modes;
 * test/judge/asUser.test.ts runs the same answers as an ordinary user.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JudgePool } from "../../src/judge/JudgePool.js";
import { environmentIdentity, recordedEnvironment } from "../../src/judge/environment.js";
import { readEnvironment } from "../../src/judge/readEnvironment.js";
import type { Verdict } from "../../src/judge/types.js";
import { pythonCommand } from "../../src/judge/workerScript.js";
import { normalizeStudyConfig } from "../../src/run/config.js";
import { runStudy } from "../../src/run/runStudy.js";
import { openStore } from "../../src/store/Store.js";
import { runInfo } from "../../src/store/outcomes.js";
import { BIN, cleanTmp, tmpDir } from "../run/helpers.js";
import { fixtureTemplate } from "./fixtures/templates.js";
import { NUMPY_ANSWERS } from "./fixtures/numpy.js";

const PYTHON = pythonCommand();
const HAS_NUMPY = spawnSync(PYTHON, ["-I", "-c", "import numpy"]).status === 0;
// CI installs it (scripts/setup.sh, which .ci/run runs, installs Debian's python3-numpy for the judge's interpreter).
const SKIP = HAS_NUMPY ? undefined : `the judge's Python (${PYTHON}) cannot import numpy: install Debian's python3-numpy (what scripts/setup.sh does)`;
const HAS_BWRAP = spawnSync("sh", ["-c", "command -v bwrap"]).status === 0;

const t = fixtureTemplate("sum_range", { budget: { timeMs: 2000, memoryMb: 128 }, randomInputs: 5 });
const bindings = { lo: 1, hi: 3 };
afterAll(cleanTmp);

for (const mode of ["bubblewrap", "without namespaces"] as const) {
    const skip = SKIP ?? (mode === "bubblewrap" && !HAS_BWRAP ? "bubblewrap is not installed here" : undefined);
    describe.skipIf(skip !== undefined)(`answers that import numpy (${mode})${skip ? ` (skipped: ${skip})` : ""}`, () => {
        let pool: JudgePool;
        const saved = process.env.EDDY_JUDGE_NO_NAMESPACES;
        let n = 0;
        const judge = (code: string): Promise<Verdict> => pool.judge({ template: { ...t, oracleHash: `${t.oracleHash}|numpy-${mode}-${n++}-${Date.now()}` }, bindings, code });

        beforeAll(async () => {
            if (mode === "without namespaces") process.env.EDDY_JUDGE_NO_NAMESPACES = "1";
            else delete process.env.EDDY_JUDGE_NO_NAMESPACES;
            pool = await JudgePool.start({ workers: 1, allowUnsandboxed: true });
        }, 120_000);
        afterAll(async () => {
            await pool?.close();
            if (saved === undefined) delete process.env.EDDY_JUDGE_NO_NAMESPACES;
            else process.env.EDDY_JUDGE_NO_NAMESPACES = saved;
        });

        it("pass where they are right and fail where they are wrong, with the numpy the judge records", async () => {
            expect(pool.isolation.sandboxed).toBe(mode === "bubblewrap");
            const numpy = pool.environment.packages.numpy;
            expect(numpy).toMatch(/^\d+\.\d+/);
            for (const [name, code] of Object.entries(NUMPY_ANSWERS.right)) {
                const v = await judge(code);
                expect(v.category, `${name}: ${v.detail}`).toBe("passed");
            }
            const wrong = await judge(NUMPY_ANSWERS.wrong);
            expect(wrong.category, wrong.detail).toBe("assertion_error");
            // The numpy an answer imports is the one the run records.
            const version = await judge(NUMPY_ANSWERS.version);
            expect(version.detail).toContain(`got '${numpy}'`);
        }, 120_000);

        it("the zygote does not preload numpy, and ctypes stays the answer's tampering (numpy alone goes without it)", async () => {
            const fresh = await judge(NUMPY_ANSWERS.notPreloaded);
            expect(fresh.category, fresh.detail).toBe("passed");
            for (const code of [NUMPY_ANSWERS.ctypes, NUMPY_ANSWERS.ctypesAfterNumpy]) {
                const v = await judge(code);
                expect(v.category).toBe("runtime_error");
                expect(v.detail).toMatch(/^tampering: .*ctypes/);
            }
        }, 120_000);
    });
}

describe.skipIf(SKIP !== undefined)(`the judge's environment, recorded and shown${SKIP ? ` (skipped: ${SKIP})` : ""}`, () => {
    it("a run records the interpreter and its packages; runs show, the report and doctor show them", async () => {
        const env = await readEnvironment(PYTHON);
        const db = path.join(tmpDir("eddy-numpy-"), "env.db");
        const r = await runStudy(normalizeStudyConfig({ backend: "reference", templates: "list_every_kth", instances: 1, rounds: 1, db }));
        expect(r.status).toBe("complete");
        const store = openStore(db, { readonly: true });
        const info = runInfo(store, r.runId);
        store.close();
        const recorded = recordedEnvironment(info.isolation);
        expect(recorded).toEqual(env);
        expect(recorded!.packages.numpy).toMatch(/^\d+\.\d+/);
        expect(environmentIdentity(recorded!).python).toMatch(/^3\.\d+\.\d+$/);
        const show = execFileSync(process.execPath, [BIN, "runs", "show", r.runId, "--db", db], { encoding: "utf8" });
        expect(show).toContain(`judge Python: CPython ${env.version} (${env.executable}), numpy ${env.packages.numpy}, `);
        const report = JSON.parse(execFileSync(process.execPath, [BIN, "report", r.runId, "--db", db, "--format", "json"], { encoding: "utf8" })) as { runs: { judgePython: unknown }[] };
        expect(report.runs[0]!.judgePython).toEqual(env);
        const text = execFileSync(process.execPath, [BIN, "report", r.runId, "--db", db], { encoding: "utf8" });
        expect(text).toContain(`Judge Python: CPython ${env.version}, numpy ${env.packages.numpy}.`);

        // A session of the same run under another judge environment says so (here: the record says numpy 0.0.1).
        const db2 = new Database(db);
        db2.prepare("UPDATE runs SET isolation_json = ? WHERE id = ?").run(JSON.stringify({ ...(info.isolation as object), python: { ...env, packages: { ...env.packages, numpy: "0.0.1" } } }), r.runId);
        db2.close();
        const notes: string[] = [];
        const again = await runStudy(normalizeStudyConfig({ backend: "reference", templates: "list_every_kth", instances: 1, rounds: 1, db }), { onLog: (l) => notes.push(l) });
        expect(again.runId).toBe(r.runId);
        expect(notes).toContain(`note: the judge's Python is not the one that judged this run before (numpy 0.0.1, now ${env.packages.numpy}): verdicts judged before and now may differ`);
        // (doctor --json: the test below.)
        const lines = execFileSync(process.execPath, [BIN, "doctor"], { encoding: "utf8" });
        expect(lines).toMatch(new RegExp(`^judge Python +CPython ${env.version.replace(/\./g, "\\.")} \\(${env.executable.replace(/[./]/g, "\\$&")}\\)$`, "m"));
        expect(lines).toMatch(new RegExp(`^judge packages +answers may import \\d+ packages?: numpy ${env.packages.numpy!.replace(/\./g, "\\.")}`, "m"));
        expect(lines).not.toMatch(/^problem: .*numpy/m);
    }, 240_000);

    it("a judge whose Python offers no numpy (its site folders off) says so: recorded, in doctor, and answers that import it fail as EvalPlus's would there", async () => {
        // The same interpreter without `site`: no site folder, so no third-party package for answers.
        const bare = path.join(tmpDir("eddy-nosite-"), "python-without-site");
        writeFileSync(bare, `#!/bin/sh\nexec '${PYTHON}' -S "$@"\n`);
        chmodSync(bare, 0o755);
        const env = await readEnvironment(bare);
        expect(env.packages).toEqual({});
        expect(env.sitePackages).toEqual([]);
        const pool = await JudgePool.start({ workers: 1, python: bare, allowUnsandboxed: true });
        try {
            expect(pool.environment).toEqual(env);
            const v = await pool.judge({ template: { ...t, oracleHash: `${t.oracleHash}|nosite-${Date.now()}` }, bindings, code: NUMPY_ANSWERS.right.sum });
            expect(v.category).toBe("runtime_error");
            expect(v.detail).toMatch(/ModuleNotFoundError: No module named 'numpy'/);
        } finally {
            await pool.close();
        }
        const doctor = JSON.parse(execFileSync(process.execPath, [BIN, "doctor", "--json", "--python", bare], { encoding: "utf8" })) as { judgePython: unknown; problems: string[] };
        expect(doctor.judgePython).toEqual(env);
        expect(doctor.problems).toContainEqual(expect.stringMatching(/^the judge's Python \(.*\) has no numpy: answers that import it \(EvalPlus's do\) fail with ModuleNotFoundError; /));
    }, 240_000);
});
