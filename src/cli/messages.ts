import { existsSync } from "node:fs";
import { safeTerminalLine } from "../util/safeText.js";
import { writeStderr } from "../util/stderrLines.js";
import { MESSAGE_WIDTH, wrapText } from "../util/textWidth.js";

export { setStderrLines, writeStderr } from "../util/stderrLines.js";

/**
 * Every line eddy writes for the person at the terminal goes through here, so the rules hold by
 * construction: one `eddy: ` prefix, warnings as `eddy: warning: `, a hint is the exact next command
 * with every flag it needs (shell-quoted), and notes fit 100 columns.
 */

const PREFIX = "eddy: ";
const WARNING = "warning: ";

export { commandLine, dbWords, resumeCommand, sameCommand, shellQuote } from "../util/commandLine.js";

/** Stands for a space inside a quoted command while a message wraps (never in a message itself: safeTerminalLine drops control characters). */
const HELD_SPACE = "\u0000";

/** A word as a path is written in prose: without the punctuation around it (`(…)`, quotes, a trailing `:` or `,`). */
const bare = (s: string): string => s.replace(/^[('"`]+/, "").replace(/[)'"`:;,.]+$/, "");

const exists = (p: string): boolean => {
    try {
        return p !== "" && existsSync(p);
    } catch {
        return false;
    }
};

/**
 * The last of `words` from `i` on that belong to one path with spaces in it, looking up to three words
 * ahead: a later word continues the path when the path up to it exists, or the folder it names up to
 * its last `/` does (`/tmp/my studies/x.db`), or, for a path that is not there, when it is the rest of
 * a path (`studies/x.db` after a word with a `/`). A word ending in `:`, `,`, `;` or `)` ends a path.
 */
function pathEnd(words: readonly string[], i: number): number {
    let end = i;
    for (let j = i + 1; j < words.length && j <= end + 3; j++) {
        if (words[j] === "" || /[:;,)]$/.test(words[j - 1]!)) break;
        const w = words[j]!.replace(/^[('"`]+/, "");
        const joined = bare(words.slice(i, j + 1).join(" "));
        const rest = w.includes("/") && !w.startsWith("/") && words.slice(i, end + 1).join(" ").includes("/");
        if (rest || exists(joined) || (w.includes("/") && exists(joined.slice(0, joined.lastIndexOf("/"))))) end = j;
    }
    return end;
}

/** The spaces inside paths (`/tmp/my studies/eddy.db`) held, so that wrapping never breaks a path across lines. */
function holdPathSpaces(line: string): string {
    const words = line.split(" ");
    const out: string[] = [];
    for (let i = 0; i < words.length; i++) {
        const end = words[i] === "" ? i : pathEnd(words, i);
        out.push(words.slice(i, end + 1).join(HELD_SPACE));
        i = end;
    }
    return out.join(" ");
}

/**
 * A message wrapped at 100 columns, continuation lines indented six spaces; a command quoted in it
 * (`'eddy doctor'`) and a path with a space in it (`/tmp/my studies/eddy.db`) are never broken across
 * lines, so they are still copied whole.
 */
function wrapMessage(line: string): string {
    const held = holdPathSpaces(line.replace(/'eddy [^']*'/g, (q) => q.replace(/ /g, HELD_SPACE)));
    return wrapText(held, MESSAGE_WIDTH, "      ").replaceAll(HELD_SPACE, " ");
}

/** One `eddy: …` line (or lines, wrapped at 100 columns), made safe for a terminal. */
export function formatNote(text: string): string {
    return wrapMessage(PREFIX + safeTerminalLine(text.replace(/^eddy: /, "")));
}

/** `eddy: warning: …`, whatever prefix the text came with (`warning:`, `eddy:`, `eddy: warning:`). */
export function formatWarning(text: string): string {
    const bare = text.replace(/^eddy: /, "").replace(/^warning: /i, "");
    return wrapMessage(PREFIX + WARNING + safeTerminalLine(bare));
}

const warned = new Set<string>();

/** Writes a note to stderr. */
export function note(text: string, out: (s: string) => void = writeStderr): void {
    out(formatNote(text) + "\n");
}

/** Writes a warning to stderr, once per process for the same text (one per study, not one per model). */
export function warn(text: string, out: (s: string) => void = writeStderr): void {
    const line = formatWarning(text);
    if (warned.has(line)) return;
    warned.add(line);
    out(line + "\n");
}

/** A stage's log line: warnings (`warning: …`) as warnings, the rest as notes. */
export function logLine(text: string): void {
    if (/^(eddy: )?warning: /i.test(text)) warn(text);
    else note(text);
}

/**
 * commander's own error (`error: unknown option '--dbx'\n(Did you mean --db?)`) as one eddy line that
 * names the command's help: `eddy: unknown option '--dbx' (did you mean --db?); see 'eddy runs list --help'`.
 */
export function rephraseCommanderError(text: string, commandPath: string): string {
    const parts = text
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l !== "");
    const first = (parts[0] ?? "error").replace(/^error: /i, "");
    const more = parts
        .slice(1)
        .map((l) => l.replace(/^\((.*)\)$/, "$1"))
        .map((l) => l.charAt(0).toLowerCase() + l.slice(1));
    return `${PREFIX}${first}${more.length ? ` (${more.join("; ")})` : ""}; see '${commandPath} --help'`;
}

/**
 * A note that ends in the command to run next, on a line of its own (never wrapped, so it is copied
 * and run exactly as printed): `eddy: interrupted; resume with:` then `  eddy run --resume … --db …`.
 */
export function noteWithCommand(text: string, command: string, out: (s: string) => void = writeStderr): void {
    out(`${formatNote(`${text}:`)}\n  ${command}\n`);
}

/** Lines for stdout (summaries, listings), each wrapped at 100 columns with its continuation indented. */
export function print(text: string, out: (s: string) => void = (s) => void process.stdout.write(s)): void {
    out(
        text
            .replace(/\n$/, "")
            .split("\n")
            .map((l) => wrapText(safeTerminalLine(l), MESSAGE_WIDTH, /^ */.exec(l)![0] + "    "))
            .join("\n") + "\n"
    );
}
