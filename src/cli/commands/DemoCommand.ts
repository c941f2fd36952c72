import type { Command } from "commander";
import { EddyError } from "../../util/errors.js";

// Placeholder until the owning issue lands; replaced by the real command.
export function registerDemoCommand(program: Command): void {
    program
        .command("demo")
        .description("(not yet available)")
        .allowUnknownOption()
        .action(() => {
            throw new EddyError("'eddy demo' is not implemented yet", 2);
        });
}
