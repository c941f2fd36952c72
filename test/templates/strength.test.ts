import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTemplate } from "../../src/templates/loadTemplates.js";
import { makeInstance } from "../../src/templates/instances.js";
import { missedGoals } from "../../src/templates/strength/goals.js";
import { measureStrength } from "../../src/templates/strength/measure.js";
import { GOOD_YAML, TempTemplates } from "./fixtures.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "dist/cli/bin.js");

// Six branch outcomes: the for loop entered / left (line 3), `x < lo` true / false (line 4),
// `x > hi` true / false (line 6). The fixed test (an empty list) reaches only "loop left": 1/6.
// The random inputs alternate [lo - 1, lo, hi + 1, lo] (enters, both ifs both ways, leaves by
// break) and [lo] (leaves the loop at its end): 6/6. Edges: "below" and "above" are hit by the
// first kind of input only, "empty" never (random inputs are never empty).
const BRANCHY = `
def solution(values, *, lo, hi):
    out = []
    for x in values:
        if x < lo:
            continue
        if x > hi:
            break
        out.append(x)
    return out

def tests(*, lo, hi):
    yield ([],), []

_calls = [0]

def inputs(rng, *, lo, hi):
    _calls[0] += 1
    return ([lo - 1, lo, hi + 1, lo],) if _calls[0] % 2 else ([lo],)

def edge_cases(args, *, lo, hi):
    values, = args
    hit = []
    if not values: hit.append("empty")
    if any(x < lo for x in values): hit.append("below")
    if any(x > hi for x in values): hit.append("above")
    return hit

def mutant_no_break(values, *, lo, hi):
    return [x for x in values if lo <= x <= hi]

def mutant_raises(values, *, lo, hi):
    return values[10 ** 6]

def mutant_same_as_solution(values, *, lo, hi):
    out = []
    for x in values:
        if x > hi:
            break
        if x >= lo:
            out.append(x)
    return out
`;
const BRANCHY_YAML = GOOD_YAML.replace("id: demo", "id: branchy") + "random_inputs: 4\nedges: [empty, below, above]\n";

// A sound oracle that meets every goal: four mutants, all killed; no branches (coverage 1).
const STRONG = `
def solution(values, *, lo, hi):
    return sum(values[lo:hi + 1])

def tests(*, lo, hi):
    yield (list(range(hi + 3)),), sum(range(lo, hi + 1))
    yield ([],), 0

def inputs(rng, *, lo, hi):
    return ([rng.randint(0, 9) for _ in range(rng.randint(0, hi + 3))],)

def mutant_exclusive_hi(values, *, lo, hi):
    return sum(values[lo:hi])

def mutant_exclusive_lo(values, *, lo, hi):
    return sum(values[lo + 1:hi + 1])

def mutant_no_clipping(values, *, lo, hi):
    return sum(values[i] for i in range(lo, hi + 1))

def mutant_float(values, *, lo, hi):
    return float(sum(values[lo:hi + 1]))
`;
const STRONG_YAML = GOOD_YAML.replace("id: demo", "id: strong") + "returns: int\nambiguity: A slice leaves hi out; the question includes it and a fixed test ends on it.\n";

let dirs: TempTemplates;
beforeAll(() => {
    dirs = new TempTemplates();
    dirs.write("branchy", BRANCHY_YAML, BRANCHY);
    dirs.write("strong", STRONG_YAML, STRONG);
});
afterAll(() => dirs.dispose());

describe("measureStrength", () => {
    it("counts branch outcomes reached by the fixed tests and by the random inputs separately, and edge hits", async () => {
        const t = loadTemplate(dirs.library, "branchy");
        const instances = [makeInstance(t, 0, [0, 0]), makeInstance(t, 1, [3, 4])];
        const m = await measureStrength(t, instances, { check: true });
        expect(m.fixed).toMatchObject({ branches: 6, covered: 1, missed: ["line 4 for: loop entered", "line 5 if: true", "line 5 if: false", "line 7 if: true", "line 7 if: false"] });
        expect(m.fixed.coverage).toBeCloseTo(1 / 6);
        expect(m.random).toMatchObject({ branches: 6, covered: 6, coverage: 1, missed: [] });
        // 2 instances × 4 random inputs, alternating: below and above in half of them, empty in none.
        expect(m.counts).toMatchObject({ fixed: 2, random: 8, randomWithEdge: 4, solutionErrors: 0 });
        expect(m.edges.randomShare).toEqual({ empty: 0, below: 0.5, above: 0.5 });
        expect(m.edges.fixedHits).toEqual({ empty: 2, below: 0, above: 0 });
        expect(m.edges.randomWithAnyEdge).toBe(0.5);
        // The in-process check: the rewritten-but-equal mutant survives, the other two die.
        expect(m.check!.solutionFailures).toEqual([]);
        expect(m.check!.mutants.map((x) => [x.name, x.killed])).toEqual([
            ["mutant_no_break", true],
            ["mutant_raises", true],
            ["mutant_same_as_solution", false]
        ]);
        const missed = missedGoals({ template: t, solutionFailures: 0, mutants: 3, killRate: 2 / 3, measure: m });
        expect(missed).toEqual([
            "3 mutant(s), need >= 4",
            "kill rate 66.7% < 100.0%",
            "fixed-test branch coverage 16.7% < 90.0% (missed: line 4 for: loop entered; line 5 if: true; line 5 if: false; line 7 if: true; line 7 if: false)",
            "no 'returns:' (the answer's type)",
            "no 'ambiguity:' note",
            "edge(s) no random input hits: empty"
        ]);
    });

    it("catches a model solution that fails its own fixed test, and names of edges the template does not list", async () => {
        dirs.write("broken", BRANCHY_YAML.replace("id: branchy", "id: broken"), BRANCHY.replace("yield ([],), []", "yield ([],), [0]").replace('hit.append("empty")', 'hit.append("nothing")'));
        const t = loadTemplate(dirs.library, "broken");
        const m = await measureStrength(t, [makeInstance(t, 0, [1, 2])], { check: true });
        expect(m.check!.solutionFailures).toEqual([{ index: 0, detail: "fixed test 1: wrong result" }]);
        expect(m.edges.unknown).toEqual(["nothing"]);
    });
});

function validate(...args: string[]) {
    return execa(process.execPath, [bin, "templates", "validate", "--strength", "--instances", "4", "--workers", "1", ...args], { cwd: root, env: { ...process.env }, reject: false });
}

describe("eddy templates validate --strength", () => {
    it("passes a template that meets every goal, and exits 1 naming each goal another misses", async () => {
        const r = await validate("strong", "branchy", "--json");
        expect(r.exitCode, r.stderr).toBe(1);
        const out = JSON.parse(r.stdout) as {
            goals: Record<string, number>;
            summary: { templates: number; meetingGoals: number; missingGoals: string[]; mutants: number; killRate: number };
            templates: { id: string; ok: boolean; killRate: number; strength: { fixed: { coverage: number }; random: { coverage: number }; goalsMissed: string[] } }[];
        };
        expect(out.goals).toEqual({ minMutants: 4, killRate: 1, fixedCoverage: 0.9, randomCoverage: 0.95 });
        expect(out.summary).toMatchObject({ templates: 2, meetingGoals: 1, missingGoals: ["branchy"], mutants: 7, killRate: 6 / 7 });
        const [strong, branchy] = out.templates;
        expect(strong).toMatchObject({ id: "strong", ok: true, killRate: 1 });
        expect(strong!.strength.goalsMissed).toEqual([]);
        expect(branchy!.ok).toBe(false);
        expect(branchy!.strength.goalsMissed).toContain("3 mutant(s), need >= 4");
        expect(branchy!.strength.goalsMissed).toContain("edge(s) no random input hits: empty");

        const text = await validate("strong");
        expect(text.exitCode, text.stderr).toBe(0);
        expect(text.stdout).toContain("branch coverage: fixed tests no branches, random inputs no branches");
        expect(text.stdout).toContain("1/1 template(s) valid and meeting the strength goals");
    });
});
