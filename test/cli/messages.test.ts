import path from "node:path";
import { describe, expect, it } from "vitest";
import { commandLine, formatWarning, rephraseCommanderError, resumeCommand } from "../../src/cli/messages.js";
import { wrapText } from "../../src/util/textWidth.js";

describe("the message helper", () => {
    it("quotes command words as a shell needs and adds --db only when it is not the default", () => {
        expect(commandLine(["run", "--resume", "20261126-efea28", "--db", "my studies/it's.db"])).toBe("eddy run --resume 20261126-efea28 --db 'my studies/it'\\''s.db'");
        const saved = process.env.EDDY_DB;
        delete process.env.EDDY_DB;
        try {
            expect(resumeCommand("r1", path.resolve(".eddy", "eddy.db"))).toBe("eddy run --resume r1");
            expect(resumeCommand("r1", "study.db")).toBe("eddy run --resume r1 --db study.db");
            expect(resumeCommand("r1", "s.db", ["mutate", "run"])).toBe("eddy mutate run --resume r1 --db s.db");
        } finally {
            if (saved !== undefined) process.env.EDDY_DB = saved;
        }
    });

    it("words every warning with one prefix, whatever it came with", () => {
        for (const w of ["warning: x", "eddy: warning: x", "eddy: x", "x"]) expect(formatWarning(w)).toBe("eddy: warning: x");
    });

    it("rephrases commander's errors as one eddy line naming the command's help", () => {
        expect(rephraseCommanderError("error: unknown option '--dbx'\n(Did you mean --db?)\n", "eddy runs list")).toBe("eddy: unknown option '--dbx' (did you mean --db?); see 'eddy runs list --help'");
        expect(rephraseCommanderError("error: unknown command 'frob'\n", "eddy")).toBe("eddy: unknown command 'frob'; see 'eddy --help'");
    });

    it("wraps at the width, keeps aligned spacing and long words whole, and indents continuations", () => {
        const text = `param      ${"word ".repeat(30)}`;
        const lines = wrapText(text, 40, "           ").split("\n");
        expect(lines[0]!.startsWith("param      word")).toBe(true);
        expect(lines.every((l) => l.length <= 40)).toBe(true);
        expect(lines.slice(1).every((l) => l.startsWith("           word"))).toBe(true);
        const long = "/a/very/long/path/".repeat(5);
        expect(wrapText(`see ${long} now`, 30, "  ")).toBe(`see\n  ${long}\n  now`);
        expect(wrapText("  indented question text here", 20)).toBe("  indented question\n  text here");
    });
});
