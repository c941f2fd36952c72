import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleStudy } from "../report/sample.js";
import { writeOutcomes } from "../report/storeFixture.js";
import { BIN, startView } from "./viewStore.js";
import { messageLines, unwrapMessages } from "../support/messages.js";

/** `eddy view` as a command: what it prints, what it refuses, and what it answers over HTTP. */
describe("eddy view (command line)", () => {
    let dir: string;
    let db: string;
    beforeAll(() => {
        dir = mkdtempSync(path.join(tmpdir(), "eddy-view-cli-"));
        db = path.join(dir, "eddy.db");
        writeOutcomes(db, sampleStudy());
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const fails = (args: string[]) => spawnSync(process.execPath, [BIN, "view", ...args], { encoding: "utf8", timeout: 30_000 });

    it("refuses bad input with one line and a non-zero exit", async () => {
        for (const [args, message] of [
            [["--db", db, "--port", "http"], /^eddy: --port must be a port number from 0 to 65535, got 'http'\n$/],
            [["--db", db, "--port", "70000"], /^eddy: --port must be a port number/],
            [["--db", path.join(dir, "none.db"), "--port", "0"], /^eddy: no database at .*none\.db/],
            [["--db", db, "--port", "0", "--host", "203.0.113.9"], /^eddy: cannot listen on 203\.0\.113\.9: no such address on this machine\n$/]
        ] as [string[], RegExp][]) {
            const r = fails(args);
            expect(r.status, args.join(" ")).not.toBe(0);
            expect(unwrapMessages(r.stderr)).toMatch(message);
            expect(messageLines(r.stderr)).toHaveLength(1);
        }
        // A port another process holds.
        const busy = createServer();
        await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
        const port = (busy.address() as AddressInfo).port;
        try {
            const r = fails(["--db", db, "--port", String(port)]);
            expect(r.status).not.toBe(0);
            expect(unwrapMessages(r.stderr)).toBe(`eddy: port ${port} on 127.0.0.1 is in use: pick another with --port (0: any free port)\n`);
        } finally {
            busy.close();
        }
    });

    it("listens on the loopback address, answers only reads, and only requests that name a loopback host", async () => {
        const v = await startView(db);
        try {
            expect(v.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
            expect(v.stderr()).toBe("");
            const ok = await fetch(v.url);
            expect(ok.status).toBe(200);
            expect(ok.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
            expect((await fetch(v.url, { method: "POST" })).status).toBe(405);
            expect((await fetch(`${v.url}run/nope`)).status).toBe(404);
            expect(await (await fetch(`${v.url}run/nope`)).text()).toContain("no run &#39;nope&#39;");
            // A page on another site that points its own name at 127.0.0.1 (DNS rebinding) gets nothing.
            const { request } = await import("node:http");
            const status = await new Promise<number>((resolve, reject) =>
                request(v.url, { headers: { host: "attacker.example:80" } }, (res) => {
                    res.resume();
                    resolve(res.statusCode ?? 0);
                })
                    .on("error", reject)
                    .end()
            );
            expect(status).toBe(421);
        } finally {
            v.proc.kill("SIGTERM");
        }
        const code = await new Promise<number | null>((resolve) => v.proc.once("exit", resolve));
        expect(code).toBe(0);
    });

    it("says so when told to listen beyond the loopback address", async () => {
        const v = await startView(db, ["--host", "0.0.0.0"]);
        try {
            expect(v.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/$/);
            await new Promise((r) => setTimeout(r, 200));
            expect(v.stderr()).toMatch(/listening on 0\.0\.0\.0, not the loopback address: anyone who can reach this machine/);
        } finally {
            v.proc.kill("SIGTERM");
        }
    });
});
