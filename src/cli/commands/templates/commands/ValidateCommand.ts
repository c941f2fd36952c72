import type { Command } from "commander";
import { EddyError } from "../../../../util/errors.js";

// Temporary until the judge (src/judge/JudgePool.ts) lands; the real command then replaces this file.
export function registerValidateCommand(parent: Command): void {
    parent
        .command("validate")
        .description("Check oracles (needs the judge; not available yet)")
        .allowUnknownOption()
        .action(() => {
            throw new EddyError("'eddy templates validate' needs the judge, which is not built yet", 2);
        });
}
