import type { Command } from "commander";
import { EddyError } from "../../../util/errors.js";

// Placeholder until the owning issue lands; replaced by the real command.
export function registerModelsCommand(program: Command): void {
    program
        .command("models")
        .description("(not yet available)")
        .allowUnknownOption()
        .action(() => {
            throw new EddyError("'eddy models' is not implemented yet", 2);
        });
}
