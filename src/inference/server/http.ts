import { EddyError, oneLine } from "../../util/errors.js";

/**
 * HTTP to one OpenAI-compatible server, and only to it: every URL is the base URL given plus a fixed
 * relative path (or the server's own root for llama-server's /props and /health), never an address a
 * response names. The API key comes from the environment and goes only into the Authorization header.
 */

/** Environment variables an API key is read from, first set wins (never stored, never printed). */
export const API_KEY_VARIABLES = ["EDDY_API_KEY", "OPENAI_API_KEY"] as const;

export function apiKeyFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
    for (const v of API_KEY_VARIABLES) if (env[v]) return env[v];
    return undefined;
}

/** A checked base URL: http(s), no credentials, no query; trailing slashes dropped. One line when it is not. */
export function parseBaseUrl(raw: string): URL {
    let url: URL;
    try {
        url = new URL(raw);
    } catch {
        throw new EddyError(`--base-url '${raw}' is not a URL (give the server's OpenAI-compatible address, e.g. http://127.0.0.1:8080/v1)`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new EddyError(`--base-url must be http:// or https:// (got '${url.protocol}')`);
    // A key in the URL would be stored with the run: keys come from the environment only.
    if (url.username || url.password) throw new EddyError(`--base-url must not carry credentials; put the API key in ${API_KEY_VARIABLES[0]}`);
    if (url.search || url.hash) throw new EddyError(`--base-url must not carry a query or fragment (got '${raw}')`);
    url.pathname = url.pathname.replace(/\/+$/, "");
    return url;
}

/** A failed exchange: `transient` ones (connection refused or reset, 429, 502–504, a cut body) are worth asking again. */
export class ServerError extends EddyError {
    constructor(
        message: string,
        readonly transient: boolean,
        readonly status?: number
    ) {
        super(message);
    }
}

const TRANSIENT_STATUS = new Set([408, 429, 502, 503, 504]);

export interface HttpReply {
    status: number;
    body: unknown;
}

/** One JSON exchange. `path` is relative to the base URL, or absolute from the server's root when it starts with "/". */
export async function exchange(base: URL, path: string, init: { method?: "GET" | "POST"; body?: unknown; signal?: AbortSignal; timeoutMs?: number; apiKey?: string | undefined }): Promise<HttpReply> {
    const url = new URL(base.href);
    url.pathname = path.startsWith("/") ? path : `${base.pathname}/${path}`;
    const where = `${url.origin}${url.pathname}`;
    const headers: Record<string, string> = { accept: "application/json" };
    if (init.body !== undefined) headers["content-type"] = "application/json";
    if (init.apiKey) headers.authorization = `Bearer ${init.apiKey}`;
    const timeout = AbortSignal.timeout(init.timeoutMs ?? 600_000);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    let res: Response;
    try {
        res = await fetch(url, { method: init.method ?? "GET", headers, signal, redirect: "error", ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) });
    } catch (err) {
        if (init.signal?.aborted) throw err;
        if (timeout.aborted) throw new ServerError(`${where}: no answer within ${Math.round((init.timeoutMs ?? 600_000) / 1000)} s`, true);
        throw new ServerError(`cannot reach ${where}: ${connectionCause(err)}`, true);
    }
    let text: string;
    try {
        text = await res.text();
    } catch (err) {
        if (init.signal?.aborted) throw err;
        // The connection dropped mid-body (a server killed while answering): nothing was received, ask again.
        throw new ServerError(`${where}: the answer was cut off (${connectionCause(err)})`, true);
    }
    const type = res.headers.get("content-type") ?? "";
    let body: unknown;
    try {
        body = text === "" ? undefined : JSON.parse(text);
    } catch {
        if (res.ok) throw new ServerError(`${where} answered a body that is not JSON (${type || "no content type"}, ${text.length} bytes${preview(text)})`, false, res.status);
        body = undefined;
    }
    if (!res.ok) {
        const message = errorMessage(body) ?? (type.includes("html") ? `an HTML page${htmlTitle(text)}` : preview(text).replace(/^: /, "") || "no body");
        throw new ServerError(`${where} answered HTTP ${res.status}: ${message}`, TRANSIENT_STATUS.has(res.status), res.status);
    }
    return { status: res.status, body };
}

/** The OpenAI-style `{"error": {"message": …}}` (or `{"error": "…"}`, `{"detail": …}`) of an error reply. */
function errorMessage(body: unknown): string | undefined {
    if (!body || typeof body !== "object") return undefined;
    const b = body as Record<string, unknown>;
    const e = b.error ?? b.detail ?? b.message;
    if (typeof e === "string") return oneLine(e).slice(0, 300);
    if (e && typeof e === "object" && typeof (e as Record<string, unknown>).message === "string") return oneLine((e as Record<string, unknown>).message).slice(0, 300);
    return undefined;
}

function htmlTitle(text: string): string {
    const m = /<title>([^<]{1,120})<\/title>/i.exec(text);
    return m ? ` ('${m[1]!.trim()}')` : "";
}

/** A short, printable look at a body (never more than a line). */
function preview(text: string): string {
    const t = text.replace(/[^\x20-\x7e]+/g, " ").trim();
    return t ? `: ${t.slice(0, 80)}${t.length > 80 ? "…" : ""}` : "";
}

/** What underlies fetch's "fetch failed": ECONNREFUSED, ECONNRESET, a DNS failure, a cut socket. */
function connectionCause(err: unknown): string {
    let e: unknown = err;
    for (let i = 0; i < 4 && e && typeof e === "object"; i++) {
        const o = e as { code?: unknown; cause?: unknown; message?: unknown };
        if (typeof o.code === "string" && o.code !== "UND_ERR_SOCKET") return o.code === "ECONNREFUSED" ? "connection refused (is the server running?)" : o.code;
        if (o.cause === undefined) break;
        e = o.cause;
    }
    return oneLine(e instanceof Error ? e.message : err);
}
