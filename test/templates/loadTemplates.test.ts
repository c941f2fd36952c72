import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadAllTemplates, loadTemplate, selectTemplates } from "../../src/templates/loadTemplates.js";
import { EddyError } from "../../src/util/errors.js";
import { GOOD_ORACLE, GOOD_YAML, TempTemplates } from "./fixtures.js";
import { builtInLibrary } from "../../src/templates/library.js";

let dirs: TempTemplates;
beforeEach(() => {
    dirs = new TempTemplates();
});
afterEach(() => dirs.dispose());

/** Loads `demo` after writing the given YAML/oracle and returns the EddyError message (fails if it loads). */
function errorOf(yaml: string, oracle: string | null = GOOD_ORACLE, id = "demo"): string {
    dirs.write(id, yaml, oracle);
    try {
        loadTemplate(dirs.library, id);
    } catch (err) {
        expect(err).toBeInstanceOf(EddyError);
        const message = (err as Error).message;
        expect(message).not.toContain("\n");
        return message;
    }
    throw new Error("expected the template to be rejected");
}

describe("loadTemplate", () => {
    it("loads a valid template with defaults and an oracle hash over both files", () => {
        dirs.write("demo", GOOD_YAML);
        const t = loadTemplate(dirs.library, "demo");
        expect(t).toMatchObject({ id: "demo", function: "demo_sum", arity: 1, group: "list", subgroups: ["summation"], constraint: "lo <= hi", comparator: "ordered", randomInputs: 50 });
        expect(t.params.map((p) => p.name)).toEqual(["lo", "hi"]);
        expect(t.edge).toEqual([[0, 0], [3, 4]]);
        const expected = createHash("sha256").update(GOOD_YAML).update(GOOD_ORACLE).digest("hex");
        expect(t.oracleHash).toBe(expected);
        // Editing only the oracle changes the hash, so cached verdicts cannot outlive an oracle change.
        writeFileSync(path.join(dirs.oracles, "demo.py"), GOOD_ORACLE + "\n# changed\n");
        expect(loadTemplate(dirs.library, "demo").oracleHash).not.toBe(expected);
    });

    it("reads budget, comparator and random_inputs", () => {
        dirs.write("demo", GOOD_YAML + "comparator: float:1e-6\nbudget: {time_ms: 500}\nrandom_inputs: 7\n");
        const t = loadTemplate(dirs.library, "demo");
        expect(t.comparator).toBe("float:1e-6");
        expect(t.budget).toEqual({ timeMs: 500, memoryMb: 256 });
        expect(t.randomInputs).toBe(7);
    });

    it("reads returns, ambiguity and edges; canonicalises subgroup labels", () => {
        const yaml = GOOD_YAML.replace("subgroups: [summation]", 'subgroups: ["Sorting/Order-based Operations", slicing]') + "returns: int\nambiguity: \"'between' could exclude the ends; the question says both included.\"\nedges: [empty, equal_bounds]\n";
        dirs.write("demo", yaml, GOOD_ORACLE + "\ndef edge_cases(args, *, lo, hi):\n    return ['empty'] if not args[0] else []\n");
        const t = loadTemplate(dirs.library, "demo");
        expect(t.subgroups).toEqual(["sorting", "slicing"]);
        expect(t.returns).toBe("int");
        expect(t.ambiguity).toBe("'between' could exclude the ends; the question says both included.");
        expect(t.edges).toEqual(["empty", "equal_bounds"]);
        expect(t.warnings).toEqual([]);
    });

    it("loads a template without returns or ambiguity, with one warning for each", () => {
        dirs.write("demo", GOOD_YAML);
        const t = loadTemplate(dirs.library, "demo");
        expect(t.returns).toBeUndefined();
        expect(t.ambiguity).toBeUndefined();
        expect(t.edges).toEqual([]);
        expect(t.warnings).toHaveLength(2);
        expect(t.warnings![0]).toMatch(/no 'returns:' field/);
        expect(t.warnings![1]).toMatch(/no 'ambiguity:' note/);
    });

    const cases: [string, () => string, RegExp][] = [
        ["unknown subgroup", () => errorOf(GOOD_YAML.replace("subgroups: [summation]", "subgroups: [summing]")), /demo\.yaml: unknown subgroup 'summing' for group list \(allowed: slicing, indexing, filtering, element_based, summation, sorting, element_insertion, count_elements, circular_lists\)/],
        ["subgroup of another group", () => errorOf(GOOD_YAML.replace("subgroups: [summation]", "subgroups: [union]")), /unknown subgroup 'union' for group list/],
        ["no subgroup", () => errorOf(GOOD_YAML.replace("subgroups: [summation]", "subgroups: []")), /subgroups must be a non-empty list of names \(list: slicing, /],
        ["repeated subgroup", () => errorOf(GOOD_YAML.replace("subgroups: [summation]", "subgroups: [summation, Summation]")), /lists a subgroup twice/],
        ["unknown answer type", () => errorOf(GOOD_YAML + "returns: integer\n"), /unknown returns "integer" \(one of: int, float, bool, str, list, tuple, set, frozenset, dict, matrix, none\)/],
        ["empty ambiguity", () => errorOf(GOOD_YAML + "ambiguity: ' '\n"), /ambiguity must be non-empty text/],
        ["edges that are not names", () => errorOf(GOOD_YAML + "edges: [empty, 'equal bounds']\n"), /edges must be a non-empty list of edge-case names/],
        ["edges without edge_cases()", () => errorOf(GOOD_YAML + "edges: [empty]\n"), /demo\.yaml: 'edges:' names edge cases but .*demo\.py defines no 'def edge_cases/],
        ["edge_cases() without edges", () => errorOf(GOOD_YAML, GOOD_ORACLE + "\ndef edge_cases(args, *, lo, hi):\n    return []\n"), /defines edge_cases\(\) but the template lists no 'edges:'/],
        ["bad YAML", () => errorOf(GOOD_YAML + "edge: [[0, 0]\n"), /demo\.yaml: invalid YAML/],
        ["missing field", () => errorOf(GOOD_YAML.replace("function: demo_sum\n", "")), /demo\.yaml: missing field 'function'/],
        ["unknown field", () => errorOf(GOOD_YAML + "colour: red\n"), /unknown field 'colour'/],
        ["unknown group", () => errorOf(GOOD_YAML.replace("group: list", "group: graphs")), /demo\.yaml: unknown group "graphs"/],
        ["id differs from the file name", () => errorOf(GOOD_YAML, GOOD_ORACLE, "other"), /other\.yaml: id 'demo' must equal the file name 'other'/],
        ["arity zero", () => errorOf(GOOD_YAML.replace("arity: 1", "arity: 0")), /arity must be a positive integer/],
        ["arity not an integer", () => errorOf(GOOD_YAML.replace("arity: 1", "arity: 1.5")), /arity must be a positive integer/],
        ["placeholder without a parameter", () => errorOf(GOOD_YAML.replace("{{hi}}", "{{top}}")), /question uses \{\{top\}\} but there is no parameter 'top'/],
        ["unknown domain kind", () => errorOf(GOOD_YAML.replace("hi: {int: {digits: [1, 2]}}", "hi: {float: {min: 0}}")), /param 'hi': unknown domain kind 'float'/],
        ["edge tuple of the wrong length", () => errorOf(GOOD_YAML.replace("[[0, 0], [3, 4]]", "[[0, 0], [3]]")), /edge tuple 2 \[3\] must have 2 value/],
        ["edge tuple violating the constraint", () => errorOf(GOOD_YAML.replace("[[0, 0], [3, 4]]", "[[0, 0], [4, 3]]")), /edge tuple 2 \[4,3\] violates the constraint 'lo <= hi'/],
        ["edge value outside the domain", () => errorOf(GOOD_YAML.replace("[[0, 0], [3, 4]]", "[[0, 0], [3, 400]]")), /edge tuple 2 \[3,400\]: hi: 400 is outside the int domain/],
        ["constraint that does not parse", () => errorOf(GOOD_YAML.replace("constraint: lo <= hi", "constraint: lo <=")), /constraint does not parse/],
        ["constraint naming an unknown parameter", () => errorOf(GOOD_YAML.replace("constraint: lo <= hi", "constraint: lo <= top")), /top/],
        ["unknown comparator", () => errorOf(GOOD_YAML + "comparator: fuzzy\n"), /unknown comparator 'fuzzy'/],
        ["missing oracle file", () => errorOf(GOOD_YAML, null), /demo\.yaml: missing oracle file .*demo\.py/],
        ["oracle without solution", () => errorOf(GOOD_YAML, GOOD_ORACLE.replace("def solution(", "def answer(")), /demo\.py: the oracle defines no top-level 'def solution/],
        ["oracle without tests", () => errorOf(GOOD_YAML, GOOD_ORACLE.replace("def tests(", "def checks(")), /demo\.py: the oracle defines no top-level 'def tests/],
        ["oracle without inputs", () => errorOf(GOOD_YAML, GOOD_ORACLE.replace("def inputs(", "def random_inputs(")), /demo\.py: the oracle defines no top-level 'def inputs/],
        ["solution arity differs", () => errorOf(GOOD_YAML.replace("arity: 1", "arity: 2")), /solution takes 1 positional argument\(s\) but the template's arity is 2/]
    ];
    for (const [name, run, pattern] of cases) it(`rejects: ${name}`, () => expect(run()).toMatch(pattern));

    it("rejects an unknown id with a pointer to the listing", () => {
        expect(() => loadTemplate(dirs.library, "nope")).toThrow(/unknown template 'nope'.*eddy templates list/);
    });
});

describe("loadAllTemplates / selectTemplates", () => {
    it("sorts by id and ignores README.md and other files", () => {
        dirs.write("demo", GOOD_YAML);
        dirs.write("alpha", GOOD_YAML.replace("id: demo", "id: alpha").replace("group: list", "group: set").replace("subgroups: [summation]", "subgroups: [union]"));
        writeFileSync(path.join(dirs.templates, "README.md"), "# notes\n");
        writeFileSync(path.join(dirs.templates, "draft.yml.bak"), "not: a template\n");
        expect(loadAllTemplates(dirs.library).map((t) => t.id)).toEqual(["alpha", "demo"]);
        expect(selectTemplates(dirs.library, "all").map((t) => t.id)).toEqual(["alpha", "demo"]);
        expect(selectTemplates(dirs.library, "set").map((t) => t.id)).toEqual(["alpha"]);
        expect(selectTemplates(dirs.library, "demo, alpha,demo").map((t) => t.id)).toEqual(["demo", "alpha"]);
        expect(() => selectTemplates(dirs.library, "demo,missing")).toThrow(/unknown template 'missing'/);
        expect(() => selectTemplates(dirs.library, "math")).toThrow(/no templates in group 'math'/);
    });
});

describe("the shipped templates", () => {
    it("all load, and their oracles define at least three mutants", () => {
        const all = loadAllTemplates(builtInLibrary()); // the real templates/ and oracles/
        expect(all.length).toBeGreaterThanOrEqual(11);
        for (const t of all) {
            const mutants = readFileSync(t.oracleFile, "utf8").match(/^def mutant_\w+\s*\(/gm) ?? [];
            expect(mutants.length, `${t.id} mutants`).toBeGreaterThanOrEqual(3);
        }
    });
});
