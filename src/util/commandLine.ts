import path from "node:path";
import { defaultDbPath } from "./paths.js";

/**
 * Commands eddy prints for the user to run next (resume hints and the like), built from words so
 * that each is the exact command with every flag it needs, quoted as a POSIX shell needs.
 * src/cli/messages.ts is the front door; this part is here so the run stages can word their hints too.
 */

/** `word` quoted for a POSIX shell when it needs it (paths with spaces, quotes, `$`…). */
export function shellQuote(word: string): string {
    return /^[\w@%+=:,./~-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A command line to show the user: `eddy` and its words, each quoted as a shell needs. */
export function commandLine(words: readonly string[]): string {
    return ["eddy", ...words].map(shellQuote).join(" ");
}

/**
 * `--db <file>` unless the database is the one eddy opens by default from this folder without
 * EDDY_DB, so that a hint run as printed (from here, in a fresh shell) opens the same database.
 */
export function dbWords(db: string | undefined): string[] {
    if (db === undefined) return [];
    if (!process.env.EDDY_DB && path.resolve(db) === path.resolve(defaultDbPath())) return [];
    return ["--db", db];
}

/**
 * The command that continues a run (`eddy run`, `eddy mutate run`, `eddy loop run`) in the database it
 * was started with; `extra`: flags the run does not store and a resume needs (a server's --base-url).
 */
export function resumeCommand(runId: string, db: string | undefined, verb: readonly string[] = ["run"], extra: readonly string[] = []): string {
    return commandLine([...verb, "--resume", runId, ...extra, ...dbWords(db)]);
}

/** The words eddy was started with (after `eddy`), set by the CLI's entry point. */
let invocation: readonly string[] | undefined;

/** Remember the words eddy was started with, so that a hint can name "the same command" exactly. */
export function setInvocation(words: readonly string[]): void {
    invocation = [...words];
}

/**
 * The command the user ran, quoted so that pasting it runs it again: the hint of a study that goes on
 * where it stopped when started again with the same configuration (quant, the queue, a run with
 * failed queries). `--fresh` is left out: it would start another run instead of continuing this one.
 */
export function sameCommand(): string {
    return commandLine((invocation ?? process.argv.slice(2)).filter((w) => w !== "--fresh").map(withoutPassword));
}

/** The text eddy prints in place of a password in a URL (a queue's `redis://:password@host`): type yours there. */
export const PASSWORD_PLACEHOLDER = "PASSWORD";

/** A URL's password is never printed (logs are shared); a hint that needs one says where it goes. */
function withoutPassword(word: string): string {
    return word.replace(/^(rediss?:\/\/[^:@/]*:)[^@/]+@/i, `$1${PASSWORD_PLACEHOLDER}@`);
}

/** Whether a command printed by {@link sameCommand} needs the user's password typed into it. */
export function needsPassword(command: string): boolean {
    return command.includes(`:${PASSWORD_PLACEHOLDER}@`);
}
