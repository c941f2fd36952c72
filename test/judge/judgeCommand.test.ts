import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { unwrapMessages } from "../support/messages.js";

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const env = { ...process.env, EDDY_TEMPLATES: path.join(here, "fixtures/templates"), EDDY_ORACLES: path.join(here, "fixtures/oracles") };
const dir = mkdtempSync(path.join(tmpdir(), "eddy-judge-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function eddy(args: string[], extraEnv: Record<string, string> = {}, input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
    const child = run(process.execPath, [path.join(root, "dist/cli/bin.js"), ...args], { env: { ...env, ...extraEnv }, cwd: root });
    if (input !== undefined) {
        child.child.stdin!.end(input);
    }
    try {
        const { stdout, stderr } = await child;
        return { code: 0, stdout, stderr };
    } catch (err) {
        const e = err as { code: number; stdout: string; stderr: string };
        return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
}

function file(name: string, text: string): string {
    const p = path.join(dir, name);
    writeFileSync(p, text);
    return p;
}

describe("eddy judge", () => {
    it("judges a raw response from a file and prints JSON with category, detail, ms", async () => {
        const answer = file("ok.md", "Here you go:\n```python\ndef sum_range(values):\n    return sum(values[1:4])\n```\n");
        const r = await eddy(["judge", "--template", "sum_range", "--params", "[1, 3]", "--code", answer, "--json"]);
        expect(r.code).toBe(0);
        const v = JSON.parse(r.stdout);
        expect(v).toMatchObject({ category: "passed", template: "sum_range", params: [1, 3] });
        expect(typeof v.detail).toBe("string");
        expect(typeof v.ms).toBe("number");
    });

    it("reads stdin with --code - and exits 0 on a failing verdict", async () => {
        const r = await eddy(["judge", "-t", "sum_range", "-p", "[1, 3]", "-c", "-"], {}, "def sum_range(values):\n    return 0\n");
        expect(r.code).toBe(0);
        expect(r.stdout).toMatch(/^assertion_error /);
    });

    it("judges an answer in another language with --language, and refuses an unknown one with one line", async () => {
        const js = file("ok-js.md", "```js\nfunction sum_range(values) { return values.slice(1, 4).reduce((a, b) => a + b, 0); }\n```\n");
        const ok = await eddy(["judge", "-t", "sum_range", "-p", "[1, 3]", "-c", js, "--language", "javascript"]);
        expect(ok.code).toBe(0);
        expect(ok.stdout).toMatch(/^passed /);
        const bad = await eddy(["judge", "-t", "sum_range", "-p", "[1, 3]", "-c", js, "--language", "cobol"]);
        expect(bad.code).not.toBe(0);
        expect(unwrapMessages(bad.stderr).trim().split("\n")).toEqual(["eddy: unknown language 'cobol' (use python, javascript, ruby, php)"]);
    });

    it("rejects bad input with one line and a non-zero exit", async () => {
        const answer = file("a.py", "def sum_range(values):\n    return 0\n");
        const [unknown, arity, constraint, missing] = await Promise.all([
            eddy(["judge", "-t", "no_such_template", "-p", "[1, 3]", "-c", answer]),
            eddy(["judge", "-t", "sum_range", "-p", "[1]", "-c", answer]),
            eddy(["judge", "-t", "sum_range", "-p", "[5, 2]", "-c", answer]),
            eddy(["judge", "-t", "sum_range", "-p", "[1, 3]", "-c", path.join(dir, "nope.py")])
        ]);
        expect(unknown.code).not.toBe(0);
        expect(unwrapMessages(unknown.stderr)).toMatch(/^eddy: unknown template 'no_such_template'/);
        expect(arity.code).not.toBe(0);
        expect(unwrapMessages(arity.stderr)).toMatch(/^eddy: template sum_range takes 2 parameter/);
        expect(constraint.code).not.toBe(0);
        expect(unwrapMessages(constraint.stderr)).toContain("constraint");
        expect(missing.code).not.toBe(0);
        expect(unwrapMessages(missing.stderr)).toMatch(/^eddy: cannot read --code/);
        for (const r of [unknown, arity, constraint, missing]) expect(unwrapMessages(r.stderr).trim().split("\n")).toHaveLength(1);
    });

    it("an oracle that raises: judge_error, one clear line, exit 3", async () => {
        const answer = file("c.py", "def sum_range(values):\n    return sum(values[1:4])\n");
        const r = await eddy(["judge", "-t", "broken_raises", "-p", "[1, 3]", "-c", answer]);
        expect(r.code).toBe(3);
        expect(r.stdout).toMatch(/^judge_error /);
        expect(unwrapMessages(r.stderr).trim()).toBe("eddy: the judge itself failed (not the answer's fault): oracle raised while generating random inputs: ValueError: oracle bug");
    });

    it("bad input is one line, never a stack trace (issue #9)", async () => {
        const answer = file("d.py", "def sum_range(values):\n    return 0\n");
        const deep = "[".repeat(5000) + "]".repeat(5000);
        const [nested, zero] = await Promise.all([
            eddy(["judge", "-t", "sum_range", "-p", deep, "-c", answer]),
            eddy(["judge", "-t", "sum_range", "-p", "[1, 3]", "-c", "/dev/zero"])
        ]);
        expect(nested.code).toBe(2);
        expect(unwrapMessages(nested.stderr)).toMatch(/^eddy: --params is nested more than \d+ deep\n$/);
        expect(zero.code).not.toBe(0);
        expect(unwrapMessages(zero.stderr)).toMatch(/^eddy: cannot read --code \/dev\/zero: more than 16 MB\n$/);
        for (const r of [nested, zero]) expect(r.stderr).not.toMatch(/\bat .*\.js:\d+/);
    });

    it("-c - works on a slow pipe (async reads, no EAGAIN)", async () => {
        const script = `(printf 'def sum_range(values):\\n'; sleep 1; printf '    return sum(values[1:4])\\n') | ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(root, "dist/cli/bin.js"))} judge -t sum_range -p '[1, 3]' -c -`;
        const { stdout } = await promisify(execFile)("bash", ["-c", script], { env, cwd: root });
        expect(stdout).toMatch(/^passed /);
    });

    it("escape codes in the answer's exception text are printed inert", async () => {
        const answer = file("e.py", "def sum_range(values):\n    raise ValueError('\\x1b[2K\\rpassed  all good')\n");
        const r = await eddy(["judge", "-t", "sum_range", "-p", "[1, 3]", "-c", answer, "--raw"]);
        expect(r.stdout).toMatch(/^runtime_error /);
        expect(r.stdout).not.toContain("\x1b");
        expect(r.stdout).not.toContain("\r");
        expect(r.stdout).toContain("\\x1b[2K\\x0dpassed");
    });

    it("says clearly when python3 is not on PATH", async () => {
        const answer = file("b.py", "def sum_range(values):\n    return 0\n");
        const r = await eddy(["judge", "-t", "sum_range", "-p", "[1, 3]", "-c", answer], { PATH: "", EDDY_PYTHON: "" });
        expect(r.code).not.toBe(0);
        expect(unwrapMessages(r.stderr).trim()).toMatch(/^eddy: python3 not found on PATH/);
    });
});
