/**
 * Issue #47: one vocabulary. A run with planned answers missing was "complete (11 answers missing)" in the report
 * and "incomplete" in `runs list` and the viewer: the same words now come from one definition (src/util/runState.ts).
 */
import { describe, expect, it } from "vitest";
import { runStatus } from "../../src/report/format.js";
import { runState } from "../../src/util/runState.js";

describe("a run's state in words", () => {
    it("the report says what runs list says", () => {
        expect(runStatus({ status: "complete", missing: 11 })).toBe("incomplete: 11 answers missing");
        expect(runStatus({ status: "complete", missing: 11 })).toBe(runState("complete", 11));
        expect(runStatus({ status: "complete", missing: 1 })).toBe("incomplete: 1 answer missing");
        expect(runStatus({ status: "complete", missing: 0 })).toBe("complete");
        expect(runStatus({ status: "interrupted", missing: 3 })).toBe(runState("interrupted", 3));
        expect(runStatus({ status: "complete", missing: 11 })).not.toMatch(/^complete/);
    });
});
