import { describe, expect, it } from "vitest";
import { extractCode } from "../../src/extract/extractCode.js";

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
