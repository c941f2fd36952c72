import { describe, expect, it } from "vitest";
import { extractCode, lastExtractionWork } from "../../src/extract/extractCode.js";

const FN = "sum_range";
const body = "def sum_range(values):\n    return sum(values[1:4])\n";

describe("extractCode", () => {
    it("takes a python-tagged fenced block with prose around it", () => {
        const r = `Sure! Here is the function:\n\n\`\`\`python\n${body}\`\`\`\n\nIt sums the slice.`;
        expect(extractCode(r, FN)).toBe(body);
    });

    it("takes an untagged fence and a ~~~ fence", () => {
        expect(extractCode("```\n" + body + "```", FN)).toBe(body);
        expect(extractCode("~~~py\n" + body + "~~~\n", FN)).toBe(body);
    });

    it("keeps the code byte for byte: comments, strings, odd spacing, words like 'python' inside", () => {
        const code = "def sum_range(values):  # python rocks\n    s = '```'  \n\n\n    return  sum(values[1:4])   # def\n";
        expect(extractCode("```python\n" + code + "```", FN)).toBe(code);
    });

    it("prefers the block that defines the requested function over an earlier one", () => {
        const r = "First a helper-free example:\n```python\nprint('hello')\n```\nNow the answer:\n```python\n" + body + "```\n";
        expect(extractCode(r, FN)).toBe(body);
    });

    it("ignores shell and output blocks", () => {
        const r = "```bash\npip install nothing\n```\n```python\n" + body + "```\n```text\n6\n```";
        expect(extractCode(r, FN)).toBe(body);
    });

    it("joins a block that defines a helper the function uses, in response order", () => {
        const helper = "def _clip(values, lo, hi):\n    return values[lo:hi + 1]\n";
        const main = "def sum_range(values):\n    return sum(_clip(values, 1, 3))\n";
        const usage = "print(sum_range([1, 2, 3, 4, 5]))\n";
        const r = "Helper:\n```python\n" + helper + "```\nMain:\n```python\n" + main + "```\nUsage:\n```python\n" + usage + "```";
        expect(extractCode(r, FN)).toBe(helper + "\n" + main);
    });

    it("joins an import made in another block", () => {
        const r = "```python\nimport math\n```\n```python\ndef sum_range(values):\n    return math.fsum(values)\n```";
        expect(extractCode(r, FN)).toBe("import math\n\ndef sum_range(values):\n    return math.fsum(values)\n");
    });

    it("does not join usage blocks that only call the function", () => {
        const r = "```python\n" + body + "```\n```python\nresult = sum_range([1, 2])\nprint(result)\n```";
        expect(extractCode(r, FN)).toBe(body);
    });

    it("does not join a usage block because it assigns a name the function uses only locally", () => {
        const main = "def sum_range(values):\n    result = 0\n    for v in values[1:4]:\n        result += v\n    return result\n";
        const usage = "values = [1, 2, 3]\nresult = sum_range(values)\nassert result == 99\n";
        expect(extractCode("```python\n" + main + "```\n```python\n" + usage + "```", FN)).toBe(main);
    });

    it("still joins a global the function updates in place or calls with keywords", () => {
        const memo = "memo = {}\n";
        const main = "def sum_range(values):\n    memo[0] = clip(values, hi=3)\n    return memo[0]\n";
        const clip = "def clip(values, hi):\n    return sum(values[1:hi + 1])\n";
        const r = "```python\n" + memo + "```\n```python\n" + main + "```\n```python\n" + clip + "```";
        expect(extractCode(r, FN)).toBe(memo + "\n" + main + "\n" + clip);
    });

    it("falls back to the first block defining any function when the name is wrong", () => {
        const r = "```python\nx = 1\n```\n```python\ndef other(values):\n    return 0\n```";
        expect(extractCode(r, FN)).toBe("def other(values):\n    return 0\n");
    });

    it("handles an unclosed final fence (generation cut short)", () => {
        expect(extractCode("Here:\n```python\n" + body, FN)).toBe(body);
    });

    it("strips only the fence's own indentation (a fence inside a list item)", () => {
        const r = "1. Code:\n   ```python\n   def sum_range(values):\n       return sum(values)\n   ```\n";
        expect(extractCode(r, FN)).toBe("def sum_range(values):\n    return sum(values)\n");
    });

    it("drops <think> sections, including code drafted inside them", () => {
        const r = "<think>\nMaybe ```python\ndef sum_range(v): return 0\n``` no.\n</think>\n```python\n" + body + "```";
        expect(extractCode(r, FN)).toBe(body);
        expect(extractCode("draft def sum_range(x): pass\n</think>\n" + body, FN)).toBe(body);
    });

    it("reads [PYTHON] ... [/PYTHON] blocks", () => {
        expect(extractCode("[PYTHON]\n" + body + "[/PYTHON]\n", FN)).toBe(body);
    });

    it("finds bare code without fences, cutting the prose before and after", () => {
        const code = "import math\n\n\ndef sum_range(values):\n    if not values:\n        return 0\n\n    return sum(values[1:4])\n";
        const r = "Here is my solution.\n" + code + "\nThis runs in linear time because it sums once.\n";
        expect(extractCode(r, FN)).toBe(code);
    });

    it("keeps top-level statements that follow a bare function", () => {
        const code = "def sum_range(values):\n    return sum(values)\n\nresult = sum_range([1])\nprint(result)\n";
        expect(extractCode("Answer:\n" + code + "Done.", FN)).toBe(code);
    });

    it("takes the longest bare run when there are several", () => {
        const r = "import os\nSome words here.\n" + body + "\nMore words now.";
        expect(extractCode(r, FN)).toBe(body);
    });

    it("returns null when there is no code", () => {
        expect(extractCode("I cannot help with that.", FN)).toBeNull();
        expect(extractCode("", FN)).toBeNull();
        expect(extractCode("<think>def sum_range(v): pass</think>No answer.", FN)).toBeNull();
    });

    it("normalises CRLF line endings only", () => {
        expect(extractCode("```python\r\ndef sum_range(values):\r\n    return 1\r\n```", FN)).toBe("def sum_range(values):\n    return 1\n");
    });
});

// Issue #9: model output is untrusted. Each input below is 1 MB shaped against one pass of the
// old extractor (a backtracking regex: time grows with the square of the length, i.e. minutes to
// hours at 1 MB). The tests assert the result; a quadratic pass would not finish within the
// test timeout.
describe("adversarial 1 MB responses", () => {
    const MB = 1 << 20;
    it("trailing blanks not at the end (the old trimBlank)", () => {
        const code = "def sum_range(values):\n    return 1" + "\n ".repeat(MB / 2) + "x\n";
        expect(extractCode("```python\n" + code + "```", FN)).toBe(code);
    });
    it("thousands of unclosed <think> tags", () => {
        const r = "<think>".repeat(MB / 7) + "\n```python\n" + body + "```\n";
        expect(extractCode(r, FN)).toBe(body);
    });
    it("a fence line ending in a backtick after a long info string", () => {
        const r = "```" + "a".repeat(MB) + "`\n```python\n" + body + "```\n";
        expect(extractCode(r, FN)).toBe(body);
    });
    it("a line of blanks after a name (assignment and for-loop targets)", () => {
        const code = "def sum_range(values):\n    a" + " ".repeat(MB / 2) + "\n    for x" + " ".repeat(MB / 2) + "\n    return 0\n";
        expect(extractCode("```python\n" + code + "```\n```python\nhelper = 1\n```", FN)).toBe(code);
    });
    it("many unclosed parameter lists and triple quotes", () => {
        const code = "def sum_range(values):\n    return 0\n" + "def f(\n".repeat(MB / 14) + '"""\n'.repeat(MB / 8);
        expect(extractCode("```python\n" + code + "```\n```python\nhelper = 1\n```", FN)).toBe(code);
    });
    it("escaped quotes that never close", () => {
        const code = "def sum_range(values):\n    return 0\n" + '"' + '\\"'.repeat(MB / 2) + "\n";
        expect(extractCode("```python\n" + code + "```\n```python\nhelper = 1\n```", FN)).toBe(code);
    });
});

// Extraction runs on the event loop: one hostile response must not stall a run. Most inputs below
// are 1 MB shaped against a pass of the old extractor that went quadratic (the rest of the line
// rescanned after each `for`, the unclosed parameter list after each `def`, a run of stars retried
// from each star, every needed name tried against every block): seconds at 64 KB, minutes at
// 1 MB. The tests assert what is extracted, and that the work the extractor reports (characters
// its passes examined) stays a small multiple of the response's length; none times anything. The
// timeout is only a backstop.
describe("adversarial 1 MB responses: no pass rescans the text", { timeout: 10_000 }, () => {
    const MB = 1 << 20;
    /** Characters examined per character of input: a few dozen passes at most. */
    const LINEAR = 40;
    /** Extracts from `r` and checks the result and the work done. */
    const expectExtracted = (r: string, expected: string) => {
        const out = extractCode(r, FN);
        expect(lastExtractionWork()).toBeLessThan(LINEAR * r.length);
        if (out === expected) return;
        // A megabyte-long diff helps nobody: say where the strings part, and show a little.
        expect(out).not.toBeNull();
        let at = 0;
        while (out![at] === expected[at]) at++;
        const around = (t: string) => JSON.stringify(t.slice(Math.max(0, at - 40), at + 40));
        expect.fail(`extracted ${out!.length} chars, expected ${expected.length}; they part at ${at}: ${around(out!)} vs ${around(expected)}`);
    };
    const fence = (code: string) => "```python\n" + code + "```\n";

    it.each([
        ["for + blank", "for "],
        ["for + tab + name + comma", "for\tx,"],
        ["for + parenthesis", "for ("],
        ["complete for ... in", "for a in "]
    ])("one line of %s repeated inside a fence", (_, unit) => {
        // A loop target is read up to ` in`; every `for` on the line shares the rest of it.
        const code = "def sum_range(values):\n    " + unit.repeat(Math.floor(MB / unit.length)) + "for x in helper:\n        pass\n    return 0\n";
        // `x` is a loop target (local): its block is not joined; `helper` is used: its block is.
        const r = fence("helper = [1]\n") + fence("x = 1\n") + fence(code);
        expectExtracted(r, "helper = [1]\n\n" + code);
    });

    it("the same line with no `in` and no second block", () => {
        const code = "for ".repeat(MB / 4) + "\n";
        expectExtracted(fence(code), code);
    });

    it("many `def f(` lines with a single `)` at the very end", () => {
        // One parameter list shared by every `def`: `values` and `key` are parameters (local),
        // `default` and `helper` are used.
        const code = "def sum_range(values):\n    return helper(values)\n" + "def f(\n".repeat(Math.floor(MB / 7)) + "values, key=default):\n    return key\n";
        const r = fence("helper = sum\n") + fence("key = 1\n") + fence("default = 2\n") + fence(code);
        expectExtracted(r, "helper = sum\n\ndefault = 2\n\n" + code);
    });

    it("a parameter list that is one long run of stars", () => {
        const code = "def sum_range(" + "*".repeat(MB) + "):\n    return helper\n";
        expectExtracted(fence(code) + fence("helper = 1\n"), code + "\nhelper = 1\n");
    });

    it("many tiny blocks against many names, none of them defined", () => {
        // The main block uses tens of thousands of names; tens of thousands of blocks define
        // something else.
        const names = Array.from({ length: MB / 32 }, (_, i) => `f${i}()`);
        const code = "def sum_range(values):\n    return " + names.join("+") + "\n";
        const r = fence(code) + "```\ndef h(): 0\n```\n".repeat(Math.floor(MB / 40));
        expectExtracted(r, code);
    });

    it("many tiny blocks each defining one of many names", () => {
        const names = Array.from({ length: Math.floor(MB / 48) }, (_, i) => `f${i}`);
        const code = "def sum_range(values):\n    return " + names.map((f) => f + "()").join("+") + "\n";
        const helpers = names.map((f) => `def ${f}(): return 0\n`);
        // Interleaved with blocks that define names nobody uses.
        const r = fence(code) + helpers.map((h) => "```\n" + h + "```\n```\ndef unused(): 0\n```\n").join("");
        expectExtracted(r, [code, ...helpers].join("\n"));
    });

    it("many fences that never close", () => {
        // An unclosed fence runs to the end: the lines after it, info strings and all, are its body.
        const r = "```py x\n".repeat(MB / 8) + body;
        expectExtracted(r, "```py x\n".repeat(MB / 8 - 1) + body);
        expectExtracted("[PYTHON]\n".repeat(Math.floor(MB / 9)) + body, "[PYTHON]\n".repeat(Math.floor(MB / 9) - 1) + body);
    });

    it("many empty and non-Python blocks before the answer", () => {
        const r = "```\n```\n```text\n6\n```\n".repeat(Math.floor(MB / 24)) + fence(body);
        expectExtracted(r, body);
    });

    it("a very long line, fenced and bare", () => {
        const code = "def sum_range(values):\n    return " + "values[0]+".repeat(Math.floor(MB / 10)) + "0\n";
        expectExtracted(fence(code), code);
        expectExtracted("Answer:\n" + code + "That is all.\n", code);
    });

    it("deep indentation, fenced and bare", () => {
        const code = "def sum_range(values):\n" + " ".repeat(MB) + "return 0\n";
        expectExtracted(fence(code), code);
        expectExtracted("Answer:\n" + code + "That is all.\n", code);
        const lines = "def sum_range(values):\n" + (" ".repeat(1000) + "x = 1\n").repeat(Math.floor(MB / 1006));
        expectExtracted(fence(lines), lines);
    });

    it("many bare starts cut short by prose", () => {
        const r = "def f(x):\nSome prose.\n".repeat(Math.floor(MB / 22)) + body + "The end.\n";
        expectExtracted(r, body);
    });
});
