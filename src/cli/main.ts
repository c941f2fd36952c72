#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { eddyVersion } from "../util/paths.js";
import { isEddyError, oneLine } from "../util/errors.js";
import { registerTemplatesCommand } from "./commands/templates/TemplatesCommand.js";
import { registerJudgeCommand } from "./commands/JudgeCommand.js";
import { registerModelsCommand } from "./commands/models/ModelsCommand.js";
import { registerDoctorCommand } from "./commands/DoctorCommand.js";
import { registerGenerateCommand } from "./commands/GenerateCommand.js";
import { registerRunCommand } from "./commands/RunCommand.js";
import { registerRunsCommand } from "./commands/runs/RunsCommand.js";
import { registerExportCommand } from "./commands/ExportCommand.js";
import { registerDemoCommand } from "./commands/DemoCommand.js";
import { registerCompareCommand } from "./commands/CompareCommand.js";
import { registerReportCommand } from "./commands/ReportCommand.js";
import { registerQuantCommand } from "./commands/QuantCommand.js";

export function buildProgram(): Command {
    const program = new Command("eddy")
        .description("Offline evaluation of open-weight code models on question neighbourhoods")
        .version(eddyVersion())
        .showHelpAfterError("(run with --help for usage)")
        .exitOverride();
    for (const register of [
        registerDemoCommand,
        registerRunCommand,
        registerRunsCommand,
        registerReportCommand,
        registerCompareCommand,
        registerQuantCommand,
        registerExportCommand,
        registerTemplatesCommand,
        registerJudgeCommand,
        registerGenerateCommand,
        registerModelsCommand,
        registerDoctorCommand
    ])
        register(program);
    return program;
}

export async function main(argv: string[]): Promise<number> {
    const program = buildProgram();
    try {
        await program.parseAsync(argv);
        return typeof process.exitCode === "number" ? process.exitCode : 0;
    } catch (err) {
        if (err instanceof CommanderError) return err.exitCode;
        if (isEddyError(err)) {
            process.stderr.write(`eddy: ${oneLine(err.message)}\n`);
            return err.exitCode;
        }
        process.stderr.write(`eddy: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
        return 70;
    }
}

