import type { Command } from "commander";
import { EddyError } from "../../util/errors.js";

// Placeholder until the owning issue lands; replaced by the real command.
export function registerJudgeCommand(program: Command): void {
    program
        .command("judge")
        .description("(not yet available)")
        .allowUnknownOption()
        .action(() => {
            throw new EddyError("'eddy judge' is not implemented yet", 2);
        });
}
