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
        expect(lines).toEqual(["[r1] generated 1/10 · 40 tok/s · judged 0/10 passed 0 · 0.0 verdicts/s · ETA 1m30s"]);
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
        expect(lines[2]).toBe("[r1] generated 10/10 · judged 10/10 passed 3 · 0.0 verdicts/s · done in 41s");
        expect(lines.join("\n")).not.toMatch(/ETA \?|judged 0\/0/);
    });

    it("count a resumed run from what was stored, leave the harness's verdicts out of judged, and show no rate where nothing is decoded", () => {
        // 28 of 300 stored before this session; 4 more now, 2 of them judged, 1 truncated.
        const resumed = snap({ total: 272, generated: 4, toJudge: 4, judged: 2, harness: 1, passed: 1, planned: 300, before: { generated: 28, judged: 28 }, tokens: 100, tokensPerS: 12 });
        expect(progressLine(resumed)).toBe("[r1] generated 32/300 · 12 tok/s · judged 29/300 passed 1 (1 truncated or judge_error) · 0.0 verdicts/s");
        // All 48 truncated: none judged.
        expect(progressLine(snap({ total: 48, generated: 48, toJudge: 48, judged: 48, harness: 48, tokens: 900, tokensPerS: 30 }))).toContain("judged 0/48 passed 0 (48 truncated or judge_error)");
        // The reference backend decodes nothing: no "0 tok/s".
        expect(progressLine(snap({ total: 5, generated: 5, toJudge: 5, judged: 5, passed: 5 }))).toBe("[r1] generated 5/5 · judged 5/5 passed 5 · 0.0 verdicts/s");
    });

    it("say what is happening while nothing moves, once per phase", () => {
        const lines: string[] = [];
        const d = createLineProgress((l) => lines.push(l), 5000, () => 0);
        for (let i = 0; i < 3; i++) d.update(snap({ phase: "validating oracles" }));
        d.update(snap({ phase: "loading tiny" }));
        d.update(snap({ phase: "loading tiny" }));
        expect(lines).toEqual(["[r1] validating oracles…", "[r1] loading tiny…"]);
    });

    it("a session with nothing to do prints nothing at all", () => {
        const lines: string[] = [];
        const d = createLineProgress((l) => lines.push(l), 5000, () => 0);
        d.update(snap({ final: true }));
        expect(lines).toEqual([]);
        expect(progressLine(snap({}))).toBe("[r1] nothing left to do");
    });
});
