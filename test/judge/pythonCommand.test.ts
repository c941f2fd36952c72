import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pythonCommand, resolveInterpreter } from "../../src/judge/workerScript.js";

const dir = mkdtempSync(path.join(tmpdir(), "eddy-python-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function script(name: string, body: string): string {
    const file = path.join(dir, name);
    writeFileSync(file, `#!/bin/sh\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
}

describe("the judge's Python interpreter", () => {
    const real = execFileSync("python3", ["-I", "-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();

    it("python3 on PATH (no option, no EDDY_PYTHON) is resolved to the interpreter it runs, once per process", () => {
        const saved = process.env.EDDY_PYTHON;
        const savedPath = process.env.PATH;
        delete process.env.EDDY_PYTHON;
        try {
            // A version manager's shim first on PATH.
            script("python3", `exec ${real} "$@"`);
            process.env.PATH = `${dir}:${savedPath ?? ""}`;
            expect(pythonCommand()).toBe(real);
            // Once per process: the shim is not asked again.
            script("python3", "echo /bin/sh");
            expect(pythonCommand()).toBe(real);
        } finally {
            process.env.PATH = savedPath;
            if (saved === undefined) delete process.env.EDDY_PYTHON;
            else process.env.EDDY_PYTHON = saved;
        }
    });

    it("an interpreter given (option or EDDY_PYTHON) is used exactly as given: a wrapper may do more than pick one", () => {
        const wrapper = script("as-another-user", `exec setpriv --reuid=65534 ${real} "$@"`);
        expect(pythonCommand(wrapper)).toBe(wrapper);
        const saved = process.env.EDDY_PYTHON;
        process.env.EDDY_PYTHON = wrapper;
        try {
            expect(pythonCommand()).toBe(wrapper);
        } finally {
            if (saved === undefined) delete process.env.EDDY_PYTHON;
            else process.env.EDDY_PYTHON = saved;
        }
    });

    it("resolving: a shim gives the interpreter; a name that does not run, or says something else, is kept", () => {
        expect(resolveInterpreter(script("shim", `exec ${real} "$@"`))).toBe(real);
        const missing = path.join(dir, "no-such-python");
        expect(resolveInterpreter(missing)).toBe(missing);
        const liar = script("liar-python", "echo 'Python 3.6.0'");
        expect(resolveInterpreter(liar)).toBe(liar);
        const broken = script("broken-python", "exit 3");
        expect(resolveInterpreter(broken)).toBe(broken);
        const elsewhere = script("points-elsewhere", `echo ${path.join(dir, "nothing-here")}`);
        expect(resolveInterpreter(elsewhere)).toBe(elsewhere);
    });
});
