import path from "node:path";
import type { MergeConflict } from "../store/merge.js";

/** How much of a long value a conflict line shows, and how much of it comes before the first difference. */
const SHOWN_CHARS = 57;
const CONTEXT_CHARS = 20;

/** A conflict as one line for the terminal: long values are shown around their first difference, so the two excerpts differ. */
export function describeConflict(c: MergeConflict): string {
    const here = JSON.stringify(c.target) ?? "null";
    const incoming = JSON.stringify(c.incoming) ?? "null";
    let at = 0;
    while (at < here.length && at < incoming.length && here[at] === incoming[at]) at++;
    const show = (s: string): string => {
        if (s.length <= SHOWN_CHARS + 3) return s;
        const from = Math.max(0, Math.min(at - CONTEXT_CHARS, s.length - SHOWN_CHARS));
        return `${from > 0 ? "…" : ""}${s.slice(from, from + SHOWN_CHARS)}${from + SHOWN_CHARS < s.length ? "…" : ""}`;
    };
    const where = Math.max(here.length, incoming.length) > SHOWN_CHARS + 3 ? ` from character ${at + 1}` : "";
    return `${path.basename(c.source)}: ${c.key}: ${c.column} differs${where} (here ${show(here)}, incoming ${show(incoming)})`;
}
