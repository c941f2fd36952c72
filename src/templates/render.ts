import type { ParamValue } from "../vocabulary.js";

/** `{{ name }}` placeholders in question text. */
export const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The names of every placeholder in a question, in order of first use. */
export function placeholderNames(question: string): string[] {
    return [...new Set([...question.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

/**
 * Text in a question that opens or closes a placeholder without being one: `{{start elements`, `{{ n }`,
 * `{{2x}}`, a stray `}}`. Whatever is left after the well-formed placeholders are taken out and still holds
 * `{{` or `}}`, shown up to the next 20 characters.
 */
export function malformedPlaceholders(question: string): string[] {
    const out: string[] = [];
    // An opening `{{` up to its first `}` or `}}`, or up to 20 characters of the line it starts.
    const rest = question.replace(PLACEHOLDER, "\u0000").replace(/\{\{[^\u0000\n{}]*(\}\}|\})?/g, (m, close: string | undefined) => {
        out.push(close ? m : m.slice(0, 22).trimEnd());
        return "\u0000";
    });
    // A closing `}}` that opens nothing, with the word before it.
    for (const m of rest.matchAll(/[^\u0000\s]{0,20}\}\}/g)) out.push(m[0]);
    return [...new Set(out)];
}

/** A value written as Python source: `[1, 'a', True]`. Strings use Python's repr quoting. */
export function pythonLiteral(value: ParamValue): string {
    if (Array.isArray(value)) return `[${value.map(pythonLiteral).join(", ")}]`;
    if (typeof value === "boolean") return value ? "True" : "False";
    if (typeof value === "number") return String(value);
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    const body = [...value]
        .map((ch) => {
            if (ch === "\\") return "\\\\";
            if (ch === quote) return "\\" + ch;
            if (ch === "\n") return "\\n";
            if (ch === "\t") return "\\t";
            if (ch === "\r") return "\\r";
            return ch;
        })
        .join("");
    return quote + body + quote;
}

/** How a value reads inside a question: strings as-is (a character reads as itself), everything else as a Python literal. */
export function questionText(value: ParamValue): string {
    return typeof value === "string" ? value : pythonLiteral(value);
}

/** Substitutes every `{{name}}` with its value; the loader has already checked that each name is a parameter. */
export function renderQuestion(question: string, bindings: Record<string, ParamValue>): string {
    return question.replace(PLACEHOLDER, (whole, name: string) => {
        const value = bindings[name];
        return value === undefined ? whole : questionText(value);
    });
}
