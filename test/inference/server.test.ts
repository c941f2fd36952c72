import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureTinyModels } from "../../src/inference/gguf/tinyModel.js";
import { normalizeStudyConfig } from "../../src/run/config.js";
import { BIN, cleanTmp, ROOT, tmpDir } from "../run/helpers.js";
import { sharedModelsDir } from "../run/sharedModels.js";
import { unwrapMessages } from "../support/messages.js";
import { freePort, llamaServerBinary, startLlamaServer, type RunningServer } from "./llamaServer.js";
import { execa } from "execa";
import { runOnQueue } from "../../src/queue/runOnQueue.js";
import { HAS_REDIS, startRedis } from "../queue/redisServer.js";
import { built } from "../support/queueBuilt.js";

/**
 * The server backend against a real llama-server, built from the llama.cpp source node-llama-cpp ships (the
 * release the llama backend runs), and against small real HTTP servers on loopback that misbehave the ways a
 * server can (an error page, a body that is not JSON, a body cut off).
 */

afterAll(cleanTmp);
const tiny = ensureTinyModels();
const binary = llamaServerBinary();
if ("missing" in binary) console.warn(`[eddy] skipping the llama-server tests: ${binary.missing}`);
const models = sharedModelsDir();
const stories = models ? path.join(models, "stories260K.gguf") : undefined;
const SLOW = 300_000;
const exec = promisify(execFile);
/** Built: a llama backend's worker process runs compiled eddy, as the CLI's does (from src/ it would start under tsx). */
const { runStudy } = await built<typeof import("../../src/run/runStudy.js")>("run/runStudy.js");

/** The eddy CLI to completion; never throws. */
async function eddy(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
        const r = await exec(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env }, maxBuffer: 64 << 20 });
        return { code: 0, stdout: r.stdout, stderr: r.stderr };
    } catch (err) {
        const e = err as { code: number; stdout: string; stderr: string };
        return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
}

/** The `eddy:` lines of stderr that are neither warnings nor the line naming the run it opened. */
const errorLines = (stderr: string): string[] => unwrapMessages(stderr).split("\n").filter((l) => l.startsWith("eddy:") && !l.startsWith("eddy: warning:") && !/^eddy: run \S+ \(database /.test(l));

/** Responses of a database by query, in plan order. */
function responses(db: string, runId?: string): { key: string; response: string; stop: string }[] {
    const d = new Database(db, { readonly: true });
    try {
        return (
            d
                .prepare(
                    `SELECT g.template_id || '|' || g.instance_idx || '|' || g.round AS key, g.response, g.stop_reason AS stop FROM generations g
                     JOIN configurations c ON c.id = g.config_id WHERE (? IS NULL OR c.run_id = ?) ORDER BY g.template_id, g.instance_idx, g.round`
                )
                .all(runId ?? null, runId ?? null) as { key: string; response: string; stop: string }[]
        );
    } finally {
        d.close();
    }
}

function metadataOf(db: string, runId: string): Record<string, unknown> {
    const d = new Database(db, { readonly: true });
    try {
        return JSON.parse((d.prepare("SELECT metadata_json FROM configurations WHERE run_id = ?").get(runId) as { metadata_json: string }).metadata_json);
    } finally {
        d.close();
    }
}

function generationsSoFar(db: string): number {
    if (!existsSync(db)) return 0;
    try {
        const d = new Database(db, { readonly: true, timeout: 5000 });
        try {
            return (d.prepare("SELECT COUNT(*) AS n FROM generations").get() as { n: number }).n;
        } finally {
            d.close();
        }
    } catch {
        return 0;
    }
}

const SHAPE = { templates: "list_every_kth,string_anagram_plus", instances: 2, rounds: 2, maxTokens: 24, seed: 3, judgeWorkers: 1 };

describe.skipIf("missing" in binary)("a real llama-server (one slot, one thread)", () => {
    let server: RunningServer;
    beforeAll(async () => {
        server = await startLlamaServer((binary as { path: string }).path, { model: tiny.f32, slots: 1, threads: 1, contextSize: 1024 });
    }, SLOW);
    afterAll(async () => server?.stop());

    it("a study through the server backend: every query answered once, with what the server reports recorded and the mode it earned", async () => {
        const db = path.join(tmpDir(), "served.db");
        const r = await runStudy(normalizeStudyConfig({ ...SHAPE, backend: "server", baseUrl: server.baseUrl, models: ["eddy-tiny-f32"], db }), { judge: false });
        // Not judged here (judge: false), so the run stays open; every query has its response.
        expect(r.stats.generation).toMatchObject({ responses: 8, errors: 0, cached: 0 });
        const rows = responses(db, r.runId);
        const keys = ["list_every_kth", "string_anagram_plus"].flatMap((t) => [0, 1].flatMap((i) => [0, 1].map((round) => `${t}|${i}|${round}`)));
        expect(rows.map((x) => x.key)).toEqual(keys);
        expect(rows.every((x) => ["eos", "max_tokens"].includes(x.stop))).toBe(true);
        const meta = metadataOf(db, r.runId);
        expect(meta).toMatchObject({ backend: "server", scheduling: "remote", mode: "reproducible", promptFormat: "server-chat-template", concurrency: 1 });
        expect(meta.server).toMatchObject({ engine: "llama-server", modelPath: tiny.f32, slots: 1, contextSize: 1024, baseUrl: `${server.baseUrl}` });
        expect(String((meta.server as Record<string, unknown>).build)).toMatch(/^b\d+-/);
        // The same study again: every answer from the response cache, keyed by what the server reports it serves.
        const again = await runStudy(normalizeStudyConfig({ ...SHAPE, backend: "server", baseUrl: server.baseUrl, models: ["eddy-tiny-f32"], db, fresh: true }), { judge: false });
        expect(again.stats.generation).toMatchObject({ responses: 8, cached: 8 });
    }, SLOW);

    it("at T = 0 with one slot and the completions endpoint, the same responses as the llama backend with --group-size 1 on the same release", async () => {
        const db = path.join(tmpDir(), "same.db");
        const common = { ...SHAPE, promptFormat: "plain-completion", db };
        const served = await runStudy(normalizeStudyConfig({ ...common, backend: "server", baseUrl: server.baseUrl, models: ["eddy-tiny-f32"] }), { judge: false });
        const local = await runStudy(normalizeStudyConfig({ ...common, models: [tiny.f32], groupSize: 1, threads: 1 }), { judge: false });
        expect([served.stats.generation.errors, local.stats.generation.errors]).toEqual([0, 0]);
        const a = responses(db, served.runId);
        const b = responses(db, local.runId);
        expect(a).toHaveLength(8);
        expect(a.map((x) => [x.response, x.stop])).toEqual(b.map((x) => [x.response, x.stop]));
    }, SLOW);

    it.skipIf(!HAS_REDIS)("a queued study (--queue) through the server backend: the worker asks the study's server and stores what a one-process run stores", async () => {
        const dir = tmpDir();
        const redis = await startRedis("eddy-test-pw");
        // No --base-url on the worker: the coordinator tells it where the study's model is served.
        const worker = execa(process.execPath, [BIN, "worker", "--queue", redis.url, "--judge-workers", "1", "--node", "w1", "--lock-ms", "1500"], { reject: false, env: { ...process.env, TMPDIR: dir } });
        try {
            const config = (db: string) => normalizeStudyConfig({ ...SHAPE, backend: "server", baseUrl: server.baseUrl, models: ["eddy-tiny-f32"], db });
            const queued = path.join(dir, "queued.db");
            const r = await runOnQueue(config(queued), redis.url, { progress: false });
            expect(r.shards).toBe(2); // 1 model × 2 templates × 1 temperature × 1 wrapper
            expect(Object.values(r.nodes).reduce((n, x) => n + x.answers, 0)).toBe(8);
            const local = path.join(dir, "local.db");
            await runStudy(config(local), { judge: false });
            expect(responses(queued).map((x) => [x.key, x.response, x.stop])).toEqual(responses(local).map((x) => [x.key, x.response, x.stop]));
            // The shards' answers carry the served model's identity, checked against the one the coordinator read from the server.
            const meta = metadataOf(queued, r.runId);
            expect(meta).toMatchObject({ backend: "server", mode: "reproducible" });
            expect((meta.server as Record<string, unknown>).baseUrl).toBe(server.baseUrl);
        } finally {
            worker.kill("SIGTERM");
            await worker;
            await redis.stop();
        }
    }, SLOW);

    it("eddy generate --backend server asks the served model once, and answers as the llama backend does at T = 0 on the completions endpoint", async () => {
        const ask = ["generate", "--prompt", "Write add(a, b).", "--max-tokens", "8", "--prompt-format", "plain-completion", "--json"];
        const served = await eddy([...ask, "--backend", "server", "--base-url", server.baseUrl, "--model", "eddy-tiny-f32"]);
        expect(served.code, served.stderr).toBe(0);
        const out = JSON.parse(served.stdout);
        expect(out.metadata).toMatchObject({ backend: "server", promptFormat: "plain-completion", concurrency: 1 });
        const local = JSON.parse((await eddy([...ask, "--model", tiny.f32, "--threads", "1", "--context-size", "1024"])).stdout);
        expect([out.result.text, out.result.generatedTokens]).toEqual([local.result.text, local.result.generatedTokens]);
        // The plain output names what answered, in the backend's words.
        const plain = await eddy(["generate", "--prompt", "Write add(a, b).", "--max-tokens", "4", "--backend", "server", "--base-url", server.baseUrl, "--model", "eddy-tiny-f32"]);
        expect(plain.stdout).toMatch(/^served model: \S*eddy-tiny-f32\.gguf, mode reproducible, prompt format server-chat-template, seed \d+$/m);
        // What the backend needs is asked for by the backend, in one line.
        const noUrl = await eddy(["generate", "--prompt", "x", "--backend", "server", "--model", "eddy-tiny-f32"]);
        expect([noUrl.code !== 0, errorLines(noUrl.stderr)]).toEqual([true, ["eddy: --backend server needs --base-url http://HOST:PORT/v1"]]);
    }, SLOW);

    it("eddy models list --base-url and eddy doctor --base-url show what the server offers", async () => {
        const list = await eddy(["models", "list", "--base-url", server.baseUrl]);
        expect(list.code, list.stderr).toBe(0);
        expect(list.stdout).toMatch(new RegExp(`^llama-server at ${server.baseUrl}/? \\(build b\\d+-\\w+, model file ${tiny.f32.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}, slots 1, context per slot 1024\\)`));
        expect(list.stdout).toContain("reproducible: yes: llama-server with one slot decodes one request at a time");
        expect(list.stdout).toContain(tiny.f32);
        const json = JSON.parse((await eddy(["models", "list", "--base-url", server.baseUrl, "--json"])).stdout);
        expect(json).toMatchObject({ engine: "llama-server", facts: { slots: 1 }, models: [{ id: tiny.f32, contextSize: 1024 }], reproducible: { known: true } });
        const doctor = await eddy(["doctor", "--json", "--base-url", server.baseUrl]);
        expect(JSON.parse(doctor.stdout).server).toMatchObject({ engine: "llama-server", models: [{ id: tiny.f32 }] });
        // What the llama backend checks on this machine is still in the report, as its descriptor names it.
        expect(JSON.parse(doctor.stdout)).toMatchObject({ gpuWouldUse: expect.any(String), llamaCppRelease: expect.any(String), threads: { chosen: expect.any(Number) } });
        expect(doctor.stdout).not.toContain("llama.cpp check failed");
        const plain = await eddy(["doctor", "--base-url", server.baseUrl]);
        expect(plain.stdout).toMatch(/^would use +\S+/m);
        expect(plain.stdout).toMatch(/^server +llama-server at /m);
    }, SLOW);

    it("eddy audit determinism --backend server measures the same requests alone and in company: one slot answers them the same", async () => {
        const db = path.join(tmpDir(), "audit.db");
        const r = await eddy(["audit", "determinism", "--backend", "server", "--base-url", server.baseUrl, "--model", "eddy-tiny-f32", "-t", "list_every_kth", "-M", "2", "-R", "2", "--max-tokens", "16", "--concurrency", "3", "--db", db, "--json"]);
        expect(r.code, r.stderr).toBe(0);
        const audit = JSON.parse(r.stdout);
        expect(audit).toMatchObject({ model: "eddy-tiny-f32", mode: "reproducible", identical: true, settings: { sequences: [1, 1, 3] } });
        expect(audit.comparisons.map((c: { variant: string; responses: number; differingResponses: number }) => [c.variant, c.responses, c.differingResponses])).toEqual([["repeat", 4, 0], ["concurrency=3", 4, 0]]);
        // A flag of another scheduling is one line.
        const wrong = await eddy(["audit", "determinism", "--backend", "server", "--base-url", server.baseUrl, "--model", "eddy-tiny-f32", "--groups", "2", "--db", db]);
        expect(errorLines(wrong.stderr)).toEqual(["eddy: --groups does not apply here: with --backend server, what runs at once is compared with --concurrency"]);
    }, SLOW);

    it("a wrong model name, a wrong URL and a server that is down are one eddy: line each", async () => {
        const dir = tmpDir();
        let n = 0;
        // A database each: a failed run of the same settings would be continued (and say so) by the next.
        const base = (): string[] => ["run", "--backend", "server", "-t", "list_every_kth", "-M", "1", "-R", "1", "--max-tokens", "4", "--db", path.join(dir, `bad-${n++}.db`)];
        const wrongModel = await eddy([...base(), "--base-url", server.baseUrl, "--model", "no-such-model"]);
        expect(wrongModel.code).not.toBe(0);
        expect(errorLines(wrongModel.stderr)).toEqual([expect.stringMatching(new RegExp(`^eddy: the server at ${server.baseUrl}\\S* serves no model 'no-such-model' \\(it serves: .*eddy-tiny-f32\\.gguf\\)`))]);
        // Nothing stored for it: no failed, empty run left in the list.
        const listed = await eddy(["runs", "list", "--json", "--db", path.join(dir, "bad-0.db")]);
        expect(listed.code === 0 ? JSON.parse(listed.stdout) : listed.stderr).toEqual([]);
        const wrongUrl = await eddy([...base(), "--base-url", `http://127.0.0.1:${server.port}/api`, "--model", "eddy-tiny-f32"]);
        expect(errorLines(wrongUrl.stderr)).toEqual([expect.stringMatching(/^eddy: http:\/\/127\.0\.0\.1:\d+\/api has no models list \(\/api\/models answered 404\)/)]);
        const down = await eddy([...base(), "--base-url", `http://127.0.0.1:${await freePort()}/v1`, "--model", "eddy-tiny-f32"]);
        expect(errorLines(down.stderr)).toEqual([expect.stringMatching(/^eddy: cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/models: connection refused \(is the server running\?\)$/)]);
        const noUrl = await eddy([...base(), "--model", "eddy-tiny-f32"]);
        expect(errorLines(noUrl.stderr)).toEqual(["eddy: --backend server needs --base-url http://HOST:PORT/v1"]);
        expect([wrongUrl.code, down.code, noUrl.code].every((c) => c !== 0)).toBe(true);
    }, SLOW);
});

describe.skipIf("missing" in binary || !stories)("llama-server on stories260K, a real trained model", () => {
    it("at T = 0 with one slot and the completions endpoint, the same responses and stop reasons as the llama backend with --group-size 1 over 160 tokens", async () => {
        const server = await startLlamaServer((binary as { path: string }).path, { model: stories!, slots: 1, threads: 1, contextSize: 1024 });
        try {
            const db = path.join(tmpDir(), "stories-same.db");
            // 160 tokens: identical. At 480, 10 of 12 are; one prompt (both rounds) turns at character 474 (README, "Served models").
            // Two instances of each template, two rounds: 8 answers (what makes them part is their length, not how many there are).
            const common = { ...SHAPE, instances: 2, maxTokens: 160, promptFormat: "plain-completion", db };
            const served = await runStudy(normalizeStudyConfig({ ...common, backend: "server", baseUrl: server.baseUrl, models: ["stories260K"] }), { judge: false });
            const local = await runStudy(normalizeStudyConfig({ ...common, models: [stories!], groupSize: 1, threads: 1, contextSize: 1024 }), { judge: false });
            const a = responses(db, served.runId);
            const b = responses(db, local.runId);
            expect(a).toHaveLength(8);
            expect(a.map((x) => [x.key, x.response, x.stop])).toEqual(b.map((x) => [x.key, x.response, x.stop]));
            // Real text, not a few tokens of noise.
            expect(a.reduce((n, x) => n + x.response.length, 0)).toBeGreaterThan(8 * 100);
            process.stderr.write(`[eddy] stories260K served vs in-process: ${a.length} responses identical; stop reasons ${JSON.stringify(Object.entries(a.reduce<Record<string, number>>((m, x) => ({ ...m, [x.stop]: (m[x.stop] ?? 0) + 1 }), {})))}\n`);
        } finally {
            await server.stop();
        }
    }, SLOW);

    it("killed with kill -9 mid-study and started again: the study waits, goes on, and finishes with nothing lost, duplicated or invented (the answers of an undisturbed run)", async () => {
        const port = await freePort();
        const bin = (binary as { path: string }).path;
        let server = await startLlamaServer(bin, { model: stories!, port, slots: 1, threads: 1 });
        const dir = tmpDir();
        const db = path.join(dir, "killed.db");
        // 8 queries of up to 200 tokens (about a third of a second each here): the kill lands after the second is stored, mid-study,
        // with six still to come (the server's decoding, done twice, is most of this test's CPU).
        const shape = ["-t", "list_every_kth,string_anagram_plus", "-M", "2", "-R", "2", "--max-tokens", "200", "--seed", "5"];
        const args = ["run", "--backend", "server", "--base-url", server.baseUrl, "--model", "stories260K", ...shape, "--retry-for", "120", "--db", db];
        try {
            const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
            let stderr = "";
            child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
            const done = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
            // Some answers stored, then the server dies without a word and comes back on the same port.
            const deadline = Date.now() + 120_000;
            while (generationsSoFar(db) < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
            const before = generationsSoFar(db);
            expect(before).toBeGreaterThanOrEqual(2);
            expect(before).toBeLessThan(8);
            await server.kill9();
            await new Promise((r) => setTimeout(r, 1500));
            server = await startLlamaServer(bin, { model: stories!, port, slots: 1, threads: 1 });
            expect(await done, stderr).toBe(0);
            const rows = responses(db);
            expect(rows).toHaveLength(8);
            expect(new Set(rows.map((r) => r.key)).size).toBe(8);
            expect(rows.every((r) => r.response.length > 0 && r.stop !== "error")).toBe(true);
            // The same study on the server undisturbed: the same answers (one slot at T = 0 is reproducible).
            const clean = await eddy(["run", "--backend", "server", "--base-url", server.baseUrl, "--model", "stories260K", ...shape, "--db", path.join(dir, "clean.db"), "--no-cache"]);
            expect(clean.code, clean.stderr).toBe(0);
            expect(responses(path.join(dir, "clean.db"))).toEqual(rows);
        } finally {
            await server.stop();
        }
    }, SLOW);
});

describe.skipIf("missing" in binary || !stories)("a served run resumed", () => {
    it("a server gone for good stops the run with one line and keeps its answers; resumed against the same model at another address, it finishes; another model is refused", async () => {
        const bin = (binary as { path: string }).path;
        const dir = tmpDir();
        const db = path.join(dir, "resumed.db");
        // 6 queries of up to 200 tokens: the server dies after the second is stored, and the resume has the rest to do.
        const shape = ["-t", "list_every_kth", "-M", "3", "-R", "2", "--max-tokens", "200", "--seed", "9", "--db", db];
        let server = await startLlamaServer(bin, { model: stories!, slots: 1, threads: 1 });
        try {
            const child = spawn(process.execPath, [BIN, "run", "--backend", "server", "--base-url", server.baseUrl, "--model", "stories260K", ...shape, "--retry-for", "2"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
            let stderr = "";
            child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
            const done = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
            const deadline = Date.now() + 120_000;
            while (generationsSoFar(db) < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
            await server.kill9();
            expect(await done).not.toBe(0);
            expect(errorLines(stderr)).toEqual([expect.stringMatching(/^eddy: cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: connection refused \(is the server running\?\) \(still failing after 2 s of retries; what was answered is kept: resume when the server is back\); run \S+ kept everything so far: fix that, then resume with:$/)]);
            const kept = responses(db);
            expect(kept.length).toBeGreaterThanOrEqual(2);
            expect(kept.length).toBeLessThan(6);
            const d = new Database(db, { readonly: true });
            const runId = (d.prepare("SELECT id FROM runs").get() as { id: string }).id;
            d.close();
            // The resume hint names the server's address: a resume needs it, and the run does not store it.
            expect(stderr).toContain(`resume with:\n  eddy run --resume ${runId} --base-url ${server.baseUrl} --db ${db}\n`);
            // Another model served under the same name is refused: what the server reports is the model's identity.
            server = await startLlamaServer(bin, { model: tiny.f32, slots: 1, threads: 1, alias: "stories260K" });
            const other = await eddy(["run", "--resume", runId, "--base-url", server.baseUrl, "--db", db]);
            expect(other.code).not.toBe(0);
            expect(errorLines(other.stderr).at(-1)).toMatch(/changed since run \S+ began \(sha256 differs\)/);
            expect(responses(db)).toEqual(kept);
            await server.stop();
            // The same model on another port: the address is operational, the served model's identity is what is checked.
            server = await startLlamaServer(bin, { model: stories!, slots: 1, threads: 1 });
            const resumed = await eddy(["run", "--resume", runId, "--base-url", server.baseUrl, "--db", db]);
            expect(resumed.code, resumed.stderr).toBe(0);
            const rows = responses(db);
            expect(rows).toHaveLength(6);
            expect(new Set(rows.map((r) => r.key)).size).toBe(6);
            expect(rows.filter((r) => kept.some((k) => k.key === r.key))).toEqual(kept);
        } finally {
            await server.stop();
        }
    }, SLOW);
});

/** A real HTTP server on loopback that lists one model and answers completions with `answer`. */
async function misbehaving(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void, seen: { auth: string[] } = { auth: [] }): Promise<{ url: string; close(): Promise<void>; seen: { auth: string[] } }> {
    const s = http.createServer((req, res) => {
        seen.auth.push(String(req.headers.authorization ?? ""));
        if (req.url === "/v1/models") {
            res.writeHead(200, { "content-type": "application/json" });
            res.end(JSON.stringify({ object: "list", data: [{ id: "m", object: "model", owned_by: "someone" }] }));
            return;
        }
        answer(req, res);
    });
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
    const port = (s.address() as AddressInfo).port;
    return { url: `http://127.0.0.1:${port}/v1`, seen, close: () => new Promise((r) => { s.closeAllConnections(); s.close(() => r()); }) };
}

describe("servers that misbehave: one eddy: line each, nothing stored as an answer", () => {
    const base = (url: string, db: string) => ["run", "--backend", "server", "--base-url", url, "--model", "m", "-t", "list_every_kth", "-M", "1", "-R", "1", "--max-tokens", "4", "--retry-for", "1", "--db", db];

    it("an HTTP error page, a body that is not JSON, a reply without choices, a body cut off", async () => {
        const cases: [string, (req: http.IncomingMessage, res: http.ServerResponse) => void, RegExp][] = [
            ["error page", (_q, res) => { res.writeHead(500, { "content-type": "text/html" }); res.end("<html><head><title>500 Internal Server Error</title></head><body>oops</body></html>"); }, /^eddy: http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions answered HTTP 500: an HTML page \('500 Internal Server Error'\)$/],
            ["not JSON", (_q, res) => { res.writeHead(200, { "content-type": "application/json" }); res.end("{\"choices\": [{\"message\": "); }, /^eddy: http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions answered a body that is not JSON \(application\/json, \d+ bytes: \{"choices": \[\{"message":\)$/],
            ["no choices", (_q, res) => { res.writeHead(200, { "content-type": "application/json" }); res.end(JSON.stringify({ object: "chat.completion", choices: [] })); }, /^eddy: http:\/\/127\.0\.0\.1:\d+\/v1 answered without choices\[0\]\.message\.content \(not an OpenAI-compatible completion\)$/],
            ["cut off", (_q, res) => { res.writeHead(200, { "content-type": "application/json", "content-length": "500" }); res.write("{\"choices\": [{\"message\": {\"content\": \"def f"); setTimeout(() => res.socket?.destroy(), 20); }, /^eddy: http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: the answer was cut off \(.*\) \(still failing after 1 s of retries; what was answered is kept: resume when the server is back\)$/]
        ];
        for (const [what, answer, line] of cases) {
            const srv = await misbehaving(answer);
            const db = path.join(tmpDir(), `${what.replace(/ /g, "-")}.db`);
            try {
                const r = await eddy(base(srv.url, db));
                expect(r.code, what).not.toBe(0);
                expect(errorLines(r.stderr), what).toEqual([expect.stringMatching(line)]);
                expect(generationsSoFar(db), what).toBe(0);
            } finally {
                await srv.close();
            }
        }
    }, SLOW);

    it("at most --concurrency requests are in flight; a busy server (429, 503) is asked again and every answer is stored once", async () => {
        let inFlight = 0;
        let most = 0;
        const attempts = new Map<string, number>();
        const srv = await misbehaving((req, res) => {
            let body = "";
            req.on("data", (b: Buffer) => (body += b.toString()));
            req.on("end", () => {
                const n = (attempts.get(body) ?? 0) + 1;
                attempts.set(body, n);
                // Each request is refused twice (busy, then loading) before it is answered.
                if (n <= 2) {
                    res.writeHead(n === 1 ? 429 : 503, { "content-type": "application/json" });
                    res.end(JSON.stringify({ error: { code: n === 1 ? 429 : 503, message: n === 1 ? "too many requests" : "Loading model" } }));
                    return;
                }
                inFlight++;
                most = Math.max(most, inFlight);
                setTimeout(() => {
                    inFlight--;
                    const seed = (JSON.parse(body) as { seed: number }).seed;
                    res.writeHead(200, { "content-type": "application/json" });
                    res.end(JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content: `answer for seed ${seed}` }, finish_reason: "stop" }], usage: { prompt_tokens: 3, completion_tokens: 4 } }));
                }, 150);
            });
        });
        const db = path.join(tmpDir(), "busy.db");
        try {
            const r = await eddy(["run", "--backend", "server", "--base-url", srv.url, "--model", "m", "-t", "list_every_kth", "-M", "4", "-R", "2", "--max-tokens", "4", "--concurrency", "3", "--retry-for", "30", "--db", db]);
            expect(r.code, r.stderr).toBe(0);
            expect(most).toBe(3);
            const rows = responses(db);
            expect(rows).toHaveLength(8);
            expect(new Set(rows.map((x) => x.key)).size).toBe(8);
            // Each answer is the one its own request was given (seeds differ per query), none made up.
            expect(rows.every((x) => /^answer for seed \d+$/.test(x.response))).toBe(true);
            expect(new Set(rows.map((x) => x.response)).size).toBe(8);
            expect([...attempts.values()].every((n) => n === 3)).toBe(true);
        } finally {
            await srv.close();
        }
    }, SLOW);

    it("an API key comes from the environment, reaches the server as a bearer token, and is never stored or printed", async () => {
        const key = "sk-eddy-test-7f3a";
        const srv = await misbehaving((_q, res) => {
            res.writeHead(200, { "content-type": "application/json" });
            res.end(JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content: "```python\ndef f():\n    return 1\n```" }, finish_reason: "length" }], usage: { prompt_tokens: 5, completion_tokens: 4 } }));
        });
        const db = path.join(tmpDir(), "key.db");
        try {
            const r = await eddy([...base(srv.url, db), "--json"], { EDDY_API_KEY: key });
            expect(r.code, r.stderr).toBe(0);
            expect(srv.seen.auth.every((a) => a === `Bearer ${key}`) && srv.seen.auth.length >= 2).toBe(true);
            expect(r.stdout + r.stderr).not.toContain(key);
            const d = new Database(db, { readonly: true });
            const dump = JSON.stringify([d.prepare("SELECT * FROM runs").all(), d.prepare("SELECT * FROM configurations").all()]);
            d.close();
            expect(dump).not.toContain(key);
            // finish_reason "length" is a truncated answer.
            expect(responses(db).map((x) => x.stop)).toEqual(["max_tokens"]);
        } finally {
            await srv.close();
        }
    }, SLOW);
});
