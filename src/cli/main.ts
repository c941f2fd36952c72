import { Command, CommanderError } from "commander";
import { eddyVersion } from "../util/paths.js";
import { isEddyError, oneLine } from "../util/errors.js";
import { setInvocation } from "../util/commandLine.js";
import { note, noteWithCommand, rephraseCommanderError } from "./messages.js";
import { MESSAGE_WIDTH, wrapLines } from "../util/textWidth.js";

type Register = (program: Command) => void;

/**
 * Every command, in help order, loaded on demand: a command's module pulls in its whole stage
 * (llama.cpp bindings, vega, the store), so `eddy judge …` should not pay for `eddy quant`.
 */
const COMMANDS: [name: string, load: () => Promise<Register>][] = [
    ["demo", async () => (await import("./commands/DemoCommand.js")).registerDemoCommand],
    ["run", async () => (await import("./commands/RunCommand.js")).registerRunCommand],
    ["runs", async () => (await import("./commands/runs/RunsCommand.js")).registerRunsCommand],
    ["report", async () => (await import("./commands/ReportCommand.js")).registerReportCommand],
    ["compare", async () => (await import("./commands/CompareCommand.js")).registerCompareCommand],
    ["view", async () => (await import("./commands/ViewCommand.js")).registerViewCommand],
    ["quant", async () => (await import("./commands/QuantCommand.js")).registerQuantCommand],
    ["audit", async () => (await import("./commands/AuditCommand.js")).registerAuditCommand],
    ["export", async () => (await import("./commands/ExportCommand.js")).registerExportCommand],
    ["templates", async () => (await import("./commands/templates/TemplatesCommand.js")).registerTemplatesCommand],
    ["judge", async () => (await import("./commands/JudgeCommand.js")).registerJudgeCommand],
    ["generate", async () => (await import("./commands/GenerateCommand.js")).registerGenerateCommand],
    ["models", async () => (await import("./commands/models/ModelsCommand.js")).registerModelsCommand],
    ["doctor", async () => (await import("./commands/DoctorCommand.js")).registerDoctorCommand],
    ["import", async () => (await import("./commands/import/ImportCommand.js")).registerImportCommand],
    ["kit", async () => (await import("./commands/kit/KitCommand.js")).registerKitCommand],
    ["loop", async () => (await import("./commands/LoopCommand.js")).registerLoopCommand],
    ["mutate", async () => (await import("./commands/MutateCommand.js")).registerMutateCommand],
    ["merge", async () => (await import("./commands/MergeCommand.js")).registerMergeCommand],
    ["worker", async () => (await import("./commands/WorkerCommand.js")).registerWorkerCommand]
];

/** The program with every command registered, or only `only` when the command line names one. */
export async function buildProgram(only?: string): Promise<Command> {
    const program = new Command("eddy")
        .description("Offline evaluation of open-weight code models on question neighbourhoods")
        .version(eddyVersion())
        .addHelpText("after", "\nExamples:\n  $ eddy demo\n  $ eddy runs list\n  $ eddy report latest")
        .exitOverride();
    const chosen = COMMANDS.filter(([name]) => only === undefined || name === only);
    for (const register of await Promise.all(chosen.map(([, load]) => load()))) register(program);
    speakAsEddy(program);
    return program;
}

/** commander's own errors (unknown option, missing argument…) as one `eddy: …` line naming the command's --help. */
function speakAsEddy(cmd: Command, names: string[] = []): void {
    const path = ["eddy", ...names].join(" ");
    cmd.configureOutput({
        outputError: (text, write) => write(rephraseCommanderError(text, path) + "\n"),
        // Help wraps at 100 columns (a narrower terminal's width): its options as commander lays them out, its own prose
        // (the texts after the options) here; an example command (`  $ eddy …`, at most 100 columns: test/docs/width.test.ts)
        // stays whole, to be copied.
        writeOut: (text) => process.stdout.write(text.split("\n").map((l) => (/^\s*\$ /.test(l) ? l : wrapLines(l))).join("\n")),
        getOutHelpWidth: () => Math.min(MESSAGE_WIDTH, process.stdout.isTTY && process.stdout.columns > 0 ? process.stdout.columns : MESSAGE_WIDTH),
        getErrHelpWidth: () => Math.min(MESSAGE_WIDTH, process.stderr.isTTY && process.stderr.columns > 0 ? process.stderr.columns : MESSAGE_WIDTH)
    });
    for (const sub of cmd.commands) speakAsEddy(sub, [...names, sub.name()]);
}

export async function main(argv: string[]): Promise<number> {
    setInvocation(argv.slice(2));
    const first = argv[2];
    const named = COMMANDS.some(([name]) => name === first) ? first : undefined;
    try {
        const program = await buildProgram(named);
        await program.parseAsync(argv);
        return typeof process.exitCode === "number" ? process.exitCode : 0;
    } catch (err) {
        if (err instanceof CommanderError) return err.exitCode;
        if (isEddyError(err)) {
            // One `eddy:` line, wrapped at 100 columns; an error that ends in the command to run next prints it
            // on a line of its own, unwrapped (see noteWithCommand).
            if (err.next) noteWithCommand(oneLine(err.lead), err.next);
            else note(oneLine(err.message));
            return err.exitCode;
        }
        // A store that fails below every store method (a damaged page met by a read): one line naming the file.
        if (String((err as { code?: unknown } | null)?.code ?? "").startsWith("SQLITE_")) {
            const { Store, storeError } = await import("../store/Store.js");
            const said = storeError(err, Store.lastOpened ?? "(the database)");
            if (isEddyError(said)) {
                note(oneLine(said.message));
                return said.exitCode;
            }
        }
        process.stderr.write(`eddy: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
        return 70;
    }
}
