/** Languages on the TypeScript side (issue #26): run identity, questions, wrappers, extraction. */
import { describe, expect, it } from "vitest";
import { extractCode } from "../../src/extract/extractCode.js";
import { parseLanguage, questionFor, unsupportedReason, wrapperFor } from "../../src/languages/languages.js";
import { loadWrapper } from "../../src/prompts/PromptWrapper.js";
import { identityOf, normalizeStudyConfig, studyHash } from "../../src/run/config.js";
import { planStudy } from "../../src/run/plan.js";
import { selectTemplates } from "../../src/templates/loadTemplates.js";
import { builtInLibrary } from "../../src/templates/library.js";

const rotate = selectTemplates(builtInLibrary(), "list_rotate_right")[0]!;
const PYTHON = parseLanguage("python");
const JAVASCRIPT = parseLanguage("javascript");
const RUBY = parseLanguage("ruby");

describe("the run's language", () => {
    it("leaves a Python run's identity and hash as they were; another language changes both", () => {
        const before = normalizeStudyConfig({ backend: "reference", templates: ["list_rotate_right"] });
        const python = normalizeStudyConfig({ backend: "reference", templates: ["list_rotate_right"], language: "python" });
        const js = normalizeStudyConfig({ backend: "reference", templates: ["list_rotate_right"], language: "js" });
        expect("language" in identityOf(before)).toBe(false);
        expect(identityOf(python)).toEqual(identityOf(before));
        expect(studyHash(python, ["list_rotate_right"])).toBe(studyHash(before, ["list_rotate_right"]));
        expect(identityOf(js).language).toBe("javascript");
        expect(studyHash(js, ["list_rotate_right"])).not.toBe(studyHash(before, ["list_rotate_right"]));
    });

    it("refuses an unknown language with one line", () => {
        expect(() => parseLanguage("cobol")).toThrow(/^unknown language 'cobol' \(use python, javascript, ruby, php\)$/);
        expect(() => normalizeStudyConfig({ backend: "reference", language: "klingon" })).toThrow(/^unknown language 'klingon'/);
    });

    it("asks the question in the language, with its signature and how Python's types read there", () => {
        const q = "Write a Python function `rotate_right(values)` that takes a list.";
        expect(questionFor(q, rotate, PYTHON)).toBe(q);
        const js = questionFor(q, rotate, JAVASCRIPT);
        expect(js).toMatch(/^Write a JavaScript function `rotate_right\(values\)` that takes a list\.\n\nAnswer in JavaScript: define `function rotate_right\(values\)`/);
        expect(js).toContain("list and tuple are Arrays, set is a Set, dict is a Map");
        expect(questionFor(q, rotate, RUBY)).toContain("define `def rotate_right(values)`");
        const w = wrapperFor(loadWrapper("default"), RUBY);
        expect(w.system).toContain("expert Ruby programmer");
        expect(w.system).not.toContain("Python");
    });

    it("leaves out, and says why, a template a language cannot ask faithfully", () => {
        const big = selectTemplates(builtInLibrary(), "math_step_compositions")[0]!;
        expect(unsupportedReason(big, JAVASCRIPT)).toMatch(/^template math_step_compositions is not asked in JavaScript: its answers exceed 2\^53/);
        expect(unsupportedReason(big, RUBY)).toBeNull();
        const plan = planStudy(normalizeStudyConfig({ backend: "reference", templates: ["math_step_compositions,list_rotate_right"], language: "javascript", instances: 2, rounds: 1 }), builtInLibrary());
        expect(plan.templates.map((t) => t.id)).toEqual(["list_rotate_right"]);
        expect(plan.skipped).toHaveLength(1);
        expect(plan.instances.get("list_rotate_right")![0]!.question).toContain("Answer in JavaScript");
        expect(() => planStudy(normalizeStudyConfig({ backend: "reference", templates: ["math_step_compositions"], language: "javascript" }), builtInLibrary())).toThrow(/is not asked in JavaScript/);
    });
});

describe("extraction in another language", () => {
    const js = "function rotate_right(values) {\n  return values;\n}";
    it("takes the block fenced as the language, the one naming the function", () => {
        const r = "Some Python first:\n```python\ndef rotate_right(v):\n    return v\n```\nAnd the answer:\n```js\nconst helper = 1;\n```\n```javascript\n" + js + "\n```\n";
        expect(extractCode(r, "rotate_right", JAVASCRIPT)).toBe(js + "\n");
        expect(extractCode("```ruby\ndef rotate_right(v)\n  v\nend\n```", "rotate_right", RUBY)).toBe("def rotate_right(v)\n  v\nend\n");
    });
    it("falls back to untagged blocks, and finds nothing without a fence", () => {
        expect(extractCode("```\n" + js + "\n```", "rotate_right", JAVASCRIPT)).toBe(js + "\n");
        expect(extractCode(js, "rotate_right", JAVASCRIPT)).toBeNull();
        expect(extractCode("```python\ndef rotate_right(v):\n    return v\n```", "rotate_right", JAVASCRIPT)).toBeNull();
    });
});
