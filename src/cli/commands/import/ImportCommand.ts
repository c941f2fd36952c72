import type { Command } from "commander";
import { registerHumanEvalImports } from "./humaneval.js";
import { registerTurbulenceImports } from "./turbulence.js";

/**
 * Every benchmark importer's subcommands, one line each: an importer is its folder in src/import/
 * (what it reads and writes) plus its command file here (the flags and what it prints).
 */
export const IMPORTERS: readonly { folder: string; register: (cmd: Command) => void }[] = [
    { folder: "turbulence", register: registerTurbulenceImports },
    { folder: "humaneval", register: registerHumanEvalImports }
];

/** `eddy import …`: the group, and each importer's subcommands. */
export function registerImportCommand(program: Command): void {
    const cmd = program
        .command("import")
        .description("Bring benchmarks and published results from other harnesses into eddy")
        .addHelpText("after", "\nExamples:\n  $ eddy import humaneval test/import/evalplus-sample/HumanEvalPlus-eddy.jsonl --out eddy-humaneval");
    for (const importer of IMPORTERS) importer.register(cmd);
}
