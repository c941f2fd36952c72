import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

/**
 * Why an answer failed: a fuzzing failure's input shrunk by the judge to the smallest on which the
 * answer and the model solution still differ (eddy_judge/shrink.py), stored beside the verdict,
 * which does not change, and exported. Shipped template list_every_kth: the answer below drops
 * the negative numbers it should keep, which no fixed test holds and most random inputs do.
 */
const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const dir = mkdtempSync(path.join(tmpdir(), "eddy-shrink-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { ...process.env, EDDY_TEMPLATES: path.join(root, "templates"), EDDY_ORACLES: path.join(root, "oracles"), EDDY_DB: path.join(dir, "eddy.db") };
const eddy = async (args: string[]): Promise<string> => (await run(process.execPath, [path.join(root, "dist/cli/bin.js"), ...args], { env, cwd: dir, maxBuffer: 64 << 20 })).stdout;

const DROPS_NEGATIVES = "def every_kth(values):\n    return [v for v in values[START::STEP] if not (isinstance(v, int) and v < 0)]\n";
/** The list of a call `every_kth([...])` as written in a verdict. */
const listOf = (call: string): number[] => JSON.parse(/^every_kth\((\[.*\])\)$/.exec(call)![1]!) as number[];

describe("the smallest failing input", () => {
    it("eddy judge shrinks a fuzzing failure to a smaller input on which the answer still differs, inside the template's domain", async () => {
        const code = path.join(dir, "answer.py");
        writeFileSync(code, DROPS_NEGATIVES.replace("START", "2").replace("STEP", "3"));
        const v = JSON.parse(await eddy(["judge", "-t", "list_every_kth", "-p", "[2, 3]", "-c", code, "--raw", "--json"])) as {
            category: string;
            detail: string;
            shrunk?: { call: string; expected: string; actual: string; from: string; tried: number; steps: number };
        };
        expect(v.category).toBe("fuzzing_failure");
        const s = v.shrunk!;
        expect(s).toBeDefined();
        // Shrunk from the input the verdict names, which stays the verdict's.
        expect(v.detail).toContain(s.from);
        const from = listOf(s.from);
        const small = listOf(s.call);
        expect(small.length).toBeLessThan(from.length);
        // Still a failure, and the one the answer has: a negative number at a taken position (2, 5, 8, …), which it drops.
        const taken = small.filter((_, i) => i >= 2 && (i - 2) % 3 === 0);
        expect(taken.some((x) => x < 0)).toBe(true);
        expect(JSON.parse(s.expected)).toEqual(taken);
        expect(JSON.parse(s.actual)).toEqual(taken.filter((x) => x >= 0));
        // In the template's domain: its generator draws values in [-50, 50].
        expect(small.every((x) => Number.isInteger(x) && x >= -50 && x <= 50)).toBe(true);
        expect(s.steps).toBeGreaterThan(0);
        expect(s.tried).toBeGreaterThanOrEqual(s.steps);
        // A passing answer and a fixed-test failure carry no shrunk input.
        writeFileSync(code, "def every_kth(values):\n    return values[2::3]\n");
        expect(JSON.parse(await eddy(["judge", "-t", "list_every_kth", "-p", "[2, 3]", "-c", code, "--raw", "--json"]))).not.toHaveProperty("shrunk");
        writeFileSync(code, "def every_kth(values):\n    return values[3::3]\n");
        const fixed = JSON.parse(await eddy(["judge", "-t", "list_every_kth", "-p", "[2, 3]", "-c", code, "--raw", "--json"])) as { category: string };
        expect(fixed.category).toBe("assertion_error");
        expect(fixed).not.toHaveProperty("shrunk");
    });

    it("a study stores it with the verdict and exports it; other verdicts carry none", async () => {
        // Replayed answers: every instance's answer drops negatives from its own slice (parameters read back from the export).
        const plan = (await eddy(["run", "--backend", "reference", "--templates", "list_every_kth", "--instances", "4", "--rounds", "1", "--no-progress"])).trim().split("\n").pop()!;
        const ref = (await eddy(["export", plan])).trim().split("\n").map((l) => JSON.parse(l) as { instance: number; parameters: { start: number; step: number } });
        const answers = ref.map((r) => JSON.stringify({ template: "list_every_kth", instance: r.instance, round: 0, response: "```python\n" + DROPS_NEGATIVES.replace("START", String(r.parameters.start)).replace("STEP", String(r.parameters.step)) + "```" }));
        writeFileSync(path.join(dir, "answers.jsonl"), answers.join("\n") + "\n");
        const id = (await eddy(["run", "--backend", "replay", "--replay", path.join(dir, "answers.jsonl"), "--templates", "list_every_kth", "--instances", "4", "--rounds", "1", "--no-progress"])).trim().split("\n").pop()!;
        const rows = (await eddy(["export", id])).trim().split("\n").map((l) => JSON.parse(l) as { category: string; detail: string; shrunk_input: { call: string; from: string } | null });
        const fuzz = rows.filter((r) => r.category === "fuzzing_failure");
        expect(fuzz.length).toBeGreaterThan(0);
        for (const r of fuzz) {
            expect(r.shrunk_input).not.toBeNull();
            expect(r.detail).toContain(r.shrunk_input!.from);
            // Smaller, or already the smallest (then the same input, in no step).
            const s = r.shrunk_input as { call: string; from: string; steps: number };
            if (s.steps === 0) expect(s.call).toBe(s.from);
            else expect(listOf(s.call).length).toBeLessThanOrEqual(listOf(s.from).length);
        }
        for (const r of rows.filter((x) => x.category !== "fuzzing_failure")) expect(r.shrunk_input).toBeNull();
    });
});
