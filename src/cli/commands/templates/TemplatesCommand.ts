import type { Command } from "commander";
import { registerCoverageCommand } from "./commands/CoverageCommand.js";
import { registerListCommand } from "./commands/ListCommand.js";
import { registerShowCommand } from "./commands/ShowCommand.js";
import { registerValidateCommand } from "./commands/ValidateCommand.js";

/** `eddy templates …`: list, show and validate question templates and their oracles. */
export function registerTemplatesCommand(program: Command): void {
    const templates = program
        .command("templates")
        .description("Question templates and their oracles: list them, show their neighbourhoods, their coverage of the taxonomy, validate the oracles and measure their strength")
        .addHelpText("after", "\nExamples:\n  $ eddy templates list\n  $ eddy templates show list_rotate_right --instances 3\n  $ eddy templates coverage\n  $ eddy templates validate string_anagram_plus\n  $ eddy templates validate list_every_kth --strength --json");
    registerListCommand(templates);
    registerShowCommand(templates);
    registerCoverageCommand(templates);
    registerValidateCommand(templates);
}
