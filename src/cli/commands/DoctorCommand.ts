import type { Command } from "commander";
import { EddyError } from "../../util/errors.js";

// Placeholder until the owning issue lands; replaced by the real command.
export function registerDoctorCommand(program: Command): void {
    program
        .command("doctor")
        .description("(not yet available)")
        .allowUnknownOption()
        .action(() => {
            throw new EddyError("'eddy doctor' is not implemented yet", 2);
        });
}
