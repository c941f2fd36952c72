import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/** Walls of the code drawn in README "Layout", checked by reading the sources (no build, no process). */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const sources = (dir: string): { file: string; text: string }[] =>
    readdirSync(path.join(ROOT, dir), { recursive: true, encoding: "utf8" })
        .filter((f) => f.endsWith(".ts"))
        .map((f) => `${dir}/${f.split(path.sep).join("/")}`)
        .map((file) => ({ file, text: readFileSync(path.join(ROOT, file), "utf8") }));
const SRC = sources("src");
/** `file:line: text` of every line of `files` that matches `re`. */
const hits = (files: { file: string; text: string }[], re: RegExp): string[] => files.flatMap(({ file, text }) => text.split("\n").flatMap((line, i) => (re.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])));

describe("code structure", () => {
    it("one HTML page shell owns the document and its Content-Security-Policy", () => {
        expect([...new Set(hits(SRC, /Content-Security-Policy"|<!doctype/i).map((h) => h.split(":")[0]))]).toEqual(["src/report/page.ts"]);
    });

    it("no command imports another command (shared code lives outside src/cli/commands)", () => {
        const commands = SRC.filter((s) => s.file.startsWith("src/cli/commands/"));
        const offenders = commands.flatMap(({ file, text }) =>
            [...text.matchAll(/from "(\.[^"]*)"/g)]
                .map((m) => path.posix.join(path.posix.dirname(file), m[1]!))
                .filter((target) => /Command\.js$/.test(target) && !isSubcommandOf(file, target))
                .map((target) => `${file} imports ${target}`)
        );
        expect(offenders).toEqual([]);
    });
});

/** A command group (kit, templates) registers its own subcommands: those imports are its structure, not a cross-command one. */
function isSubcommandOf(file: string, target: string): boolean {
    const dir = path.posix.dirname(file);
    return path.posix.basename(file) === `${capitalise(path.posix.basename(dir))}Command.ts` && target.startsWith(dir + "/");
}
function capitalise(s: string): string {
    return s.charAt(0).toUpperCase() + s.slice(1);
}
