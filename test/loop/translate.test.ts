/**
 * EvaLOOP's translation loop (issue #26) on replayed answers: python → javascript → ruby → python,
 * each step judged in its language, ASL with s = 1 equal to a hand computation.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildLoopReport, renderLoopHtml, renderLoopText } from "../../src/loop/report.js";
import { normalizeLoopConfig, runLoop } from "../../src/loop/runLoop.js";
import { parseChain, stepLanguage, stepsFor, sustainedLoops } from "../../src/loop/translate.js";
import { openStore } from "../../src/store/Store.js";
import { parseLanguage, type Language } from "../../src/languages/languages.js";

const tmp = mkdtempSync(path.join(tmpdir(), "eddy-translate-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// list_rotate_right: instances 0, 1, 2 are its first edge tuples k = 0, 1, 2.
const code: Record<string, (k: number) => string> = {
    python: (k) => "```python\ndef rotate_right(values):\n    if not values:\n        return []\n    s = " + k + " % len(values)\n    return values[len(values) - s:] + values[:len(values) - s]\n```",
    javascript: (k) =>
        "Here it is in JavaScript:\n```js\nfunction rotate_right(values) {\n  if (values.length === 0) return [];\n  const s = " + k + " % values.length;\n  return values.slice(values.length - s).concat(values.slice(0, values.length - s));\n}\n```",
    ruby: (k) => "```ruby\ndef rotate_right(values)\n  return [] if values.empty?\n  values.rotate(-(" + k + " % values.length))\nend\n```"
};
// Wrong in each language: the list comes back unrotated (right only when k is a multiple of the length).
const wrongJs = "```javascript\nfunction rotate_right(values) { return values.slice(); }\n```";
const wrongRuby = "```ruby\ndef rotate_right(values)\n  values.dup\nend\n```";
const chain: readonly Language[] = ["python", "javascript", "ruby", "python"].map((l) => parseLanguage(l));

/**
 * N = 2 loops of m = 3 translations: steps 1..7, replay round = step − 1.
 * instance 0 (k = 0): every step passes → l = 2.
 * instance 1 (k = 1): steps 1–4 pass (one full loop), step 5 (JavaScript) is wrong → l = 1.
 * instance 2 (k = 2): steps 1–2 pass, step 3 (Ruby) is wrong → l = 0.
 * ASL = Σ n_i · i² · s_i / (M · T) with s = 1: (1·1² + 1·2²) / (2·3) = 5/6.
 */
function replayFile(): string {
    const lines: { template: string; instance: number; round: number; response: string }[] = [];
    const add = (instance: number, round: number, response: string) => lines.push({ template: "list_rotate_right", instance, round, response });
    for (let s = 1; s <= 7; s++) add(0, s - 1, code[stepLanguage([...chain], s)]!(0));
    for (let s = 1; s <= 4; s++) add(1, s - 1, code[stepLanguage([...chain], s)]!(1));
    add(1, 4, wrongJs);
    for (let s = 1; s <= 2; s++) add(2, s - 1, code[stepLanguage([...chain], s)]!(2));
    add(2, 2, wrongRuby);
    const file = path.join(tmp, "translate.jsonl");
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    return file;
}

describe("the translation chain", () => {
    it("steps through the chain's languages, again from its second after its last", () => {
        expect([1, 2, 3, 4, 5, 6, 7].map((s) => stepLanguage([...chain], s))).toEqual(["python", "javascript", "ruby", "python", "javascript", "ruby", "python"]);
        expect(stepsFor([...chain], 2)).toBe(7);
        expect([0, 1, 2, 3, 4, 6, 7].map((p) => sustainedLoops(p, [...chain]))).toEqual([0, 0, 0, 0, 1, 1, 2]);
    });

    it("refuses a chain of one language or an unknown language with one line", () => {
        expect(() => parseChain("python")).toThrow(/^--translate needs at least two languages/);
        expect(() => parseChain("python,cobol")).toThrow(/^unknown language 'cobol' \(use python, javascript, ruby, php\)$/);
        expect(() => normalizeLoopConfig({ backend: "reference", translate: "python,ruby", embedModel: "x" })).toThrow(/--summariser and --embed-model apply to the summary loop/);
    });
});

describe("eddy loop run --translate on replayed answers", () => {
    it("judges each step in its language, stops at the first failure and scores ASL = 5/6 by hand", async () => {
        const db = path.join(tmp, "translate.db");
        const r = await runLoop(
            normalizeLoopConfig({ backend: "replay", replay: replayFile(), templates: "list_rotate_right", instances: 3, maxLoops: 2, translate: chain.join(","), judgeWorkers: 1, db })
        );
        expect(r.status).toBe("complete");
        const store = openStore(db);
        try {
            const report = buildLoopReport(store, [r.runId]);
            const rep = report.runs[0]!;
            expect(rep.translate).toEqual([...chain]);
            expect(rep.asl.asl).toBeCloseTo(5 / 6, 12);
            expect(rep.asl.sustainedCounts).toEqual([1, 1, 1]);
            expect(rep.tasks.map((t) => [t.instance, t.sustained, t.firstFailure, t.finished])).toEqual([
                [0, 2, null, true],
                [1, 1, 5, true],
                [2, 0, 3, true]
            ]);
            expect(rep.tasks.map((t) => t.loops.map((l) => l.category))).toEqual([
                Array(7).fill("passed"),
                ["passed", "passed", "passed", "passed", "assertion_error"],
                ["passed", "passed", "assertion_error"]
            ]);
            // Each translation asks for the next language with the last passing code; the code judged is the new language's.
            const t1 = rep.tasks[1]!;
            expect(t1.loops[1]!.question).toMatch(/^Translate the following Python code into JavaScript\. Keep the function name `rotate_right`/);
            expect(t1.loops[1]!.question).toContain("def rotate_right(values):");
            expect(t1.loops[2]!.question).toMatch(/^Translate the following JavaScript code into Ruby\./);
            expect(t1.loops[1]!.code).toMatch(/^function rotate_right\(values\) \{/);
            expect(t1.loops[2]!.code).toMatch(/^def rotate_right\(values\)\n {2}return \[\] if values\.empty\?/);
            expect(renderLoopText(report)).toContain("translation loop: python → javascript → ruby → python (s = 1)");
            expect(renderLoopHtml(report)).toContain("Translation loop: python → javascript → ruby → python (s = 1)");
        } finally {
            store.close();
        }
    }, 120_000);

    it("keeps the summary loop's identity: a loop config without --translate has no translate key", () => {
        const c = normalizeLoopConfig({ backend: "reference", templates: "list_rotate_right" });
        expect("translate" in c).toBe(false);
    });
});
