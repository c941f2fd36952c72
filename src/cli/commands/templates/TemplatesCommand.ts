import type { Command } from "commander";
import { registerListCommand } from "./commands/ListCommand.js";
import { registerShowCommand } from "./commands/ShowCommand.js";
import { registerValidateCommand } from "./commands/ValidateCommand.js";

/** `eddy templates …`: list, show and validate question templates and their oracles. */
export function registerTemplatesCommand(program: Command): void {
    const templates = program
        .command("templates")
        .description("Question templates and their oracles: list them, show their neighbourhoods, validate the oracles")
        .addHelpText("after", "\nExamples:\n  $ eddy templates list\n  $ eddy templates show list_rotate_right --instances 3\n  $ eddy templates validate string_anagram_plus");
    registerListCommand(templates);
    registerShowCommand(templates);
    registerValidateCommand(templates);
}
