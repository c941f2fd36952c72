/**
 * Ctrl-C (SIGINT) and SIGTERM held for a command that must say what they interrupted (`eddy merge`): listened
 * for from the moment the process starts (bin.ts), so that no signal ends it silently, not even one that comes
 * while its modules load or after its work is done. The command reads and answers the signal; one it never
 * answered is said as the process exits.
 */
let heard: NodeJS.Signals | undefined;
let answered = false;
let unanswered: ((sig: NodeJS.Signals) => string) | undefined;

const hear = (sig: NodeJS.Signals): void => void (heard ??= sig);

/** Start holding SIGINT and SIGTERM (idempotent). */
export function holdSignals(): void {
    if (process.listeners("SIGINT").includes(hear)) return;
    process.on("SIGINT", hear);
    process.on("SIGTERM", hear);
    process.once("exit", () => {
        if (heard && !answered && unanswered) process.stderr.write(`eddy: ${unanswered(heard)}\n`);
    });
}

/** The signal heard so far, if any. */
export function heldSignal(): NodeJS.Signals | undefined {
    return heard;
}

/** The signal has been answered (said, with the exit code to match): nothing more at exit. */
export function signalAnswered(): void {
    answered = true;
}

/** What to say at exit about a signal that came after the command last looked. */
export function onUnansweredSignal(say: (sig: NodeJS.Signals) => string): void {
    unanswered = say;
}

// Imported first by bin.ts, so this runs before any other module of eddy loads.
if (process.argv[2] === "merge") holdSignals();
