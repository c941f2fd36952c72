/**
 * HTML built by a tagged template that escapes by default: every interpolated value is text
 * (`& < > " '` escaped) unless it is itself a {@link SafeHtml} (the result of `html\`…\`` or of
 * {@link raw}). Model output, oracle details, labels and file names therefore cannot become markup
 * by a forgotten call: forgetting gives escaped text, never injection. Attributes must be quoted
 * in the template (`title="${x}"`), which the escaping of both quote kinds makes safe.
 * Hand-written (20 lines): the maintained libraries for this pull in a DOM or a framework.
 */
export class SafeHtml {
    constructor(readonly value: string) {}
    toString(): string {
        return this.value;
    }
}

/** What may be interpolated: text (escaped), numbers, SafeHtml (as is), nothing (empty), or lists of these. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text escaped for HTML element content and quoted attribute values. */
export function escapeHtml(s: string): string {
    return s.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

function render(v: HtmlValue): string {
    if (v instanceof SafeHtml) return v.value;
    if (v === null || v === undefined || v === false) return "";
    if (Array.isArray(v)) return v.map(render).join("");
    return escapeHtml(String(v));
}

/** `html\`<p>${text}</p>\``: the markup of the template with every value escaped unless it is SafeHtml. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
    let out = strings[0]!;
    for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
    return new SafeHtml(out);
}

/**
 * Marks markup eddy itself produced as trusted: its own CSS, and SVG that vega renders (vega
 * escapes the data it writes into text and attributes). Never for text that came from a model,
 * an oracle or a file.
 */
export function raw(markup: string): SafeHtml {
    return new SafeHtml(markup);
}
