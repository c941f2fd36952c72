import { safeTerminalText } from "../util/safeText.js";
import { displayWidth } from "../util/textWidth.js";

/**
 * Compact terminal tables: a header, a rule under it, no rule between rows, columns two spaces apart.
 * Hand-written rather than cli-table3: fitting a width means choosing which columns give way and
 * how each cell is shortened, which that package does not do. Every cell goes through
 * safeTerminalText, so model output cannot carry escape sequences into a terminal.
 */

/** How a column behaves when the table is too wide. */
export interface ColumnSpec {
    head: string;
    /** Right-aligned (numbers). Default: detected from the cells. */
    align?: "left" | "right";
    /** Never shortened (numbers, intervals, categories). Default: detected from the cells (numeric-looking cells are fixed). */
    fixed?: boolean;
    /** Where a shortened cell loses characters: "end" (default) or "middle" (ids: keeps both ends). */
    ellipsis?: "end" | "middle";
    /** Narrowest width the column may be shortened to (default 8, or the header's length if smaller). */
    min?: number;
    /** Wrapped onto more lines at its width, never shortened: every word of the value stays (a word wider than the column is cut in pieces). */
    wrap?: boolean;
}

/** Options of {@link renderTable}. */
export interface TableOptions {
    /** Width to fit (default {@link terminalWidth}()). */
    width?: number;
    /** No shortening at all: every value in full, whatever the width. */
    wide?: boolean;
}

const GAP = "  ";
// Numbers, percentages, intervals, p-values, counts like "3 of 4" or "4×5": never shortened.
const NUMERIC_LIKE = /^[\s0-9.,%[\]()+\-–−*<>=×/pofe]*$/;
const NUMBER = /^[\s0-9.,%+\-–−<>×/*]*$/;

/** Width of the terminal on stdout when it is one, else 100 columns (pipes, files, CI logs). */
export function terminalWidth(stream: { isTTY?: boolean; columns?: number } = process.stdout): number {
    return stream.isTTY && stream.columns && stream.columns > 20 ? stream.columns : 100;
}

/** `s` shortened to `width` columns with an ellipsis, at the end or in the middle. */
export function shorten(s: string, width: number, where: "end" | "middle" = "end"): string {
    const cps = [...s];
    if (cps.length <= width) return s;
    if (width <= 1) return "…".slice(0, width);
    if (where === "middle" && width >= 5) {
        const head = Math.ceil((width - 1) / 2);
        return cps.slice(0, head).join("") + "…" + cps.slice(cps.length - (width - 1 - head)).join("");
    }
    return cps.slice(0, width - 1).join("") + "…";
}

/** Words of `text` wrapped to `width` columns (a word longer than the width is shortened). */
export function wrap(text: string, width: number): string {
    const out: string[] = [];
    for (const para of safeTerminalText(text).split("\n")) {
        let line = "";
        for (const word of para.split(/\s+/).filter(Boolean)) {
            const w = shorten(word, width);
            if (line && displayWidth(line) + 1 + displayWidth(w) > width) {
                out.push(line);
                line = w;
            } else line = line ? `${line} ${w}` : w;
        }
        out.push(line);
    }
    return out.join("\n");
}

/** A table fitted to the width (or in full with `wide`). */
export function renderTable(head: readonly (string | ColumnSpec)[], rows: readonly (readonly (string | number)[])[], opts: TableOptions = {}): string {
    const width = opts.width ?? terminalWidth();
    const cells = rows.map((r) => head.map((_, j) => lines(r[j])));
    const cols = head.map((h, j) => {
        const spec: ColumnSpec = typeof h === "string" ? { head: h } : h;
        const all = cells.flatMap((r) => r[j]!).filter((x) => x !== "");
        const numeric = all.every((x) => NUMERIC_LIKE.test(x));
        const title = safeTerminalText(spec.head).replace(/\s+/g, " ");
        return {
            title,
            align: spec.align ?? (all.length > 0 && all.every((x) => NUMBER.test(x)) ? "right" : "left"),
            fixed: spec.fixed ?? numeric,
            ellipsis: spec.ellipsis ?? "end",
            wrap: spec.wrap === true,
            min: Math.min(spec.min ?? 8, Math.max(...[title, ...all].map(displayWidth))),
            width: Math.max(...[title, ...all].map(displayWidth))
        };
    });
    if (!opts.wide) {
        const total = () => cols.reduce((s, c) => s + c.width, 0) + GAP.length * (cols.length - 1);
        // Widest shrinkable column first, one column at a time, until the table fits or nothing can give.
        let excess = total() - width;
        while (excess > 0) {
            const c = cols.filter((x) => !x.fixed && x.width > x.min).sort((a, b) => b.width - a.width)[0];
            if (!c) break;
            c.width--;
            excess--;
        }
        // Still too wide: headers longer than their values give way too.
        while (excess > 0) {
            const c = cols.filter((x) => x.width > Math.max(3, ...cellWidths(cells, cols.indexOf(x)))).sort((a, b) => b.width - a.width)[0];
            if (!c) break;
            c.width--;
            excess--;
        }
    }
    // Wrapped columns: each value onto as many lines as its width needs, nothing shortened.
    if (!opts.wide)
        cols.forEach((c, j) => {
            if (!c.wrap) return;
            for (const r of cells) r[j] = r[j]!.flatMap((line) => (displayWidth(line) <= c.width ? [line] : splitToWidth(line, c.width)));
        });
    const fmt = (s: string, c: (typeof cols)[number]) => {
        const t = opts.wide ? s : shorten(s, c.width, c.ellipsis);
        const pad = " ".repeat(Math.max(0, c.width - displayWidth(t)));
        return c.align === "right" ? pad + t : t + pad;
    };
    const out: string[] = [];
    out.push(cols.map((c) => fmt(c.title, c)).join(GAP).trimEnd());
    out.push(cols.map((c) => "─".repeat(c.width)).join(GAP));
    for (const r of cells) {
        const height = Math.max(1, ...r.map((x) => x.length));
        for (let k = 0; k < height; k++) out.push(cols.map((c, j) => fmt(r[j]![k] ?? "", c)).join(GAP).trimEnd());
    }
    return out.join("\n");
}

/** A line broken at spaces into pieces of at most `width` columns; a word wider than that is cut in pieces (nothing dropped). */
function splitToWidth(line: string, width: number): string[] {
    const out: string[] = [];
    let cur = "";
    for (const word of line.split(" ")) {
        let w = word;
        while (displayWidth(w) > width) {
            const cps = [...w];
            let take = 0;
            while (take < cps.length && displayWidth(cps.slice(0, take + 1).join("")) <= width) take++;
            if (cur) {
                out.push(cur);
                cur = "";
            }
            out.push(cps.slice(0, Math.max(1, take)).join(""));
            w = cps.slice(Math.max(1, take)).join("");
        }
        if (cur && displayWidth(cur) + 1 + displayWidth(w) > width) {
            out.push(cur);
            cur = w;
        } else cur = cur ? `${cur} ${w}` : w;
    }
    if (cur || out.length === 0) out.push(cur);
    return out;
}

function lines(v: string | number | undefined): string[] {
    if (v === undefined) return [""];
    return safeTerminalText(String(v)).replace(/\t/g, " ").split("\n");
}

function cellWidths(cells: string[][][], j: number): number[] {
    return cells.flatMap((r) => r[j]!.map(displayWidth));
}

/** Every line of a rendered table moved right by `by` (a table nested under a heading line). */
export function indent(table: string, by = "  "): string {
    return table
        .split("\n")
        .map((l) => by + l)
        .join("\n");
}

/**
 * Label–value lines (doctor, models info, an audit's comparisons): labels padded to the widest one,
 * values as they are. The headerless form of {@link renderTable}; an empty label continues the line above.
 */
export function renderPairs(pairs: readonly (readonly [string, string])[], opts: { indent?: string; width?: number } = {}): string[] {
    const labels = pairs.map(([k]) => safeTerminalText(k).replace(/\s+/g, " "));
    const width = Math.max(0, ...labels.map(displayWidth));
    const lead = opts.indent ?? "";
    // Values wrap under themselves so every line fits the width (100 columns by default, as tables do).
    const room = Math.max(20, (opts.width ?? 100) - displayWidth(lead) - width - 1);
    return pairs.flatMap(([, v], i) =>
        wrapValue(safeTerminalText(v).replace(/\n/g, " "), room).map((part, k) =>
            `${lead}${k === 0 ? labels[i]! + " ".repeat(width - displayWidth(labels[i]!)) : " ".repeat(width)} ${part}`.trimEnd()
        )
    );
}

/** A value's words in lines of at most `room` columns; a longer word breaks after a `+`, `,` or `/` where it can, else where it must. */
function wrapValue(v: string, room: number): string[] {
    const words = v.split(" ").filter((w) => w !== "").flatMap((w) => (displayWidth(w) <= room ? [w] : breakWord(w, room)));
    const out: string[] = [];
    let line = "";
    for (const w of words) {
        if (line && displayWidth(line) + 1 + displayWidth(w) > room) {
            out.push(line);
            line = w;
        } else line = line ? `${line} ${w}` : w;
    }
    out.push(line);
    return out;
}

function breakWord(w: string, room: number): string[] {
    const out: string[] = [];
    let rest = [...w];
    while (rest.length > room) {
        const head = rest.slice(0, room);
        let cut = Math.max(head.lastIndexOf("+"), head.lastIndexOf(","), head.lastIndexOf("/")) + 1;
        if (cut <= 0) cut = room;
        out.push(rest.slice(0, cut).join(""));
        rest = rest.slice(cut);
    }
    if (rest.length) out.push(rest.join(""));
    return out;
}
