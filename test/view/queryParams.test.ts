/**
 * Issue #47: every query parameter of the viewer is checked (a 4xx with a page, never a 500); page numbers read
 * as they are shown (`?page=2` is "page 2"); a page past the end says how many answers there are; a search too
 * long for the viewer is a page saying so, not a bare 431.
 */
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startViewer, type Viewer } from "../../src/view/server.js";
import { sampleStudy } from "../report/sample.js";
import { writeOutcomes } from "../report/storeFixture.js";

describe("the viewer's query parameters", () => {
    let dir: string;
    let viewer: Viewer;
    let total = 0;
    beforeAll(async () => {
        dir = mkdtempSync(path.join(tmpdir(), "eddy-view-params-"));
        const db = path.join(dir, "eddy.db");
        const outcomes = sampleStudy();
        total = outcomes.length;
        writeOutcomes(db, outcomes);
        viewer = await startViewer({ db, port: 0, warm: false });
    });
    afterAll(async () => {
        await viewer?.close();
        rmSync(dir, { recursive: true, force: true });
    });
    const get = async (url: string) => {
        const r = await fetch(viewer.url.replace(/\/$/, "") + url);
        const text = (await r.text()).replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
        return { status: r.status, text, csp: r.headers.get("content-security-policy") };
    };

    it("a value its filter cannot take is a 400 page naming it, never a 500", async () => {
        for (const [url, says] of [
            ["/answers?page=1e400", /'page' must be a page number from 1/],
            ["/answers?page=0", /'page' must be a page number from 1/],
            ["/answers?page=-2", /'page' must be a page number from 1/],
            ["/answers?page=2.5", /'page' must be a page number/],
            ["/answers?page=abc", /'page' must be a page number/],
            ["/answers?config=1e400", /'config' must be a whole number/],
            ["/answers?instance=x", /'instance' must be a whole number/],
            ["/answers?temperature=NaN", /'temperature' must be a number/],
            ["/answers?run=" + "r".repeat(500), /'run' is 500 characters long; at most 200/],
            ["/answers?q=" + "x".repeat(5000), /the search text is 5000 characters long; at most 1000/]
        ] as const) {
            const r = await get(url);
            expect(r.status, url).toBe(400);
            expect(r.text, url).toMatch(says);
            expect(r.text).toMatch(/<!doctype html>/i);
        }
    });

    it("page numbers read as shown, with the total on the last page and past the end", async () => {
        const pages = Math.ceil(total / 50);
        expect(pages).toBeGreaterThan(2);
        const two = await get("/answers?page=2");
        expect(two.status).toBe(200);
        expect(two.text).toMatch(/page 2, answers 51–100/);
        expect(two.text).toMatch(/href="\/answers\?page=3"[^>]*>next|rel="next" href="\/answers\?page=3"/);
        expect(two.text).toMatch(/rel="prev" href="\/answers"/);
        const last = await get(`/answers?page=${pages}`);
        expect(last.text).toMatch(new RegExp(`page ${pages} of ${pages}, answers ${(pages - 1) * 50 + 1}–${total} of ${total}`));
        const past = await get(`/answers?page=${pages + 5}`);
        expect(past.status).toBe(404);
        expect(past.text).toMatch(new RegExp(`No answers on page ${pages + 5}: ${total} answers match, on ${pages} pages`));
        expect(past.text).toMatch(new RegExp(`href="/answers\\?page=${pages}">the last page`));
    });

    it("a 20,000-character search is a page saying it is too long; a 70,000-character one a 431 page, not a bare status", async () => {
        const long = await get("/answers?q=" + "y".repeat(20_000));
        expect(long.status).toBe(400);
        expect(long.text).toMatch(/the search text is 20000 characters long/);
        // Beyond what the server reads at all: answered with a page and the viewer's policy.
        const url = new URL(viewer.url);
        const raw = await new Promise<{ status: number; body: string; csp: string | undefined }>((resolve, reject) => {
            const req = http.get({ host: url.hostname, port: url.port, path: "/answers?q=" + "z".repeat(70_000) }, (res) => {
                let body = "";
                res.on("data", (c: Buffer) => (body += c.toString()));
                res.on("end", () => resolve({ status: res.statusCode ?? 0, body, csp: res.headers["content-security-policy"] as string | undefined }));
            });
            req.on("error", reject);
        });
        expect(raw.status).toBe(431);
        expect(raw.body).toMatch(/Request too large.*search for a shorter text/s);
        expect(raw.csp).toBeTruthy();
    });
});
