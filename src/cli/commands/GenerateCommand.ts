import type { Command } from "commander";
import { EddyError } from "../../util/errors.js";

// Placeholder until the owning issue lands; replaced by the real command.
export function registerGenerateCommand(program: Command): void {
    program
        .command("generate")
        .description("(not yet available)")
        .allowUnknownOption()
        .action(() => {
            throw new EddyError("'eddy generate' is not implemented yet", 2);
        });
}
