/**
 * A verdict names the answer's first failing input and stops there (issue #44): the worker compares
 * each result as it comes back, in the order the inputs were asked, and stops the answer at the
 * first one that fails, before a later input's error, size bound or cost can stand in for it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JudgePool } from "../../src/judge/JudgePool.js";
import { selectTemplates } from "../../src/templates/loadTemplates.js";
import { builtInLibrary } from "../../src/templates/library.js";

// list_rotate_right: 10 fixed tests with distinct multiples of 10, then random inputs of digits.
const rotate = selectTemplates(builtInLibrary(), "list_rotate_right")[0]!;
const t = { ...rotate, budget: { timeMs: 20000, memoryMb: 256 }, randomInputs: 20 };
const bindings = { k: 3 };
const RIGHT = "    if not values:\n        return []\n    k = 3 % len(values)\n    return values[len(values) - k:] + values[:len(values) - k]\n";
// Wrong on the first fixed test only (a one-element list gets a marker appended).
const WRONG_FIRST = "calls = []\ndef rotate_right(values):\n    calls.append(1)\n    if len(calls) == 1:\n        return list(values) + [-1]\n";

let pool: JudgePool;
beforeAll(async () => {
    pool = await JudgePool.start({ workers: 1 });
});
afterAll(async () => {
    await pool?.close();
});

describe("the first failing input decides", () => {
    it("a wrong value on fixed test 1 is the verdict, not a crash on a later input", async () => {
        const code = WRONG_FIRST + "    if len(calls) == 5:\n        raise ValueError('later')\n" + RIGHT;
        const v = await pool.judge({ template: t, bindings, code });
        expect(v.category, v.detail).toBe("assertion_error");
        expect(v.detail).toMatch(/^fixed test 1: rotate_right\(\[0\]\) expected \[0\], got \[0, -1\]$/);
    });

    it("a wrong value on fixed test 1 is the verdict, not results too large to compare on a later one", async () => {
        // From the third call on, every answer holds 2^22 values once shared references are expanded.
        const code = WRONG_FIRST + "    if len(calls) >= 3:\n        x = [0]\n        for _ in range(22):\n            x = [x, x]\n        return x\n" + RIGHT;
        const v = await pool.judge({ template: t, bindings, code });
        expect(v.category, v.detail).toBe("assertion_error");
        expect(v.detail).toMatch(/^fixed test 1:/);
        // The same blow-up with every earlier answer right is still the answer's resource_exhaustion, at its input.
        const late = "calls = []\ndef rotate_right(values):\n    calls.append(1)\n    if len(calls) >= 3:\n        x = [0]\n        for _ in range(22):\n            x = [x, x]\n        return x\n" + RIGHT;
        const w = await pool.judge({ template: t, bindings, code: late });
        expect(w.category, w.detail).toBe("resource_exhaustion");
        expect(w.detail).toMatch(/fixed test 3$/);
    });

    it("the answer stops at its first failing input: the costly inputs after it never run", async () => {
        // Each call after the first spends 1 s of CPU: all of them would take over 25 s.
        const code = WRONG_FIRST + "    import time\n    t0 = time.process_time()\n    while time.process_time() - t0 < 1.0:\n        pass\n" + RIGHT;
        const v = await pool.judge({ template: t, bindings, code });
        expect(v.category, v.detail).toBe("assertion_error");
        expect(v.detail).toMatch(/^fixed test 1:/);
        // The answer's own CPU time: its load, the first call and at most the one it was in when stopped.
        expect(v.cpuMs, `${v.cpuMs} ms of CPU`).toBeLessThan(5000);
    });

    it("an error before a wrong value is the verdict, at its own input", async () => {
        const code = "calls = []\ndef rotate_right(values):\n    calls.append(1)\n    if len(calls) == 2:\n        raise KeyError('early')\n    if len(calls) == 4:\n        return 'wrong'\n" + RIGHT;
        const v = await pool.judge({ template: t, bindings, code });
        expect(v.category, v.detail).toBe("runtime_error");
        expect(v.detail).toMatch(/KeyError.*on fixed test 2$/);
    });

    it("a right answer still passes every input", async () => {
        const v = await pool.judge({ template: t, bindings, code: "def rotate_right(values):\n" + RIGHT });
        expect(v.category, v.detail).toBe("passed");
        expect(v.detail).toMatch(/^\d+ fixed tests and 20 random inputs agree$/);
    });
});
