/**
 * Widths and wrapping of terminal text, shared by messages, tables and progress lines (lower layers
 * such as src/run and src/report use these too, so they live here rather than in src/cli).
 */

/** Columns every message and table fits (terminals may be wider; logs and pipes are read at this width). */
export const MESSAGE_WIDTH = 100;

/** Display width of a string: code points (every character eddy prints in tables is one column wide). */
export function displayWidth(s: string): number {
    let n = 0;
    for (const _ of s) n++;
    return n;
}

/**
 * Text wrapped to `width` columns: each paragraph keeps its leading spaces, and its continuation lines
 * start with `indent` (default: the same leading spaces). A word longer than a line (a path, a command)
 * is kept whole rather than cut, so it stays copyable.
 */
export function wrapText(text: string, width = MESSAGE_WIDTH, indent?: string): string {
    const out: string[] = [];
    for (const para of text.split("\n")) {
        const lead = /^ */.exec(para)![0];
        const next = indent ?? lead;
        let line = lead;
        let empty = true;
        // Words with the spaces before each (runs of spaces inside a line, e.g. aligned labels, are kept).
        for (const [, gap, word] of para.slice(lead.length).trimEnd().matchAll(/( *)([^ ]+)/g)) {
            if (!empty && displayWidth(line) + gap!.length + displayWidth(word!) > width) {
                out.push(line);
                line = next + word;
            } else line = empty ? line + word : line + gap + word;
            empty = false;
        }
        out.push(empty ? para.trimEnd() : line);
    }
    return out.join("\n");
}

/** `s` cut to `width` columns, ending in an ellipsis when cut (abbreviated from the end). */
export function clip(s: string, width: number): string {
    const cps = [...s];
    if (cps.length <= width) return s;
    return width <= 0 ? "" : cps.slice(0, width - 1).join("") + "…";
}

/** Every line of `text` within `width` columns: a longer one continues on lines indented two more spaces. */
export function wrapLines(text: string, width = MESSAGE_WIDTH): string {
    return text
        .split("\n")
        .map((l) => (displayWidth(l) > width ? wrapText(l, width, /^ */.exec(l)![0] + "  ") : l))
        .join("\n");
}
