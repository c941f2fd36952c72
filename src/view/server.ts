import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { CSP_HEADER, servedCsp } from "../report/page.js";
import { html } from "../report/safeHtml.js";
import { openStore, type Store } from "../store/Store.js";
import { EddyError, isEddyError, oneLine } from "../util/errors.js";
import { NotFound, type PageContext } from "./context.js";
import { viewerPage } from "./layout.js";
import { warmLeaderboard } from "./pages/leaderboard.js";
import { route } from "./routes.js";
import { RunDataCache } from "./runData.js";
import { leaderboardUrl } from "./urls.js";

/** The loopback address the viewer listens on unless told otherwise. */
export const LOOPBACK = "127.0.0.1";

/** Options of {@link startViewer}. */
export interface ViewerOptions {
    db: string;
    /** Address to listen on (default the loopback address). */
    host?: string;
    /** Port (0: any free one). */
    port: number;
    /** Score the newest run before listening (default true). */
    warm?: boolean;
}

/** A running viewer: its URL, and how to stop it. */
export interface Viewer {
    url: string;
    host: string;
    port: number;
    server: Server;
    close(): Promise<void>;
}

/** True for an address only this machine can reach. */
export function isLoopback(host: string): boolean {
    return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Headers of every answer: the page's policy, no sniffing, no referrer, no caching (a running study changes). */
function securityHeaders(res: ServerResponse): void {
    res.setHeader(CSP_HEADER, servedCsp());
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Referrer-Policy", "no-referrer");
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Cross-Origin-Opener-Policy", "same-origin");
    res.setHeader("Cross-Origin-Resource-Policy", "same-origin");
    res.setHeader("X-Frame-Options", "DENY");
}

/**
 * Serves the store at `db` read-only (`eddy view`): the database is opened read-only once and read
 * afresh on every request (WAL: a running study's committed answers show on reload); nothing is
 * written, nothing is fetched from the network, every page is inert HTML (no script; see page.ts).
 */
export async function startViewer(o: ViewerOptions): Promise<Viewer> {
    const host = o.host ?? LOOPBACK;
    const store = openStore(o.db, { readonly: true });
    const runs = new RunDataCache(store);
    // The newest run is scored before the URL is given, so the first look at it does not wait for its scores.
    const newest = store.getRun("latest");
    try {
        if (newest && o.warm !== false) runs.get(newest.id);
    } catch {
        // its page says what is wrong when it is asked for
    }
    // And the leaderboard, the first page: every run's rows (the newest's from the data just scored).
    try {
        if (o.warm !== false) warmLeaderboard(store, runs);
    } catch {
        // the leaderboard says what is wrong when it is asked for
    }
    // Headers up to 64 KiB (a long search in the URL is answered with a page saying so, not refused unread); longer
    // ones, and requests that do not parse, get a page too, never a bare status line.
    const server = createServer({ maxHeaderSize: 64 * 1024 }, (req, res) => {
        handle(store, runs, host, req, res).catch((err: unknown) => {
            if (!res.headersSent) send(res, 500, errorPage("Internal error", oneLine(err)));
            else res.end();
        });
    });
    server.on("clientError", (err: NodeJS.ErrnoException, socket) => {
        // Only a request too large is answered here; anything else (a reset, an idle keep-alive connection timing
        // out) is what Node does without this listener: a bare 400 to a request that does not parse, else close.
        if (!socket.writable || err.code === "ECONNRESET") return socket.destroy();
        if (err.code !== "HPE_HEADER_OVERFLOW") {
            if (err.code?.startsWith("HPE_")) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
            else socket.destroy();
            return;
        }
        const status = 431;
        const tooLarge = true;
        const body = errorPage("Request too large", "The address (with its search text) is longer than this viewer reads: search for a shorter text.");
        const headers = [
            `Content-Type: text/html; charset=utf-8`,
            `Content-Length: ${Buffer.byteLength(body)}`,
            `${CSP_HEADER}: ${servedCsp()}`,
            "X-Content-Type-Options: nosniff",
            "Referrer-Policy: no-referrer",
            "Cache-Control: no-store",
            "X-Frame-Options: DENY",
            "Connection: close"
        ];
        socket.end(`HTTP/1.1 ${status} ${tooLarge ? "Request Header Fields Too Large" : "Bad Request"}\r\n${headers.join("\r\n")}\r\n\r\n${body}`);
    });
    try {
        await new Promise<void>((resolve, reject) => {
            server.once("error", reject);
            server.listen(o.port, host, () => {
                server.off("error", reject);
                resolve();
            });
        });
    } catch (err) {
        store.close();
        const code = (err as { code?: string }).code;
        if (code === "EADDRINUSE") throw new EddyError(`port ${o.port} on ${host} is in use: pick another with --port (0: any free port)`, 69, { cause: err });
        if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") throw new EddyError(`cannot listen on ${host}: no such address on this machine`, 69, { cause: err });
        if (code === "EACCES") throw new EddyError(`not allowed to listen on port ${o.port} (ports below 1024 need privileges): pick another with --port`, 77, { cause: err });
        throw err;
    }
    const port = (server.address() as AddressInfo).port;
    const shown = host.includes(":") ? `[${host}]` : host;
    return {
        url: `http://${shown}:${port}/`,
        host,
        port,
        server,
        close: () =>
            new Promise<void>((resolve) => {
                server.close(() => {
                    store.close();
                    resolve();
                });
                server.closeAllConnections();
            })
    };
}

async function handle(store: Store, runs: RunDataCache, host: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    securityHeaders(res);
    if (req.method !== "GET" && req.method !== "HEAD") {
        res.setHeader("Allow", "GET, HEAD");
        return send(res, 405, errorPage("Method not allowed", "The viewer only reads: GET and HEAD."));
    }
    // A page on another site cannot read the viewer by pointing its own name at 127.0.0.1 (DNS rebinding):
    // on the loopback address only requests naming a loopback host are answered.
    const hostHeader = (req.headers.host ?? "").replace(/:\d+$/, "").replace(/^\[(.*)\]$/, "$1");
    if (isLoopback(host) && !isLoopback(hostHeader)) return send(res, 421, errorPage("Misdirected request", "This viewer answers only requests to its loopback address."));
    const url = new URL(req.url ?? "/", `http://${LOOPBACK}`);
    const found = route(url.pathname);
    if (!found) return send(res, 404, errorPage("Not found", `No view at ${url.pathname}.`));
    const ctx: PageContext = { store, runs, url, params: found.params };
    try {
        const result = await found.page(ctx);
        if ("redirect" in result) {
            res.statusCode = 303;
            res.setHeader("Location", result.redirect);
            res.end();
            return;
        }
        send(res, result.status ?? 200, result.html, req.method === "HEAD");
    } catch (err) {
        if (err instanceof NotFound) return send(res, 404, errorPage("Not found", err.message));
        if (isEddyError(err)) return send(res, 400, errorPage("Cannot show this", oneLine(err.message)));
        throw err;
    }
}

function send(res: ServerResponse, status: number, body: string, head = false): void {
    res.statusCode = status;
    res.setHeader("Content-Type", "text/html; charset=utf-8");
    res.setHeader("Content-Length", Buffer.byteLength(body));
    res.end(head ? undefined : body);
}

function errorPage(title: string, message: string): string {
    return viewerPage(title, [["leaderboard", leaderboardUrl()], [title]], html`<section><h2>${title}</h2><p>${message}</p></section>`);
}
