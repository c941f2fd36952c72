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

/** The command that continues a run (`eddy run`, `eddy mutate run`, `eddy loop run`) in the database it was started with. */
export function resumeCommand(runId: string, db: string | undefined, verb: readonly string[] = ["run"]): string {
    return commandLine([...verb, "--resume", runId, ...dbWords(db)]);
}
