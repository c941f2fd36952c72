import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listWrappers, loadWrapper, renderMessages } from "../../src/prompts/PromptWrapper.js";

describe("prompt wrappers", () => {
    it("the default asks an expert Python programmer for one code block without comments", () => {
        const w = loadWrapper("default");
        expect(w.id).toBe("default");
        expect(w.system).toMatch(/expert Python programmer/);
        expect(w.system).toMatch(/single Python code block/);
        expect(w.system).toMatch(/comments/);
        expect(listWrappers()).toContain("default");
    });

    it("renders an explicit system message and the question in the user message", () => {
        const msgs = renderMessages(loadWrapper("default"), "Write f(x).");
        expect(msgs).toHaveLength(2);
        expect(msgs[0]!.role).toBe("system");
        expect(msgs[1]).toEqual({ role: "user", content: "Write f(x)." });
        // an empty system text means no system message at all
        expect(renderMessages(loadWrapper("plain"), "Q")).toEqual([{ role: "user", content: "Q" }]);
    });

    it("the completion wrapper puts a signature and docstring in a Python fence and asks for the whole function", () => {
        const w = loadWrapper("completion");
        expect(listWrappers()).toContain("completion");
        expect(w.system).toMatch(/whole function/);
        const msgs = renderMessages(w, 'def f(x):\n    """Twice x."""\n');
        expect(msgs[1]).toEqual({ role: "user", content: 'Complete this Python function:\n\n```python\ndef f(x):\n    """Twice x."""\n\n```' });
    });

    it("loads a wrapper file by path and rejects bad ones clearly", () => {
        const dir = mkdtempSync(path.join(os.tmpdir(), "eddy-wrap-"));
        writeFileSync(path.join(dir, "mine.yaml"), "system: Be brief.\nuser: 'Task: {{question}} Reply in Python.'\n");
        const w = loadWrapper(path.join(dir, "mine.yaml"));
        expect(w.id).toBe("mine");
        expect(renderMessages(w, "add")[1]!.content).toBe("Task: add Reply in Python.");
        writeFileSync(path.join(dir, "bad.yaml"), "system: x\nuser: no placeholder\n");
        expect(() => loadWrapper(path.join(dir, "bad.yaml"))).toThrow(/must be text containing \{\{question\}\}/);
        expect(() => loadWrapper("no-such-wrapper")).toThrow(/unknown prompt wrapper 'no-such-wrapper'/);
        // a folder is not a wrapper file: the same one-line EddyError, not a raw EISDIR
        expect(() => loadWrapper(dir + "/")).toThrow(/unknown prompt wrapper/);
    });
});
