import { describe, expect, it } from "vitest";
import { createLineProgress, progressLine } from "../../src/run/progress.js";
import type { StudyProgress } from "../../src/run/runStudy.js";

const snap = (over: Partial<StudyProgress>): StudyProgress => ({
    runId: "r1", total: 0, generated: 0, cached: 0, toJudge: 0, judged: 0, passed: 0, tokens: 0, errors: 0, tokensPerS: 0, verdictsPerS: 0,
    etaS: undefined, elapsedS: 0, model: "m", ...over
});

describe("progress lines without a terminal", () => {
    it("say nothing before anything happens, at most one line per interval and only on change, and end with the final counts", () => {
        let t = 0;
        const lines: string[] = [];
        const d = createLineProgress((l) => lines.push(l), 5000, () => t);
        // Planning, loading the model: nothing to report.
        for (t = 0; t <= 20_000; t += 500) d.update(snap({ total: 10 }));
        expect(lines).toEqual([]);
        t = 21_000;
        d.update(snap({ total: 10, generated: 1, toJudge: 1, tokensPerS: 40, etaS: 90 }));
        expect(lines).toEqual(["[r1] generated 1/10 · 40 tok/s · judged 0/1 passed 0 · 0.0 verdicts/s · ETA 1m30s"]);
        t = 23_000;
        d.update(snap({ total: 10, generated: 4, toJudge: 4, judged: 2 })); // too soon
        t = 27_000;
        d.update(snap({ total: 10, generated: 4, toJudge: 4, judged: 2 }));
        t = 40_000;
        d.update(snap({ total: 10, generated: 4, toJudge: 4, judged: 2 })); // no change: no line
        expect(lines).toHaveLength(2);
        d.update(snap({ total: 10, generated: 10, toJudge: 10, judged: 10, passed: 3, elapsedS: 41, final: true }));
        d.update(snap({ total: 10, generated: 10, toJudge: 10, judged: 10, final: true }));
        expect(lines).toHaveLength(3);
        expect(lines[2]).toBe("[r1] generated 10/10 · 0 tok/s · judged 10/10 passed 3 · 0.0 verdicts/s · done in 41s");
        expect(lines.join("\n")).not.toMatch(/ETA \?|judged 0\/0/);
    });

    it("a session with nothing to do prints nothing at all", () => {
        const lines: string[] = [];
        const d = createLineProgress((l) => lines.push(l), 5000, () => 0);
        d.update(snap({ final: true }));
        expect(lines).toEqual([]);
        expect(progressLine(snap({}))).toBe("[r1] nothing left to do");
    });
});
