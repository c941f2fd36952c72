import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { defaultPython, pythonCommand, resolveInterpreter, SYSTEM_PYTHON } from "../../src/judge/workerScript.js";

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

    it("without a choice (no option, no EDDY_PYTHON): once per process, the distribution's /usr/bin/python3 where it is on PATH, else python3 on PATH resolved", () => {
        const saved = process.env.EDDY_PYTHON;
        const savedPath = process.env.PATH;
        delete process.env.EDDY_PYTHON;
        try {
            // A version manager's shim first on PATH.
            script("python3", `exec ${real} "$@"`);
            process.env.PATH = `${dir}:${savedPath ?? ""}`;
            const chosen = pythonCommand();
            expect(chosen).toBe(defaultPython(process.env.PATH));
            expect(chosen).toBe(existsSync(SYSTEM_PYTHON) && (savedPath ?? "").split(":").includes("/usr/bin") ? SYSTEM_PYTHON : real);
            // Once per process: the shim is not asked again.
            script("python3", "echo /bin/sh");
            process.env.PATH = dir;
            expect(pythonCommand()).toBe(chosen);
        } finally {
            process.env.PATH = savedPath;
            if (saved === undefined) delete process.env.EDDY_PYTHON;
            else process.env.EDDY_PYTHON = saved;
            script("python3", `exec ${real} "$@"`);
        }
    });

    it("the distribution's interpreter wins over a shim earlier on PATH, when its folder is on PATH and it runs the judge (3.11+)", () => {
        const sys = path.join(dir, "system");
        const shims = path.join(dir, "shims");
        mkdirSync(sys, { recursive: true });
        mkdirSync(shims, { recursive: true });
        const system = path.join(sys, "python3");
        writeFileSync(system, `#!/bin/sh
exec ${real} "$@"
`);
        chmodSync(system, 0o755);
        writeFileSync(path.join(shims, "python3"), `#!/bin/sh
exec ${real} "$@"
`);
        chmodSync(path.join(shims, "python3"), 0o755);
        // Its folder on PATH, after the shim: the distribution's, as named (never resolved through).
        expect(defaultPython(`${shims}:${sys}`, system)).toBe(system);
        // Its folder not on PATH: the first python3 on PATH, resolved to the interpreter it runs.
        expect(defaultPython(shims, system)).toBe(real);
        // One too old for the judge (eddy_judge/__init__.py exits 2): the shim's, resolved.
        writeFileSync(system, `#!/bin/sh
echo "eddy's judge needs Python 3.11 or newer" >&2
exit 2
`);
        expect(defaultPython(`${shims}:${sys}`, system)).toBe(real);
        // None at all: the name, so that its own error is reported.
        expect(defaultPython(path.join(dir, "empty"), path.join(dir, "nothing", "python3"))).toBe("python3");
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
