/**
 * Text from models, oracles and files made safe to print on a terminal: C0 controls (except
 * line feed and tab), DEL and C1 controls become `\xNN`, and the invisible characters that reorder or
 * split what a reader sees (bidi overrides and isolates, line/paragraph separators) become `\u{…}`.
 * Without it an exception message holding ESC sequences could move the cursor and print a forged
 * "passed" line, or a carriage return could overwrite a row.
 */
 
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `s` with every control character escaped, except \n and \t. */
export function safeTerminalText(s: string): string {
    return s.replace(UNSAFE, (ch) => {
        const cp = ch.codePointAt(0)!;
        return cp <= 0xff ? `\\x${cp.toString(16).padStart(2, "0")}` : `\\u{${cp.toString(16)}}`;
    });
}

/** Like {@link safeTerminalText}, and line feeds and tabs escaped too: for one-line cells and labels. */
export function safeTerminalLine(s: string): string {
    return safeTerminalText(s).replace(/\n/g, "\\n").replace(/\t/g, "\\t");
}

// JSON.stringify escapes C0 controls but leaves DEL, C1 and the invisible reordering characters as they are.
 
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** JSON.stringify whose output is safe on a terminal and still the same JSON value (the rest escaped as \uXXXX). */
export function safeJsonStringify(value: unknown, indent?: number): string {
    return JSON.stringify(value, null, indent).replace(JSON_UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
