/**
 * An error meant for the person at the terminal: one line, no stack trace, a chosen exit code.
 * Anything else that reaches the top level is a bug and is printed with its stack.
 */
export class EddyError extends Error {
    override readonly name = "EddyError";

    constructor(message: string, readonly exitCode = 1, options?: { cause?: unknown }) {
        super(message, options);
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
