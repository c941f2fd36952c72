import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { commandLine, formatNote, formatWarning, rephraseCommanderError, resumeCommand, sameCommand } from "../../src/cli/messages.js";
import { setInvocation } from "../../src/util/commandLine.js";
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

    it("names 'the same command' as it was run, quoted, without --fresh (a queue URL's password: test/queue/lapses.test.ts)", () => {
        setInvocation(["quant", "a b.gguf", "c.gguf", "--fresh", "--db", "it's.db"]);
        expect(sameCommand()).toBe("eddy quant 'a b.gguf' c.gguf --db 'it'\\''s.db'");
    });

    it("wraps a long message at 100 columns, continuations indented, a quoted command never broken", () => {
        const text = `no sandbox is possible here: ${"namespaces are off ".repeat(4)}and answers would run WITHOUT a sandbox ('eddy doctor --python /usr/bin/python3' shows more)`;
        const lines = formatNote(text).split("\n");
        expect(lines.length).toBeGreaterThan(1);
        expect(lines.every((l) => [...l].length <= 100)).toBe(true);
        expect(lines[0]!.startsWith("eddy: no sandbox")).toBe(true);
        expect(lines.slice(1).every((l) => /^ {6}\S/.test(l))).toBe(true);
        expect(lines.some((l) => l.includes("'eddy doctor --python /usr/bin/python3'"))).toBe(true);
        expect(lines.join(" ").replace(/ {7}/g, " ")).toBe(`eddy: ${text}`);
    });

    it("never breaks a path with a space in it across lines (issue #47): it stays whole on one line", () => {
        const dir = mkdtempSync(path.join(os.tmpdir(), "eddy msg-"));
        try {
            const folder = path.join(dir, "my studies", "lab results 2026");
            mkdirSync(folder, { recursive: true });
            // A store that is there (its folders are), one that is not (nor its folder), and a folder named alone.
            const paths = [path.join(folder, "eddy.db"), path.join(dir, "no such folder", "sub dir", "x.db"), folder];
            for (const [i, p] of paths.entries()) {
                for (let pad = 0; pad < 60; pad += 7) {
                    const text = `${"word ".repeat(pad)}cannot open the database ${p}: it is locked by another program; close it and try again (${i})`;
                    const lines = formatNote(text).split("\n");
                    expect(lines.filter((l) => l.includes(p)), formatNote(text)).toHaveLength(1);
                    expect(lines.join(" ").replace(/ {7}/g, " ")).toBe(`eddy: ${text}`);
                }
            }
            // Words beside a path are still wrapped as words.
            const lines = formatNote(`${"word ".repeat(30)}in ${paths[0]} ${"more words ".repeat(10)}`).split("\n");
            expect(lines.length).toBeGreaterThan(2);
            expect(lines.every((l) => [...l].length <= 100 || l.includes(paths[0]!))).toBe(true);
        } finally {
            rmSync(dir, { recursive: true, force: true });
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
