import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pythonCommand } from "../../src/judge/workerScript.js";

const dir = mkdtempSync(path.join(tmpdir(), "eddy-python-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function script(name: string, body: string): string {
    const file = path.join(dir, name);
    writeFileSync(file, `#!/bin/sh\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
}

describe("the Python interpreter, resolved once", () => {
    const real = execFileSync("python3", ["-I", "-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();

    it("a version manager's shim resolves to the interpreter it runs", () => {
        const shim = script("shim-python", `exec python3 "$@"`);
        expect(pythonCommand(shim)).toBe(real);
        // Once per process: the shim is not asked again (its answer would now be different).
        writeFileSync(shim, "#!/bin/sh\necho /bin/sh\n");
        expect(pythonCommand(shim)).toBe(real);
    });

    it("a name that does not run, or says something else, is kept as given (its own error is reported later)", () => {
        const missing = path.join(dir, "no-such-python");
        expect(pythonCommand(missing)).toBe(missing);
        const liar = script("liar-python", "echo 'Python 3.6.0'");
        expect(pythonCommand(liar)).toBe(liar);
        const broken = script("broken-python", "exit 3");
        expect(pythonCommand(broken)).toBe(broken);
        const notExecutable = script("points-elsewhere", `echo ${path.join(dir, "nothing-here")}`);
        expect(pythonCommand(notExecutable)).toBe(notExecutable);
    });
});
