import { availableParallelism } from "node:os";
import { beforeAll, describe, expect, it } from "vitest";
import { loadAllTemplates } from "../../src/templates/loadTemplates.js";
import { sampleInstances } from "../../src/templates/instances.js";
import { missedGoals, STRENGTH_GOALS } from "../../src/templates/strength/goals.js";
import { measureStrength, type StrengthMeasure } from "../../src/templates/strength/measure.js";
import type { Template } from "../../src/templates/types.js";
import { builtInLibrary } from "../../src/templates/library.js";

// Every shipped template, checked the way `eddy templates validate --strength` checks it, over the
// 100-instance neighbourhood of seed 0: the model solution passes every fixed test, every mutant
// is killed, and the strength goals hold. The judging here is the quick in-process form (one
// Python process per template, the judge's own comparator); the CLI test covers the judge pool.
const M = 100;

const templates: Template[] = loadAllTemplates(builtInLibrary());

const measured = new Map<string, StrengthMeasure | Error>();

beforeAll(async () => {
    let next = 0;
    const lane = async () => {
        while (next < templates.length) {
            const t = templates[next++]!;
            try {
                measured.set(t.id, await measureStrength(t, sampleInstances(t, M, 0), { check: true }));
            } catch (err) {
                measured.set(t.id, err as Error);
            }
        }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(4, availableParallelism())) }, lane));
}, 600_000);

describe("the shipped templates", () => {
    it("are many, and each states its answer type and its ambiguity note", () => {
        expect(templates.length).toBeGreaterThanOrEqual(33);
        for (const t of templates) {
            expect(t.returns, `${t.id}: returns`).toBeTruthy();
            expect(t.ambiguity, `${t.id}: ambiguity`).toBeTruthy();
            expect(t.warnings ?? [], `${t.id}: warnings`).toEqual([]);
        }
    });

    it.each(templates.map((t) => [t.id, t] as const))("%s: the solution passes, every mutant dies, the strength goals hold", (_id, t) => {
        const m = measured.get(t.id);
        if (m instanceof Error) throw m;
        expect(m, "measured").toBeDefined();
        const check = m!.check!;
        expect(check.solutionFailures, "model solution failures").toEqual([]);
        expect(check.mutants.length).toBeGreaterThanOrEqual(STRENGTH_GOALS.minMutants);
        expect(check.mutants.filter((x) => !x.killed).map((x) => x.name), "surviving mutants").toEqual([]);
        const killRate = check.mutants.filter((x) => x.killed).length / check.mutants.length;
        expect(missedGoals({ template: t, solutionFailures: check.solutionFailures.length, mutants: check.mutants.length, killRate, measure: m! }), "goals missed").toEqual([]);
    });
});
