import type { Command } from "commander";
import { EddyError } from "../../util/errors.js";

// Placeholder until the owning issue lands; replaced by the real command.
export function registerReportCommand(program: Command): void {
    program
        .command("report")
        .description("(not yet available)")
        .allowUnknownOption()
        .action(() => {
            throw new EddyError("'eddy report' is not implemented yet", 2);
        });
}
