/**
 * An error meant for the person at the terminal: one line, no stack trace, a chosen exit code.
 * Anything else that reaches the top level is a bug and is printed with its stack.
 */
export class EddyError extends Error {
    override readonly name = "EddyError";
    /** The text before the command (`…; resume with`), when the error ends in one. */
    readonly lead: string;
    /**
     * The command to run next (a resume hint, built by src/util/commandLine.ts). The CLI prints it on
     * a line of its own, never wrapped or quoted inside prose, so it runs exactly as printed.
     */
    readonly next: string | undefined;

    constructor(message: string, readonly exitCode = 1, options?: { cause?: unknown; next?: string }) {
        super(options?.next ? `${message}: ${options.next}` : message, options?.cause === undefined ? undefined : { cause: options.cause });
        this.lead = message;
        this.next = options?.next;
    }
}

export function isEddyError(err: unknown): err is EddyError {
    return err instanceof EddyError;
}

/** The message of any thrown value, on one line. */
export function oneLine(err: unknown): string {
    const text = err instanceof Error ? err.message : String(err);
    return text.replace(/\s*\n\s*/g, " ").trim();
}
