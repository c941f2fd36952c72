import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { HARNESS_CATEGORIES, MODEL_CATEGORIES } from "../../src/vocabulary.js";

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const pkg = path.join(root, "src/judge/python");

describe("the Python judge package", () => {
    it("names exactly the verdict categories of vocabulary.ts, in the same order", async () => {
        const { stdout } = await run("python3", ["-c", "import json; from eddy_judge.categories import CATEGORIES, as_category; print(json.dumps([list(CATEGORIES), as_category('passed'), as_category('pass')]))"], {
            cwd: root,
            env: { ...process.env, PYTHONPATH: pkg }
        });
        expect(JSON.parse(stdout)).toEqual([[...MODEL_CATEGORIES, ...HARNESS_CATEGORIES], "passed", null]);
    });
    it("passes its own unit tests (unittest, standard library)", async () => {
        const { stderr } = await run("python3", ["-m", "unittest", "discover", "-s", path.join(root, "test/judge/python"), "-t", path.join(root, "test/judge/python")], {
            cwd: root,
            env: { ...process.env, PYTHONPATH: pkg, PYTHONWARNINGS: "ignore" }
        }).catch((err: { stderr: string }) => {
            throw new Error(err.stderr);
        });
        expect(stderr).toMatch(/Ran \d+ tests/);
        expect(stderr).toMatch(/\nOK/);
    });

    it("type-checks with pyright: no errors", async () => {
        const pyright = path.join(root, "node_modules/pyright/index.js");
        const out = await run(process.execPath, [pyright, "-p", path.join(pkg, "pyrightconfig.json"), "--outputjson"], { cwd: root, maxBuffer: 16 << 20 }).catch(
            (err: { stdout: string }) => ({ stdout: err.stdout })
        );
        const report = JSON.parse(out.stdout) as { summary: { errorCount: number; filesAnalyzed: number }; generalDiagnostics: { file: string; range: unknown; message: string }[] };
        expect(report.generalDiagnostics.map((d) => `${d.file}: ${d.message}`)).toEqual([]);
        expect(report.summary.errorCount).toBe(0);
        expect(report.summary.filesAnalyzed).toBeGreaterThanOrEqual(12);
    });
});
