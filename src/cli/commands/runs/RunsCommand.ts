import type { Command } from "commander";
import { EddyError } from "../../../util/errors.js";

// Placeholder until the owning issue lands; replaced by the real command.
export function registerRunsCommand(program: Command): void {
    program
        .command("runs")
        .description("(not yet available)")
        .allowUnknownOption()
        .action(() => {
            throw new EddyError("'eddy runs' is not implemented yet", 2);
        });
}
