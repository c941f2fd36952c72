/**
 * The copying templates ask for a new object: an answer that hands back the caller's own object
 * (the classic copying mistake) fails, even where the values are right and nothing was modified.
 * The judge sees it because the value and the arguments come back in one marshal stream, where
 * one object shared by both arrives as one object.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JudgePool } from "../../src/judge/JudgePool.js";
import { loadTemplate } from "../../src/templates/loadTemplates.js";
import { builtInLibrary } from "../../src/templates/library.js";

let pool: JudgePool;
beforeAll(async () => {
    pool = await JudgePool.start({ workers: 1 });
});
afterAll(async () => {
    await pool?.close();
});

describe("answers that return the caller's object where a new one is asked for", () => {
    it("copy_last_n: `return values` when the list is short fails on the fixed test that hits it", async () => {
        const t = loadTemplate(builtInLibrary(), "copy_last_n");
        const code = "def copy_last_n(values):\n    if len(values) <= 5:\n        return values\n    return values[-5:]\n";
        const v = await pool.judge({ template: t, bindings: { n: 5 }, code });
        expect(v.category, v.detail).toBe("assertion_error");
        expect(v.detail).toMatch(/^fixed test \d+: copy_last_n\(.*\) returned its argument object \(or holds it\) instead of a new one/);
        // The same values in a new list pass: the check is about identity, not values.
        const right = await pool.judge({ template: t, bindings: { n: 5 }, code: "def copy_last_n(values):\n    return list(values[-5:]) if len(values) > 5 else list(values)\n" });
        expect(right.category, right.detail).toBe("passed");
    });

    it("copy_dict_bump: bumping nothing and returning the argument dict fails; a list holding it fails too", async () => {
        const t = loadTemplate(builtInLibrary(), "copy_dict_bump");
        const same = "def bumped_copy(counts):\n    if not counts:\n        return counts\n    return {k: v + 3 if v >= 2 else v for k, v in counts.items()}\n";
        const v = await pool.judge({ template: t, bindings: { t: 2, k: 3 }, code: same });
        expect(v.category, v.detail).toBe("assertion_error");
        expect(v.detail).toContain("returned its argument object");
        const right = "def bumped_copy(counts):\n    return {k: v + 3 if v >= 2 else v for k, v in counts.items()}\n";
        expect((await pool.judge({ template: t, bindings: { t: 2, k: 3 }, code: right })).category).toBe("passed");
    });

    it("copy_block: a new outer list holding the caller's own inner lists fails (new object at every depth, issue #30)", async () => {
        const t = loadTemplate(builtInLibrary(), "copy_block");
        const bindings = { r0: 0, r1: 6, c0: 0, c1: 6 };
        // Whole rows are the caller's row lists themselves wherever the block covers them.
        const inner = "def copy_block(matrix):\n    return [row if len(row) <= 7 else row[0:7] for row in matrix[0:7]]\n";
        const v = await pool.judge({ template: t, bindings, code: inner });
        expect(v.category, v.detail).toBe("assertion_error");
        expect(v.detail).toContain("returned its argument object (or holds it)");
        const right = "def copy_block(matrix):\n    return [list(row[0:7]) for row in matrix[0:7]]\n";
        const ok = await pool.judge({ template: t, bindings, code: right });
        expect(ok.category, ok.detail).toBe("passed");
    });

    it("a template that does not ask for a new object accepts the same sharing", async () => {
        // copy_then_extend returns [values, extended]: the original list itself is part of the answer.
        const t = loadTemplate(builtInLibrary(), "copy_then_extend");
        const code = "def copy_then_extend(values):\n    out = list(values)\n    out.extend([" + "X" + "] * K)\n    return [values, out]\n";
        const bindings = { x: 4, k: 2 };
        const v = await pool.judge({ template: t, bindings, code: code.replace("X", "4").replace("K", "2") });
        expect(v.category, v.detail).toBe("passed");
    });
});
