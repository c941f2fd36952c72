import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GOOD_YAML, TempTemplates } from "./fixtures.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "dist/cli/bin.js");

// A sound oracle: the solution passes, each mutant is caught by the fixed tests.
const SOUND = `
def solution(values, *, lo, hi):
    return sum(values[lo:hi + 1])

def tests(*, lo, hi):
    yield (list(range(hi + 3)),), sum(range(lo, hi + 1))
    yield ([],), 0

def inputs(rng, *, lo, hi):
    return ([rng.randint(0, 9) for _ in range(rng.randint(0, hi + 3))],)

def mutant_exclusive_hi(values, *, lo, hi):
    return sum(values[lo:hi])

def mutant_exclusive_lo(values, *, lo, hi):
    return sum(values[lo + 1:hi + 1])

def mutant_no_clipping(values, *, lo, hi):
    return sum(values[i] for i in range(lo, hi + 1))
`;
// A fixed test expects the wrong value, so the model solution fails its own oracle.
const BROKEN = SOUND.replace("sum(range(lo, hi + 1))", "sum(range(lo, hi + 2))");
// One mutant is the solution itself, so nothing can kill it.
const WEAK = SOUND.replace("return sum(values[lo + 1:hi + 1])", "return sum(values[lo:hi + 1])");

let dirs: TempTemplates;
beforeAll(() => {
    dirs = new TempTemplates();
    dirs.write("demo", GOOD_YAML, SOUND);
    dirs.write("broken", GOOD_YAML.replace("id: demo", "id: broken"), BROKEN);
    dirs.write("weak", GOOD_YAML.replace("id: demo", "id: weak"), WEAK);
});
afterAll(() => dirs.dispose());

function validate(...args: string[]) {
    return execa(process.execPath, [bin, "templates", "validate", "--instances", "4", "--workers", "1", ...args], { cwd: root, env: { ...process.env }, reject: false });
}

describe("eddy templates validate", () => {
    it("passes a sound oracle, reporting solution passes and kill rate", async () => {
        const r = await validate("demo");
        expect(r.exitCode, r.stderr).toBe(0);
        expect(r.stdout).toContain("demo: solution 4/4, mutants killed 3/3 (kill rate 100%)");
    });

    it("exits 1 and names the failing instance and the surviving mutant", async () => {
        const r = await validate("broken", "weak", "demo", "--json");
        expect(r.exitCode).toBe(1);
        const reports = JSON.parse(r.stdout) as { id: string; ok: boolean; solutionPassed: number; solutionFailures: { category: string }[]; mutants: { name: string; killed: boolean }[]; killRate: number }[];
        expect(reports.map((x) => [x.id, x.ok])).toEqual([["broken", false], ["weak", false], ["demo", true]]);
        const [broken, weak] = reports as [(typeof reports)[0], (typeof reports)[0]];
        expect(broken.solutionPassed).toBe(0);
        expect(broken.solutionFailures[0]!.category).toBe("assertion_error");
        expect(weak.solutionPassed).toBe(4);
        expect(weak.mutants.filter((m) => !m.killed).map((m) => m.name)).toEqual(["mutant_exclusive_lo"]);
        expect(weak.killRate).toBeCloseTo(2 / 3);
        // The text form names the survivor.
        const text = await validate("weak");
        expect(text.stdout).toContain("survived: mutant_exclusive_lo");
        // Judging every instance and mutant in the sandbox finds the same.
        const slow = await validate("broken", "weak", "demo", "--json", "--through-judge");
        expect(slow.exitCode).toBe(1);
        const judged = JSON.parse(slow.stdout) as typeof reports;
        expect(judged.map((x) => [x.id, x.ok, x.solutionPassed, x.mutants.filter((m) => !m.killed).map((m) => m.name)])).toEqual(
            reports.map((x) => [x.id, x.ok, x.solutionPassed, x.mutants.filter((m) => !m.killed).map((m) => m.name)])
        );
    });

    it("an oracle that does not load fails its own template only; the others are still validated", async () => {
        dirs.write("unloadable", GOOD_YAML.replace("id: demo", "id: unloadable"), SOUND + "\ndef broken(:\n");
        const r = await validate("unloadable", "demo", "--json");
        expect(r.exitCode).toBe(1);
        const reports = JSON.parse(r.stdout) as { id: string; ok: boolean; error?: string }[];
        expect(reports.map((x) => [x.id, x.ok])).toEqual([["unloadable", false], ["demo", true]]);
        expect(reports[0]!.error).toMatch(/oracle raised while loading unloadable\.py: SyntaxError/);
    });

    it("rejects an oracle with fewer than three mutants", async () => {
        dirs.write("few", GOOD_YAML.replace("id: demo", "id: few"), SOUND.split("def mutant_exclusive_lo")[0]!);
        const r = await validate("few");
        expect(r.exitCode).toBe(1);
        expect(r.stdout).toMatch(/few: .*\n.*only 1 mutant\(s\)/);
    });
});
