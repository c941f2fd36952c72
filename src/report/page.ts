import { createHash } from "node:crypto";
import { html, raw, type HtmlValue } from "./safeHtml.js";

/**
 * The one HTML page every report is rendered into: it owns the Content-Security-Policy and the
 * shared stylesheet, so no feature can weaken the policy or drift in look. A page is inert by
 * default (nothing loads, nothing runs) whatever a model wrote: defence in depth behind the escaping.
 */

/** The stylesheet every report shares; a feature adds only rules for its own classes ({@link PageOptions.css}). */
export const PAGE_CSS = `
:root{--fg:#1d2330;--muted:#5b6475;--line:#e3e6ec;--bg:#f6f7f9;--accent:#2457c5}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
header{background:#1d2330;color:#fff;padding:18px 32px}
header h1{margin:0;font-size:20px;font-weight:600}
header p{margin:4px 0 0;color:#c5cad6;font-size:13px}
nav{position:sticky;top:0;z-index:2;background:#fff;border-bottom:1px solid var(--line);padding:8px 32px;display:flex;gap:18px;flex-wrap:wrap}
nav a{color:var(--accent);text-decoration:none;font-size:13px}
main{max-width:1280px;margin:0 auto;padding:8px 32px 48px}
section,details.template{scroll-margin-top:44px}
section{background:#fff;border:1px solid var(--line);border-radius:8px;padding:16px 20px;margin:18px 0}
h2{font-size:17px;margin:0 0 10px}
h3{font-size:14px;margin:16px 0 6px}
small{color:var(--muted);font-weight:normal}
p.note{color:var(--muted);font-size:12.5px;margin:6px 0}
table{border-collapse:collapse;font-size:12.5px;margin:6px 0;width:auto}
th,td{border-bottom:1px solid var(--line);padding:4px 10px;text-align:left;vertical-align:top}
th{background:#fafbfc;font-weight:600}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tbody tr:hover{background:#f3f6fd}
.scroll{overflow-x:auto}
.chart svg{max-width:100%;height:auto}
details{margin:6px 0}details>summary{cursor:pointer}
pre{background:#272c36;color:#e8eaf0;padding:10px 12px;border-radius:6px;overflow:auto;font-size:12px;max-height:320px}
.muted{color:var(--muted)}
.bad{color:#c62828;font-weight:700}.good{color:#2e7d32;font-weight:700}
`;

/** Policy of a page without script: nothing may load or run; inline styles and data: images only. */
const BASE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

export interface PageOptions {
    title: string;
    /** The page's markup inside <body> (escaped by `html` where it was built). */
    body: HtmlValue;
    /** Rules for the feature's own classes, appended to {@link PAGE_CSS}. */
    css?: string;
    /**
     * One inline script, allowed by its SHA-256 hash in the policy (no 'unsafe-inline' for scripts).
     * No report uses one today; a page without it can run nothing.
     */
    script?: string;
    /** A page served by `eddy view`: its policy also limits forms and <base> (see {@link servedCsp} for the header). */
    served?: boolean;
}

/**
 * Served pages (`eddy view`) also have forms (filters, search) and links within the server: forms may
 * submit only to it, and no <base> may redirect the page's relative links.
 */
const SERVED_CSP = "; form-action 'self'; base-uri 'none'";

/** The header a server sends the policy in (`eddy view`); named here, beside the policy it carries. */
export const CSP_HEADER = "Content-Security-Policy";

/** The Content-Security-Policy of a page, with the hash of its one script when it has one. */
export function pageCsp(script?: string, opts: { served?: boolean } = {}): string {
    const base = opts.served ? BASE_CSP + SERVED_CSP : BASE_CSP;
    if (script === undefined) return base;
    return `${base}; script-src 'sha256-${createHash("sha256").update(script, "utf8").digest("base64")}'`;
}

/** The policy as an HTTP header of a served page: as the page's own, and no other site may frame it (a header-only directive). */
export function servedCsp(script?: string): string {
    return `${pageCsp(script, { served: true })}; frame-ancestors 'none'`;
}

/** A complete, self-contained HTML document. */
export function renderPage(o: PageOptions): string {
    const css = o.css ? PAGE_CSS + o.css : PAGE_CSS;
    // A script's text cannot be escaped as HTML; refuse the one sequence that would end the element early.
    if (o.script !== undefined && /<\/script/i.test(o.script)) throw new Error("an inline script may not contain '</script'");
    return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${pageCsp(o.script, { served: o.served === true })}"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${o.title}</title><style>${raw(css)}</style></head><body>
${o.body}
${o.script !== undefined ? html`<script>${raw(o.script)}</script>` : ""}</body></html>
`.value;
}
