import type { Command } from "commander";
import { EddyError } from "../../../util/errors.js";

// Placeholder until the owning issue lands; replaced by the real command.
export function registerTemplatesCommand(program: Command): void {
    program
        .command("templates")
        .description("(not yet available)")
        .allowUnknownOption()
        .action(() => {
            throw new EddyError("'eddy templates' is not implemented yet", 2);
        });
}
