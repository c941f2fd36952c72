/**
 * eddy's messages as one line each: `eddy: …` lines wrap at 100 columns with continuation lines
 * indented six spaces (src/cli/messages.ts), so a test that reads a message's words joins them first.
 * A command on a line of its own (indented two spaces, after a line ending in ':') is left as it is.
 */
export function unwrapMessages(text: string): string {
    return text.replace(/\n {6}(?=\S)/g, " ");
}

/** eddy's messages, one entry each: wrapped lines joined, and a command on a line of its own kept with the message that names it. */
export function messageLines(text: string): string[] {
    return unwrapMessages(text)
        .replace(/:\n(?= {2}eddy )/g, ": ")
        .split("\n")
        .filter(Boolean);
}
