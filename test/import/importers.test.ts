import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { IMPORTERS, registerImportCommand } from "../../src/cli/commands/import/ImportCommand.js";

/** Benchmark importers are one registry: a folder in src/import/ plus its command file, one line in IMPORTERS. */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

describe("benchmark importers: one registry", () => {
    it("every importer folder in src/import has its command in IMPORTERS, and every entry names a folder that exists", () => {
        const folders = readdirSync(path.join(ROOT, "src/import")).filter((f) => statSync(path.join(ROOT, "src/import", f)).isDirectory() && f !== "__pycache__");
        expect(folders.length).toBeGreaterThanOrEqual(2);
        expect(folders.filter((f) => !IMPORTERS.some((i) => i.folder === f))).toEqual([]);
        expect(IMPORTERS.map((i) => i.folder).filter((f) => !folders.includes(f))).toEqual([]);
    });

    it("the import group names no benchmark: its subcommands come from the importers", () => {
        const group = readFileSync(path.join(ROOT, "src/cli/commands/import/ImportCommand.ts"), "utf8");
        expect(group).not.toMatch(/\.command\("(?!import")/);
        const program = new Command();
        registerImportCommand(program);
        const names = program.commands.find((c) => c.name() === "import")!.commands.map((c) => c.name());
        expect(names).toEqual(expect.arrayContaining(["turbulence", "turbulence-results", "humaneval", "mbpp", "evalplus-samples"]));
    });
});
