/**
 * Issue #43: every trusted operation on an answer's data is bounded. CPython hashes an int as its
 * value modulo 2**61 - 1, so an answer can hand back a set whose elements all hash alike; the
 * trusted worker rebuilding it (protocol.py for a Python answer, wire.py for another language's)
 * would do quadratic, uninterruptible work: 202 s for a JavaScript Set of 200,000 BigInts, and a
 * Python answer's copies of one such set (a copy costs it no hashing) cost the worker that much
 * again each. No such set is built: the answer's own failure, said in seconds.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JudgePool } from "../../src/judge/JudgePool.js";
import { parseLanguage, type Language } from "../../src/languages/languages.js";
import { fixtureTemplate } from "./fixtures/templates.js";

// 2 fixed tests and 54 random inputs: 56 calls, as in the issue.
const t = fixtureTemplate("sum_range", { budget: { timeMs: 2000, memoryMb: 256 }, randomInputs: 54 });
const evensAsSet = fixtureTemplate("evens_set", { function: "evens", comparator: "set", budget: { timeMs: 2000, memoryMb: 256 }, randomInputs: 20 });
const keepTemplate = fixtureTemplate("sum_range_keep", { budget: { timeMs: 2000, memoryMb: 256 }, randomInputs: 20 });
const bindings = { lo: 1, hi: 3 };
const RIGHT = "def sum_range(values):\n    return sum(values[1:4])\n";
// 4,000 ints that hash alike: ~0.1 s for the answer to build once (quadratic), nothing to copy.
const ALIKE = "P = 2**61 - 1\nS = set(1 + k * P for k in range(4000))\n";
const HASH_ALIKE = /a set whose elements hash alike: 4000 of its 4000 elements share one hash value/;
// Seconds a verdict may take here: the worker refuses these in milliseconds; the answer's own
// start-up and set are the rest (and a loaded machine). Without the guard: minutes.
const SECONDS = 20;

describe("the trusted side's work on an answer's sets is bounded (issue #43)", () => {
    let pool: JudgePool;
    beforeAll(async () => {
        pool = await JudgePool.start({ workers: 1 });
    });
    afterAll(async () => {
        await pool?.close();
    });

    async function timed(code: string, template = t, language?: Language): Promise<{ category: string; detail: string; seconds: number }> {
        const t0 = performance.now();
        const v = await pool.judge({ template, bindings, code, ...(language ? { language } : {}) });
        return { category: v.category, detail: v.detail, seconds: (performance.now() - t0) / 1000 };
    }

    it("a Python answer returning (a copy of) one colliding set from every call: its resource_exhaustion at once", async () => {
        const v = await timed(ALIKE + "def sum_range(values):\n    return S.copy()\n");
        expect(v.category, v.detail).toBe("resource_exhaustion");
        expect(v.detail).toMatch(HASH_ALIKE);
        expect(v.detail).toContain("on fixed test 1");
        expect(v.seconds).toBeLessThan(SECONDS);
    }, 120_000);

    it("a Python answer returning 60 copies of it in one value: refused at the first", async () => {
        const v = await timed(ALIKE + "def sum_range(values):\n    return [S.copy() for _ in range(60)]\n");
        expect(v.category, v.detail).toBe("resource_exhaustion");
        expect(v.detail).toMatch(HASH_ALIKE);
        expect(v.seconds).toBeLessThan(SECONDS);
    }, 120_000);

    it("a colliding dict, and a colliding set in the argument it hands back", async () => {
        const asDict = await timed(ALIKE + "def sum_range(values):\n    return dict.fromkeys(S, 0)\n");
        expect(asDict.category, asDict.detail).toBe("resource_exhaustion");
        expect(asDict.detail).toMatch(/a dict whose keys hash alike: 4000 of its 4000 keys/);
        // The arguments come back after each call where the question forbids changing them.
        const inArgument = await timed(ALIKE + "def sum_range(values):\n    total = sum(values[1:4])\n    values.append(S)\n    return total\n", keepTemplate);
        expect(inArgument.category, inArgument.detail).toBe("resource_exhaustion");
        expect(inArgument.detail).toMatch(HASH_ALIKE);
    }, 120_000);

    it("right answers, sets included, still pass, and so do sets with a few colliding elements", async () => {
        expect((await timed(RIGHT)).category).toBe("passed");
        const right = await timed("def evens(values):\n    return {v for v in values if v % 2 == 0}\n", evensAsSet);
        expect(right.category, right.detail).toBe("passed");
        // 32 alike (well within the bound) in a wrong answer: read, compared, and wrong, not refused.
        const few = await timed("P = 2**61 - 1\ndef sum_range(values):\n    return set(1 + k * P for k in range(32))\n");
        expect(few.category, few.detail).toBe("assertion_error");
    }, 120_000);

    // JavaScript hashes BigInts its own way: the Set costs the answer little, and the worker's
    // wire.py would rebuild it as a Python set (202 s in the issue).
    it("a JavaScript Set of 200,000 BigInts that hash alike in CPython: the answer's own failure at once", async () => {
        const code =
            "function sum_range(values) {\n    const P = (1n << 61n) - 1n;\n    const s = new Set();\n    for (let k = 0n; k < 200000n; k++) s.add(1n + k * P);\n    return s;\n}\n";
        expect(pool.runtimes.javascript).toBeTruthy();
        const v = await timed(code, { ...t, budget: { timeMs: 4000, memoryMb: 512 } }, parseLanguage("javascript"));
        // resource_exhaustion where foreign.py reads wire.WireFlood as the call's resource error
        // (as candidate.py reads protocol.TooLarge); runtime_error (a broken result channel) before.
        expect(["resource_exhaustion", "runtime_error"], `${v.category}: ${v.detail}`).toContain(v.category);
        expect(v.detail).toMatch(/a set whose elements hash alike: 200000 of its 200000 elements share one hash value/);
        expect(v.seconds).toBeLessThan(SECONDS + 10);
    }, 300_000);
});
