/**
 * Issue #47: a misspelt placeholder (`{{start elements`) passed `templates validate` and reached the model
 * verbatim; an oracle with a syntax error was reported as one that "defines no top-level def solution".
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadTemplate } from "../../src/templates/loadTemplates.js";
import { malformedPlaceholders } from "../../src/templates/render.js";
import { EddyError } from "../../src/util/errors.js";
import { GOOD_ORACLE, GOOD_YAML, TempTemplates } from "./fixtures.js";

let dirs: TempTemplates;
beforeEach(() => {
    dirs = new TempTemplates();
});
afterEach(() => dirs.dispose());

function errorOf(yaml: string, oracle: string = GOOD_ORACLE): string {
    dirs.write("demo", yaml, oracle);
    try {
        loadTemplate(dirs.library, "demo");
    } catch (err) {
        expect(err).toBeInstanceOf(EddyError);
        expect((err as Error).message).not.toContain("\n");
        return (err as Error).message;
    }
    throw new Error("expected the template to be rejected");
}

describe("malformed placeholders", () => {
    it("are found, and well-formed ones are not", () => {
        expect(malformedPlaceholders("Sum {{lo}} to {{ hi }}.")).toEqual([]);
        expect(malformedPlaceholders("Take every {{start elements from the list")).toEqual(["{{start elements from"]);
        expect(malformedPlaceholders("Up to {{ hi }")).toEqual(["{{ hi }"]);
        expect(malformedPlaceholders("A {{2x}} here")).toEqual(["{{2x}}"]);
        expect(malformedPlaceholders("stray lo}} here")).toEqual(["lo}}"]);
    });

    it("stop the template from loading, by name", () => {
        expect(errorOf(GOOD_YAML.replace("{{lo}}", "{{lo elements"))).toMatch(/demo\.yaml: question has a malformed placeholder '\{\{lo elements to'/);
        expect(errorOf(GOOD_YAML.replace("{{hi}}", "{{ hi }"))).toMatch(/malformed placeholder '\{\{ hi \}'.*write \{\{name\}\} with a parameter's name \(params: lo, hi\)/);
    });
});

describe("an oracle with a syntax error", () => {
    it("is reported as a syntax error with Python's line, not as a missing def", () => {
        const broken = GOOD_ORACLE.replace("def solution(values, *, lo, hi):", "def solution(values, *, lo, hi)\n").replace("def tests(", "def tests[(");
        const message = errorOf(GOOD_YAML, broken);
        expect(message).toMatch(/demo\.py: the oracle has a syntax error: line \d+: /);
        expect(message).not.toMatch(/defines no top-level/);
        // A missing def in a file that parses is still named as such.
        expect(errorOf(GOOD_YAML, GOOD_ORACLE.replace("def tests(", "def checks("))).toMatch(/defines no top-level 'def tests/);
    });
});
