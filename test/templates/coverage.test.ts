import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { templateCoverage } from "../../src/templates/coverage.js";
import { loadAllTemplates } from "../../src/templates/loadTemplates.js";
import { TAXONOMY } from "../../src/templates/taxonomy.js";
import { GOOD_ORACLE, GOOD_YAML, TempTemplates } from "./fixtures.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "dist/cli/bin.js");

const TWO_ARGS = GOOD_ORACLE.replace("def solution(values, *, lo, hi):", "def solution(values, extra, *, lo, hi):");

let dirs: TempTemplates;
beforeAll(() => {
    dirs = new TempTemplates();
    // list: demo (summation, int, 1 arg), beta (slicing + summation, list, 2 args); set: alpha (union, set, 1 arg)
    dirs.write("demo", GOOD_YAML + "returns: int\n");
    dirs.write("beta", GOOD_YAML.replace("id: demo", "id: beta").replace("subgroups: [summation]", "subgroups: [slicing, summation]").replace("arity: 1", "arity: 2") + "returns: list\n", TWO_ARGS);
    dirs.write("alpha", GOOD_YAML.replace("id: demo", "id: alpha").replace("group: list", "group: set").replace("subgroups: [summation]", "subgroups: [union]") + "returns: set\n");
    dirs.write("gamma", GOOD_YAML.replace("id: demo", "id: gamma").replace("group: list", "group: math").replace("subgroups: [summation]", "subgroups: [arithmetic]"));
});
afterAll(() => dirs.dispose());

const SUBGROUPS = Object.values(TAXONOMY).reduce((n, g) => n + g.subgroups.length, 0);

describe("templateCoverage", () => {
    it("counts groups × subgroups × answer types × arity, and lists the gaps", () => {
        const c = templateCoverage(loadAllTemplates(dirs.library));
        expect(SUBGROUPS).toBe(33);
        expect(c.templates).toBe(4);
        expect(c.returns).toEqual({ int: 1, list: 1, set: 1, unspecified: 1 });
        expect(c.arity).toEqual({ 1: 3, 2: 1 });
        const list = c.groups.find((g) => g.group === "list")!;
        expect(list).toMatchObject({ templates: 2, returns: { int: 1, list: 1 }, arity: { 1: 1, 2: 1 } });
        // beta counts in both of its subgroups, so subgroup counts add up to more than the group's.
        expect(list.subgroups.find((s) => s.name === "summation")).toMatchObject({ templates: 2, ids: ["beta", "demo"], returns: { int: 1, list: 1 }, arity: { 1: 1, 2: 1 } });
        expect(list.subgroups.find((s) => s.name === "slicing")).toMatchObject({ templates: 1, ids: ["beta"] });
        expect(c.groups.find((g) => g.group === "copying")).toMatchObject({ templates: 0, returns: {}, arity: {} });
        // 33 subgroups, 4 of them used: list/slicing, list/summation, set/union, math/arithmetic.
        expect(c.gaps.emptySubgroups).toHaveLength(29);
        expect(c.gaps.emptySubgroups).toContain("list/indexing");
        expect(c.gaps.emptySubgroups).not.toContain("set/union");
        expect(c.gaps.thinSubgroups).toHaveLength(33);
        expect(c.gaps.unusedReturnTypes).toEqual(["float", "bool", "str", "tuple", "frozenset", "dict", "matrix"]);
        expect(c.gaps.noReturns).toEqual(["gamma"]);
        expect(templateCoverage(loadAllTemplates(dirs.library), 1).gaps.thinSubgroups).toHaveLength(29);
    });

    it("eddy templates coverage prints the table and the gaps, and --json the same figures", async () => {
        const json = await execa(process.execPath, [bin, "templates", "coverage", "--json"], { cwd: root, env: { ...process.env }, reject: false });
        expect(json.exitCode, json.stderr).toBe(0);
        const c = JSON.parse(json.stdout) as ReturnType<typeof templateCoverage>;
        expect(c.templates).toBe(4);
        expect(c.gaps.emptySubgroups).toHaveLength(29);
        const text = await execa(process.execPath, [bin, "templates", "coverage"], { cwd: root, env: { ...process.env }, reject: false });
        expect(text.exitCode).toBe(0);
        expect(text.stdout).toMatch(/summation +2 +int: 1, list: 1 +1 arg: 1, 2 args: 1/);
        expect(text.stdout).toContain("4 template(s); answer types: int: 1, list: 1, set: 1, unspecified: 1; arity: 1 arg: 3, 2 args: 1");
        expect(text.stdout).toMatch(/empty subgroups \(29\): list\/indexing, /);
        expect(text.stdout).toContain("templates without 'returns:' (1): gamma");
    });
});
