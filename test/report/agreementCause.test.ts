/**
 * Issue #30: the agreement report names eddy's own harness when eddy stopped a response at a limit
 * that depends on the run (sleeping or blocked, the wall-clock backstop) and their harness passed
 * it: a re-judge alone overturns such a verdict, so it is not an oracle difference.
 */
import { describe, expect, it } from "vitest";
import { explain, machineLimit } from "../../src/report/agreement.js";
import type { PublishedVerdict } from "../../src/store/publishedVerdicts.js";

const published = (correct: boolean): PublishedVerdict => ({
    templateId: "humaneval_fizz_buzz",
    instance: 0,
    round: 0,
    source: "evalplus",
    correct,
    stage: correct ? "passed" : "fixed_tests",
    fault: null,
    detail: correct ? "" : "assertion failed",
    extracted: null,
    location: "HumanEval/36"
});
const BLOCKED = "sleeping or blocked after the last call: 2114 ms neither running nor waiting for a CPU (limit 2000 ms), after 412 ms of CPU time";
const WALL = "wall-clock backstop of 40000 ms reached on fixed test 3, after 900 ms of CPU time (budget 2000 ms)";
const CPU = "CPU time limit exceeded on fixed test 1: stopped after 3000 ms of CPU time; budget 2000 ms (max(2000 ms floor x host factor, 10 x the model solution's 1.0 ms)) + 50% margin = 3000 ms";

describe("the cause of a disagreement", () => {
    it("a correct answer eddy stopped as sleeping or blocked is eddy's harness, not an oracle difference", () => {
        const c = explain(published(true), "resource_exhaustion", BLOCKED, "def fizz_buzz(n): ...", undefined);
        expect(c.cause).toBe("eddy_harness");
        expect(c.explanation).toMatch(/^eddy's harness: stopped as sleeping or blocked, a limit a re-judge alone overturns/);
        expect(explain(published(true), "resource_exhaustion", WALL, null, undefined).cause).toBe("eddy_harness");
    });

    it("the answer's own CPU time, a wrong value, or a response their harness failed stay where they were", () => {
        expect(machineLimit("resource_exhaustion", CPU)).toBeUndefined();
        expect(explain(published(true), "resource_exhaustion", CPU, null, undefined).cause).toBe("oracle");
        expect(explain(published(true), "assertion_error", "fixed test 1: f(1) expected 2, got 3", null, undefined).cause).toBe("oracle");
        expect(machineLimit("runtime_error", BLOCKED)).toBeUndefined();
    });
});
