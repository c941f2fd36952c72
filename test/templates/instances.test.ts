import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadAllTemplates, loadTemplate } from "../../src/templates/loadTemplates.js";
import { neighbourhoodShortfall, sampleInstances } from "../../src/templates/instances.js";
import { pythonLiteral, renderQuestion } from "../../src/templates/render.js";
import { TempTemplates } from "./fixtures.js";
import { builtInLibrary } from "../../src/templates/library.js";

const ORACLE = "def solution(s, *, n, c, w):\n    pass\ndef tests(*, n, c, w):\n    pass\ndef inputs(rng, *, n, c, w):\n    pass\n";
const MIX = `id: mix
function: f
arity: 1
group: string
subgroups: [substring_extraction]
question: "{{n}} {{c}} {{w}}"
params:
  n: {int: {digits: [1, 2, 3]}}
  c: {char: {alphabet: "xyz"}}
  w: {choice: [[1, 2], "ab", true]}
edge: [[0, "x", "ab"], [0, "x", "ab"], [5, "y", [1, 2]]]
`;

const RANGE_ORACLE = "def solution(v, *, lo, hi):\n    pass\ndef tests(*, lo, hi):\n    pass\ndef inputs(rng, *, lo, hi):\n    pass\n";
function rangeYaml(id: string, loDomain: string, hiDomain: string, constraint: string, edge = "[]"): string {
    return `id: ${id}\nfunction: f\narity: 1\ngroup: list\nsubgroups: [slicing]\nquestion: "{{lo}}..{{hi}}"\nparams:\n  lo: ${loDomain}\n  hi: ${hiDomain}\nconstraint: ${constraint}\nedge: ${edge}\n`;
}

let dirs: TempTemplates;
beforeEach(() => {
    dirs = new TempTemplates();
    dirs.write("mix", MIX, ORACLE);
});
afterEach(() => dirs.dispose());

describe("sampleInstances", () => {
    it("matches the golden tuples for seed 42 (a change in the generator must be deliberate)", () => {
        // Computed once with this implementation (pure-rand xoroshiro128+, uniformInt) and pasted here.
        const golden = [[0, "x", "ab"], [5, "y", [1, 2]], [85, "z", "ab"], [784, "y", [1, 2]], [3, "z", [1, 2]], [533, "y", "ab"], [2, "z", "ab"], [5, "x", [1, 2]], [159, "x", [1, 2]], [46, "y", true], [4, "x", true], [21, "y", "ab"]];
        expect(sampleInstances(loadTemplate(dirs.library, "mix"), 12, 42).map((i) => i.params)).toEqual(golden);
    });

    it("gives the same tuples for the same seed and different ones for another seed", () => {
        const t = loadTemplate(dirs.library, "mix");
        const a = sampleInstances(t, 40, 7).map((i) => i.params);
        expect(sampleInstances(t, 40, 7).map((i) => i.params)).toEqual(a);
        expect(sampleInstances(t, 40, 8).map((i) => i.params)).not.toEqual(a);
        // A shorter neighbourhood is a prefix of a longer one with the same seed.
        expect(sampleInstances(t, 10, 7).map((i) => i.params)).toEqual(a.slice(0, 10));
    });

    it("puts deduplicated edge tuples first, in file order, and numbers instances from 0", () => {
        const inst = sampleInstances(loadTemplate(dirs.library, "mix"), 5, 1);
        expect(inst.map((i) => i.index)).toEqual([0, 1, 2, 3, 4]);
        expect(inst[0]!.params).toEqual([0, "x", "ab"]);
        expect(inst[1]!.params).toEqual([5, "y", [1, 2]]);
        expect(inst[0]!.bindings).toEqual({ n: 0, c: "x", w: "ab" });
        expect(sampleInstances(loadTemplate(dirs.library, "mix"), 1, 1).map((i) => i.params)).toEqual([[0, "x", "ab"]]);
    });

    it("never repeats a tuple, respects the constraint, and draws from every digit bucket", () => {
        dirs.write("range", rangeYaml("range", "{int: {digits: [1, 2, 3]}}", "{int: {digits: [1, 2, 3]}}", "lo <= hi and hi - lo != 1", "[[0, 0], [9, 11]]"), RANGE_ORACLE);
        const inst = sampleInstances(loadTemplate(dirs.library, "range"), 300, 3);
        const keys = inst.map((i) => JSON.stringify(i.params));
        expect(new Set(keys).size).toBe(300);
        for (const { bindings } of inst) {
            const lo = bindings.lo as number, hi = bindings.hi as number;
            expect(lo <= hi && hi - lo !== 1).toBe(true);
        }
        const digits = (x: number) => String(x).length;
        for (const name of ["lo", "hi"]) expect(new Set(inst.map((i) => digits(i.bindings[name] as number)))).toEqual(new Set([1, 2, 3]));
    });

    it("splits min/max ranges into digit buckets, with negatives when asked", () => {
        dirs.write("neg", rangeYaml("neg", "{int: {min: -20, max: 5}}", "{int: {digits: [1], negative: true}}", "lo <= hi"), RANGE_ORACLE);
        const inst = sampleInstances(loadTemplate(dirs.library, "neg"), 60, 11);
        const los = inst.map((i) => i.bindings.lo as number);
        expect(Math.min(...los)).toBeGreaterThanOrEqual(-20);
        expect(Math.max(...los)).toBeLessThanOrEqual(5);
        expect(los.some((x) => x <= -10)).toBe(true); // the two-digit negative bucket appears
        expect(los.some((x) => x >= 0)).toBe(true);
        expect(inst.every((i) => Math.abs(i.bindings.hi as number) <= 9)).toBe(true);
    });

    it("fails clearly when the constraint cannot be satisfied often enough", () => {
        dirs.write("tight", rangeYaml("tight", "{int: {min: 0, max: 3}}", "{int: {min: 0, max: 3}}", "lo == hi"), RANGE_ORACLE);
        expect(() => sampleInstances(loadTemplate(dirs.library, "tight"), 5, 0)).toThrow(/template tight: only 4 distinct valid tuples found after \d+ attempts; asked for 5/);
        expect(sampleInstances(loadTemplate(dirs.library, "tight"), 4, 0)).toHaveLength(4);
        dirs.write("never", rangeYaml("never", "{int: {min: 0, max: 3}}", "{int: {min: 0, max: 3}}", "lo > hi and hi > lo"), RANGE_ORACLE);
        expect(() => sampleInstances(loadTemplate(dirs.library, "never"), 1, 0)).toThrow(/template never: only 0 distinct valid tuples found/);
    });

    it("gives every tuple of a neighbourhood of listed values smaller than M, edge tuples first, and says how small it is", () => {
        dirs.write("few", rangeYaml("few", "{choice: [1, 2, 3]}", "{choice: [5, 6]}", "lo + hi != 8", "[[3, 6]]"), RANGE_ORACLE);
        const t = loadTemplate(dirs.library, "few");
        const got = sampleInstances(t, 100, 7).map((i) => i.params);
        // (2, 6) and (3, 5) fail the constraint.
        expect(got).toEqual([[3, 6], [1, 5], [1, 6], [2, 5]]);
        expect(sampleInstances(t, 100, 7).map((i) => i.index)).toEqual([0, 1, 2, 3]);
        expect(neighbourhoodShortfall(t, 100)).toBe(4);
        expect(neighbourhoodShortfall(t, 4)).toBeUndefined();
        // Asking no more than it holds draws them as before (seeded), so existing neighbourhoods do not change.
        expect(sampleInstances(t, 3, 7)).toHaveLength(3);
    });

    it("renders strings as-is and lists and booleans as Python literals", () => {
        expect(sampleInstances(loadTemplate(dirs.library, "mix"), 2, 0).map((i) => i.question)).toEqual(["0 x ab", "5 y [1, 2]"]);
        expect(renderQuestion("f({{a}}, {{ b }})", { a: ["it's", true, 3], b: "x" })).toBe(`f(["it's", True, 3], x)`);
        expect(pythonLiteral(["a\\b", "q'\""])).toBe(`['a\\\\b', 'q\\'"']`);
    });
});

describe("the shipped templates", () => {
    it("each yield 100 instances whose questions have no unfilled placeholder", () => {
        for (const t of loadAllTemplates(builtInLibrary())) {
            const inst = sampleInstances(t, 100, 0);
            expect(inst).toHaveLength(100);
            expect(inst.filter((i) => i.question.includes("{{")), t.id).toEqual([]);
        }
    });
});
