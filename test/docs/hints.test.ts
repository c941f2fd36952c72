import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureTinyModels } from "../../src/inference/gguf/tinyModel.js";
import { commandLine } from "../../src/util/commandLine.js";
import { BIN, cleanTmp, countRows, ROOT, tmpDir } from "../run/helpers.js";
import { unwrapMessages } from "../support/messages.js";

/**
 * First contact: every hint eddy prints is run exactly as printed (in a fresh shell, from the folder
 * the user was in, with `eddy` on PATH as `npm link` puts it), and a fresh machine's missing pieces
 * are named by what is missing.
 */

afterAll(cleanTmp);
const tiny = ensureTinyModels();
let shim = "";
/** A store holding one complete reference study (list_every_kth, 2 instances, 1 round), made once: see {@link studyAt}. */
let study = "";

beforeAll(() => {
    shim = tmpDir("eddy-shim-");
    writeFileSync(path.join(shim, "eddy"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(path.join(shim, "eddy"), 0o755);
    const made = tmpDir("eddy-study-");
    const r = sh("eddy run --backend reference --templates list_every_kth --instances 2 --rounds 1 --db s.db --no-progress", made);
    expect(r.code, r.out).toBe(0);
    // Closed cleanly: the whole store is the one file.
    expect(readdirSync(made)).toEqual(["s.db"]);
    study = path.join(made, "s.db");
});

/**
 * `db` (under `cwd`) as `eddy run --backend reference --templates list_every_kth --instances 2 --rounds 1 --db <db>
 * --no-progress` leaves it (its folder made as eddy makes one, owner-only): a copy of the one study made above, for
 * the tests that only need a study there to read, refuse or add to (each its own copy).
 */
function studyAt(cwd: string, db: string): void {
    mkdirSync(path.dirname(path.join(cwd, db)), { recursive: true, mode: 0o700 });
    copyFileSync(study, path.join(cwd, db));
}

const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
    const { EDDY_DB: _db, ...rest } = process.env;
    return { ...rest, PATH: `${shim}:${process.env.PATH ?? ""}`, ...extra };
};

/** Run a printed command line in bash, from `cwd`, as the user would paste it. */
function sh(command: string, cwd: string, extra: Record<string, string> = {}): { code: number | null; out: string } {
    const r = spawnSync("bash", ["-c", command], { cwd, env: env(extra), encoding: "utf8", timeout: 240_000 });
    // Messages wrap at 100 columns: read each as one line (a command on a line of its own stays as it is).
    return { code: r.status, out: unwrapMessages(`${r.stdout}${r.stderr}`) };
}

/** {@link sh} without blocking this process (a test's own HTTP server must answer meanwhile). */
function shAsync(command: string, cwd: string): Promise<{ code: number | null; out: string }> {
    return new Promise((resolve) => {
        const p = spawn("bash", ["-c", command], { cwd, env: env(), stdio: ["ignore", "pipe", "pipe"] });
        let out = "";
        p.stdout!.on("data", (b) => (out += String(b)));
        p.stderr!.on("data", (b) => (out += String(b)));
        p.once("exit", (code) => resolve({ code, out: unwrapMessages(out) }));
    });
}

/** The commands a message tells the user to run: a line `  eddy …` right after a line ending in ':'. */
function printedCommands(text: string): string[] {
    const lines = text.split("\n");
    return lines.flatMap((l, i) => (i > 0 && /:\s*$/.test(lines[i - 1]!) && /^ {2}eddy /.test(l) ? [l.trim()] : []));
}

/** Commands quoted in prose: 'eddy …'. */
function quotedCommands(text: string): string[] {
    return [...text.matchAll(/'(eddy [^']+)'/g)].map((m) => m[1]!);
}

/** Rows of `table` so far (0 while the database is not there or is busy). */
function rows(db: string, table: string): number {
    try {
        return existsSync(db) ? countRows(db, table) : 0;
    } catch {
        return 0;
    }
}

/** The status column of every row of `table` (runs, loop_runs), or none while the database is busy. */
function statusOf(db: string, table: string): string[] {
    try {
        return runStatus(db, table);
    } catch {
        return [];
    }
}

/** The status column of every row of `table` (runs, loop_runs). */
function runStatus(db: string, table: string): string[] {
    const d = new Database(db, { readonly: true });
    try {
        return (d.prepare(`SELECT status FROM ${table}`).all() as { status: string }[]).map((r) => r.status);
    } finally {
        d.close();
    }
}

/** Wait until `ready()` or the process exits. */
async function until(p: ChildProcess, ready: () => boolean): Promise<void> {
    while (p.exitCode === null && !ready()) await new Promise((r) => setTimeout(r, 30));
}

function exitOf(p: ChildProcess): Promise<number | null> {
    return new Promise((r) => (p.exitCode !== null ? r(p.exitCode) : p.once("exit", (c) => r(c))));
}

/** Start eddy with `args` in `cwd`, press Ctrl-C once `ready()`, and collect what it printed. */
async function interruptAfter(args: string[], cwd: string, ready: () => boolean): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const p = spawn(process.execPath, [BIN, ...args], { cwd, env: env(), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    p.stdout!.on("data", (b) => (stdout += String(b)));
    p.stderr!.on("data", (b) => (stderr += String(b)));
    await until(p, ready);
    // Ctrl-C must land mid-study for the test to mean anything: if the study ended first, say so.
    expect(p.exitCode, `the study ended before Ctrl-C could land:\n${stderr}`).toBe(null);
    p.kill("SIGINT");
    const code = await exitOf(p);
    return { code, stdout, stderr };
}

/** What the loopback server does with one request: answer it (the model list, or one chat reply), or fail it. */
type Reply = "answer" | { status: number; type: string; body: string };
const MODELS = JSON.stringify({ object: "list", data: [{ id: "m", object: "model", owned_by: "someone" }] });
const CHAT = JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content: "```python\ndef f():\n    return 1\n```" }, finish_reason: "stop" }], usage: { prompt_tokens: 3, completion_tokens: 4 } });

/** A real OpenAI-compatible loopback server serving model `m`: `decide` says what each request gets; closed after `use`. */
async function withServer(decide: (url: string, body: string) => Reply, use: (url: string) => Promise<void>): Promise<void> {
    const server = http.createServer((req, res) => {
        let body = "";
        req.on("data", (b: Buffer) => (body += b.toString()));
        req.on("end", () => {
            const r = decide(req.url ?? "", body);
            if (r === "answer") {
                res.writeHead(200, { "content-type": "application/json" });
                res.end(req.url === "/v1/models" ? MODELS : CHAT);
                return;
            }
            res.writeHead(r.status, { "content-type": r.type });
            res.end(r.body);
        });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    try {
        await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
    } finally {
        await new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => r());
        });
    }
}

describe("hints run as printed", () => {
    it("Ctrl-C: the resume hint names the --db the run was started with, and resumes it as printed", async () => {
        const cwd = tmpDir("eddy-hint-");
        // 128 queries (about 2 s of generation here): the first rows are stored 250 ms after the first
        // answer, so Ctrl-C lands with most of the run left even on a loaded machine (with 32 queries,
        // CI's Ctrl-C once landed after every answer was stored, and the resume had nothing to do).
        const args = ["run", "--model", tiny.f32, "--templates", "list_every_kth,math_count_coprime", "--instances", "8", "--rounds", "8", "--max-tokens", "48", "--context-size", "1024", "--threads", "1", "--sequences", "1", "--no-progress", "--db", "my studies/s.db"];
        const db = path.join(cwd, "my studies/s.db");
        const { code, stderr } = await interruptAfter(args, cwd, () => rows(db, "generations") >= 2);
        expect(code, stderr).toBe(130);
        expect(rows(db, "generations"), "Ctrl-C landed after every answer was stored: the resume below would test nothing").toBeLessThan(128);
        const hints = printedCommands(stderr);
        expect(hints, stderr).toHaveLength(1);
        expect(hints[0]).toContain(`--db '${db}'`);
        const r = sh(hints[0]!, cwd);
        expect(r.code, r.out).toBe(0);
        // Progress lines wrap at 100 columns in logs; read each as one line.
        const out = r.out.replace(/\n {4}(?=\S)/g, " ");
        // The resumed session's progress counts the whole run (128 planned), not only what was left.
        expect(out).toMatch(/^\[\S+\] generated 128\/128 .*done in/m);
        // The tiny model's answers are all truncated: none of them is a judged answer.
        expect(out).toMatch(/judged 0\/128 passed 0 \(128 truncated or judge_error\)/);
        const list = sh(`eddy runs list --db '${db}'`, cwd).out;
        expect(list).toMatch(/ complete +llama +128 +0\/0 /);
        expect(runStatus(db, "runs")).toEqual(["complete"]);
    });

    it("Ctrl-C in `eddy mutate run`: the hint continues the same mutation study, with its --db, as printed", async () => {
        const cwd = tmpDir("eddy-hint-");
        const embed = path.join(cwd, "eddy-tiny-embed"); // written on first use
        const args = ["mutate", "run", "-m", tiny.f32, "-t", "list_every_kth,math_count_coprime", "-M", "6", "-R", "1", "--embed-model", embed, "--threads", "1", "--max-tokens", "48", "--context-size", "1024", "--db", "my studies/m.db"];
        const db = path.join(cwd, "my studies/m.db");
        const { code, stderr, stdout } = await interruptAfter(args, cwd, () => rows(db, "generations") >= 2);
        expect(code, stderr).toBe(130);
        const hints = printedCommands(stderr);
        expect(hints, stderr).toEqual([`eddy mutate run --resume ${stdout.trim()} --db '${db}'`]);
        expect(runStatus(db, "runs")).toEqual(["interrupted"]);
        const r = sh(hints[0]!, cwd);
        expect(r.code, r.out).toBe(0);
        expect(runStatus(db, "runs")).toEqual(["complete"]);
        // The same study: no second run, and its report reads the whole of it.
        const report = sh(`eddy mutate report ${stdout.trim()} --db 'my studies/m.db'`, cwd);
        expect(report.code, report.out).toBe(0);
    });

    it("Ctrl-C in `eddy loop run`: the hint continues the same loop run, with its --db, as printed", async () => {
        const cwd = tmpDir("eddy-hint-");
        const args = ["loop", "run", "-m", tiny.f32, "-t", "list_every_kth,math_count_coprime", "-M", "16", "-N", "3", "--threads", "1", "--max-tokens", "48", "--context-size", "1024", "--db", "my studies/l.db"];
        const db = path.join(cwd, "my studies/l.db");
        // The tiny model's code fails at loop 1, so its loop run is one code phase: Ctrl-C lands inside it
        // (the run is marked running once the model is loaded; the phase is stored whole when it ends).
        const { code, stderr, stdout } = await interruptAfter(args, cwd, () => existsSync(db) && statusOf(db, "loop_runs").includes("running"));
        expect(code, stderr).toBe(130);
        const hints = printedCommands(stderr);
        expect(hints, stderr).toEqual([`eddy loop run --resume ${stdout.trim()} --db '${db}'`]);
        expect(runStatus(db, "loop_runs")).toEqual(["interrupted"]);
        const r = sh(hints[0]!, cwd);
        expect(r.code, r.out).toBe(0);
        expect(runStatus(db, "loop_runs")).toEqual(["complete"]);
        expect(sh(`eddy loop report ${stdout.trim()} --db 'my studies/l.db'`, cwd).code).toBe(0);
    });

    it("a second model's corrupt file stops a run holding the first's answers: the hint resumes it as printed once the file is fixed", () => {
        const cwd = tmpDir("eddy-hint-");
        writeFileSync(path.join(cwd, "a.gguf"), readFileSync(tiny.f32));
        writeFileSync(path.join(cwd, "b.gguf"), readFileSync(tiny.f32).subarray(0, 5000));
        const r = sh("eddy run -m a.gguf -m b.gguf --templates list_every_kth --instances 2 --rounds 1 --max-tokens 16 --threads 1 --no-progress --db 'my studies/s.db'", cwd);
        expect(r.code, r.out).toBe(1);
        expect(r.out).toMatch(/^eddy: truncated GGUF file: .*b\.gguf/m);
        const hints = printedCommands(r.out);
        expect(hints, r.out).toHaveLength(1);
        expect(hints[0]).toMatch(/^eddy run --resume \S+ --db '.*my studies\/s\.db'$/);
        const db = path.join(cwd, "my studies/s.db");
        expect(runStatus(db, "runs")).toEqual(["failed"]);
        expect(rows(db, "generations")).toBe(2);
        writeFileSync(path.join(cwd, "b.gguf"), readFileSync(tiny.f32));
        const again = sh(hints[0]!, cwd);
        expect(again.code, again.out).toBe(0);
        expect(runStatus(db, "runs")).toEqual(["complete"]);
        expect(rows(db, "generations")).toBe(4);
    });

    it("refusals that name a command: each runs as printed (with the --db the refused command had)", () => {
        const cwd = tmpDir("eddy-hint-");
        expect(sh("eddy loop run --backend reference -t list_every_kth -M 1 -N 1 --db 'my studies/l.db'", cwd).code).toBe(0);
        studyAt(cwd, "my studies/s.db");
        const refusals = [
            "eddy templates show nope",
            "eddy loop report nope --db 'my studies/l.db'",
            "eddy mutate report latest --db 'my studies/s.db'",
            "eddy run --backend reference --templates list_every_kth --instances 1 --rounds 1 --db n.db --no-progress --judge-workers 1"
        ];
        const ran: string[] = [];
        for (const refused of refusals) {
            const r = sh(refused, cwd, refused.startsWith("eddy run") ? { EDDY_JUDGE_NO_NAMESPACES: "1" } : {});
            expect(r.code, r.out).not.toBe(0);
            const hints = [...printedCommands(r.out), ...quotedCommands(r.out)];
            expect(hints.length, r.out).toBeGreaterThan(0);
            for (const hint of hints) {
                const h = sh(hint, cwd);
                expect(h.code, `${refused} → ${hint}:\n${h.out}`).toBe(0);
                ran.push(hint);
                // The loop runs listed are the ones in the refused command's database, as a table.
                if (hint.startsWith("eddy loop list")) expect(h.out).toMatch(/^loop run +created +status/);
            }
        }
        expect(ran).toEqual(expect.arrayContaining(["eddy templates list", "eddy mutate run --help", "eddy doctor"]));
        expect(ran.some((h) => /^eddy loop list --db '.*my studies\/l\.db'$/.test(h))).toBe(true);
    });

    it("Ctrl-C in `eddy quant`: the hint is the same command, quoted as a shell needs, and it continues the same run", async () => {
        const cwd = tmpDir("eddy-hint-");
        const args = ["quant", tiny.f32, tiny.q8_0, "--templates", "list_every_kth,math_count_coprime", "--instances", "4", "--rounds", "1", "--max-tokens", "24", "--threads", "1", "--no-progress", "--drift-texts", "0", "--json", "--db", "my studies/q.db", "--fresh"];
        const db = path.join(cwd, "my studies/q.db");
        const { code, stderr } = await interruptAfter(args, cwd, () => rows(db, "generations") >= 2);
        expect(code, stderr).toBe(130);
        const hints = printedCommands(unwrapMessages(stderr));
        // Exactly what was run, but --fresh (it would start another run rather than continue this one).
        expect(hints, stderr).toEqual([commandLine(args.filter((a) => a !== "--fresh"))]);
        expect(hints[0]).toContain("--db 'my studies/q.db'");
        const r = sh(hints[0]!, cwd);
        expect(r.code, r.out).toBe(0);
        expect(runStatus(db, "runs")).toEqual(["complete"]);
        expect(rows(db, "generations")).toBe(16);
    });

    it("a run whose queries failed (not stopped) names the same command, which asks them again as printed (a server's --base-url included)", async () => {
        // A real loopback server that refuses each request once (HTTP 400, a bad request: that query's failure, not the run's).
        const seen = new Map<string, number>();
        const decide = (url: string, body: string): Reply => {
            if (url === "/v1/models") return "answer";
            const n = (seen.get(body) ?? 0) + 1;
            seen.set(body, n);
            return n === 1 ? { status: 400, type: "application/json", body: JSON.stringify({ error: { code: 400, message: "unsupported parameter" } }) } : "answer";
        };
        await withServer(decide, async (url) => {
            const cwd = tmpDir("eddy-hint-");
            const first = await shAsync(`eddy run --backend server --base-url ${url} --model m -t list_every_kth -M 2 -R 1 --max-tokens 4 --no-progress --fresh --db 'my studies/s.db'`, cwd);
            expect(first.code, first.out).toBe(1);
            expect(first.out).toMatch(/generation failed for list_every_kth/);
            const hints = printedCommands(first.out);
            expect(hints, first.out).toEqual([`eddy run --backend server --base-url ${url} --model m -t list_every_kth -M 2 -R 1 --max-tokens 4 --no-progress --db 'my studies/s.db'`]);
            const db = path.join(cwd, "my studies/s.db");
            expect(runStatus(db, "runs")).toEqual(["interrupted"]);
            const again = await shAsync(hints[0]!, cwd);
            expect(again.code, again.out).toBe(0);
            // The same run, now whole.
            expect(runStatus(db, "runs")).toEqual(["complete"]);
            expect(rows(db, "generations")).toBe(2);
        });
    });

    it("a server that fails mid-run: the kept run's resume hint names the --base-url a resume needs (not stored with the run), and runs as printed", async () => {
        let answered = 0;
        let down = true;
        const decide = (url: string): Reply => {
            if (url === "/v1/models") return "answer";
            // The first answer is given; then the server breaks until the test mends it.
            if (answered >= 1 && down) return { status: 500, type: "text/plain", body: "broken" };
            answered++;
            return "answer";
        };
        await withServer(decide, async (url) => {
            const cwd = tmpDir("eddy-hint-");
            const first = await shAsync(`eddy run --backend server --base-url ${url} --model m -t list_every_kth -M 2 -R 1 --max-tokens 4 --retry-for 1 --no-progress --db 'my studies/s.db'`, cwd);
            expect(first.code, first.out).toBe(1);
            const hints = printedCommands(first.out);
            expect(hints, first.out).toHaveLength(1);
            expect(hints[0]).toMatch(new RegExp(`^eddy run --resume \\S+ --base-url ${url.replace(/[.]/g, "\\.")} --db '.*my studies/s\\.db'$`));
            const db = path.join(cwd, "my studies/s.db");
            expect(rows(db, "generations")).toBe(1);
            down = false;
            const again = await shAsync(hints[0]!, cwd);
            expect(again.code, again.out).toBe(0);
            expect(runStatus(db, "runs")).toEqual(["complete"]);
            expect(rows(db, "generations")).toBe(2);
        });
    });

    it("a database another process holds: the hint is the same command, and it runs as printed once the database is free", () => {
        const cwd = tmpDir("eddy-hint-");
        const db = path.join(cwd, "my studies/s.db");
        // Not a copy of the shared study: the same command on a complete run of the same plan continues that run.
        expect(sh("eddy run --backend reference --templates list_every_kth --instances 1 --rounds 1 --db 'my studies/s.db' --no-progress", cwd).code).toBe(0);
        const command = "eddy run --backend reference --templates list_every_kth --instances 2 --rounds 1 --db 'my studies/s.db' --no-progress";
        const holder = new Database(db);
        holder.exec("BEGIN EXCLUSIVE");
        let r: { code: number | null; out: string };
        try {
            r = sh(command, cwd, { EDDY_BUSY_TIMEOUT_MS: "200" });
        } finally {
            holder.exec("ROLLBACK");
            holder.close();
        }
        expect(r.code, r.out).toBe(75);
        expect(r.out).toMatch(/^eddy: database .*s\.db is locked by another process \(nothing was lost\); once it is free, run again:$/m);
        const hints = printedCommands(r.out);
        expect(hints, r.out).toEqual([command]);
        const again = sh(hints[0]!, cwd);
        expect(again.code, again.out).toBe(0);
        expect(runStatus(db, "runs")).toEqual(["complete", "complete"]);
    });

    it("a full disk: the hint is the same command, and once there is room it finishes the same run as printed", () => {
        const cwd = tmpDir("eddy-hint-");
        const db = path.join(cwd, "my studies/s.db");
        const command = "eddy run --backend reference --templates list_every_kth,math_count_coprime --instances 40 --rounds 2 --db 'my studies/s.db' --no-progress";
        // Room for the schema and the plan, not for all the answers.
        const r = sh(command, cwd, { EDDY_DB_MAX_PAGES: "40" });
        expect(r.code, r.out).toBe(74);
        expect(r.out).toMatch(/^eddy: database .*s\.db is full \(disk full\?\); everything committed before is kept: free space, then run again:$/m);
        const hints = printedCommands(r.out);
        expect(hints, r.out).toEqual([command]);
        const again = sh(hints[0]!, cwd);
        expect(again.code, again.out).toBe(0);
        expect(runStatus(db, "runs")).toEqual(["complete"]);
        expect(rows(db, "generations")).toBe(160);
    });

    it("a server still loading its model (HTTP 503): the hint is the same command, and it runs as printed once the server is ready", async () => {
        let ready = false;
        const loading: Reply = { status: 503, type: "application/json", body: JSON.stringify({ error: { code: 503, message: "Loading model" } }) };
        await withServer(() => (ready ? "answer" : loading), async (url) => {
            const cwd = tmpDir("eddy-hint-");
            // A short --retry-for: a served model waits out a transient 503 for that long, then says so.
            const command = `eddy run --backend server --base-url ${url} --model m -t list_every_kth -M 2 -R 1 --max-tokens 4 --retry-for 2 --no-progress --db 'my studies/s.db'`;
            const first = await shAsync(command, cwd);
            expect(first.code, first.out).toBe(1);
            expect(first.out).toMatch(/is not ready \(HTTP 503: still loading its model\?\) \(still failing after 2 s of retries; what was answered is kept\); once it is, run again:$/m);
            const hints = printedCommands(first.out);
            expect(hints, first.out).toEqual([command]);
            ready = true;
            const again = await shAsync(hints[0]!, cwd);
            expect(again.code, again.out).toBe(0);
            expect(runStatus(path.join(cwd, "my studies/s.db"), "runs")).toEqual(["complete"]);
        });
    });

    it("a reading command on a database that is not there names the study that makes one there, and it runs as printed", () => {
        const cwd = tmpDir("eddy-hint-");
        const db = path.join(cwd, "my studies/none.db");
        const r = sh("eddy report latest --db 'my studies/none.db'", cwd);
        expect(r.code, r.out).toBe(66);
        expect(r.out).toMatch(/^eddy: no database at .*none\.db \(give --db to read another\); this makes one there with a first study:$/m);
        const hints = printedCommands(r.out);
        expect(hints, r.out).toEqual([`eddy demo --db '${db}'`]);
        const made = sh(hints[0]!, cwd);
        expect(made.code, made.out).toBe(0);
        expect(sh("eddy report latest --db 'my studies/none.db'", cwd).code).toBe(0);
    });

    it("commander's own errors: one eddy line, and the help it names runs as printed", () => {
        const cwd = tmpDir("eddy-hint-");
        const r = sh("eddy runs list --dbx study.db", cwd);
        expect(r.code).toBe(1);
        expect(r.out).toMatch(/^eddy: unknown option '--dbx' \(did you mean --db\?\); see 'eddy runs list --help'\n$/);
        for (const c of quotedCommands(r.out)) expect(sh(c, cwd).code).toBe(0);
    });

    it("a run whose judge cannot start names the missing bwrap and the one command that installs it", () => {
        const cwd = tmpDir("eddy-hint-");
        const r = sh("eddy run --backend reference --templates list_every_kth --instances 2 --rounds 1 --db s.db --no-progress", cwd, { EDDY_BWRAP: "" });
        expect(r.code).not.toBe(0);
        expect(r.out).toMatch(/^eddy: no sandbox is possible here: bubblewrap \(bwrap\) is not installed;/m);
        // The command that installs it, on a line of its own (as root: apt-get itself; a fresh container has no sudo).
        expect(r.out).toMatch(new RegExp(`with:\\n {2}${process.getuid?.() === 0 ? "" : "sudo "}apt-get install -y bubblewrap\\n$`));
        expect(r.out).not.toMatch(/namespaces|npm run setup/);
    });

    it("mutate and loop with --embed-model models/eddy-tiny-embed need no `npm run models:tiny-embed` first", () => {
        // A fresh checkout's layout: the repository's files, an empty models/ folder.
        const cwd = tmpDir("eddy-fresh-");
        for (const entry of readdirSync(ROOT)) if (![".git", ".eddy", "models"].includes(entry)) symlinkSync(path.join(ROOT, entry), path.join(cwd, entry));
        mkdirSync(path.join(cwd, "models"));
        const r = sh("eddy mutate variants --wrapper default --embed-model models/eddy-tiny-embed", cwd);
        expect(r.code, r.out).toBe(0);
        expect(existsSync(path.join(cwd, "models/eddy-tiny-embed/onnx/model.onnx"))).toBe(true);
    });
});

describe("a fresh machine", () => {
    it("README's first paragraph links nothing outside the repository, and its first command is scripts/setup.sh", () => {
        const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
        const first = readme.split("\n\n")[1]!;
        expect(first).toMatch(/^eddy measures/);
        for (const [, target] of first.matchAll(/\]\(([^)]+)\)/g)) expect(target!.startsWith("#") || !path.relative(ROOT, path.resolve(ROOT, target!)).startsWith("..")).toBe(true);
        const firstCommand = /```bash\n([^\n]*)/.exec(readme)![1]!;
        expect(firstCommand).toMatch(/^scripts\/setup\.sh && npm start\b/);
    });

    it("scripts/setup.sh --check names what is missing and the one command that installs it", () => {
        // A PATH with everything the check looks for except bwrap.
        const bin = tmpDir("eddy-path-");
        for (const tool of ["sh", "python3", "g++", "make", "dirname", "id", "apt-get"]) {
            const where = execFileSync("bash", ["-c", `command -v ${tool}`], { encoding: "utf8" }).trim();
            symlinkSync(where, path.join(bin, tool));
        }
        const missing = spawnSync(path.join(ROOT, "scripts/setup.sh"), ["--check"], { env: { PATH: bin }, encoding: "utf8" });
        expect(missing.status).toBe(1);
        const sudo = process.getuid?.() === 0 ? "" : "sudo ";
        expect(missing.stderr).toBe(`eddy: missing: bubblewrap; install with: ${sudo}apt-get install -y bubblewrap\n`);
        // No apt-get: not a Debian/Ubuntu machine, and no command is made up for it.
        rmSync(path.join(bin, "apt-get"));
        const other = spawnSync(path.join(ROOT, "scripts/setup.sh"), ["--check"], { env: { PATH: bin }, encoding: "utf8" });
        expect(other.status).toBe(1);
        expect(other.stderr).toMatch(/^eddy: missing: bubblewrap; this is not a Debian\/Ubuntu machine \(no apt-get\)/);
        // The real machine (bubblewrap installed, as CI installs it): nothing missing.
        const here = spawnSync(path.join(ROOT, "scripts/setup.sh"), ["--check"], { encoding: "utf8" });
        expect(here.status, here.stderr).toBe(0);
    });
});

describe("leftovers and words", () => {
    it("a corrupt GGUF or a missing python3 leaves no failed run with 0 responses behind", () => {
        const cwd = tmpDir("eddy-left-");
        writeFileSync(path.join(cwd, "bad.gguf"), readFileSync(tiny.f32).subarray(0, 5000));
        const bad = sh("eddy run --model bad.gguf --templates list_every_kth --instances 1 --rounds 1 --db s.db --no-progress", cwd);
        expect(bad.code).toBe(1);
        expect(bad.out).toMatch(/^eddy: truncated GGUF file: /m);
        const nopy = sh("eddy run --backend reference --templates list_every_kth --instances 1 --rounds 1 --db s.db --no-progress", cwd, { EDDY_PYTHON: "/nonexistent/python3" });
        expect(nopy.code).toBe(1);
        expect(nopy.out).toMatch(/^eddy: \/nonexistent\/python3 not found/m);
        const list = sh("eddy runs list --db s.db", cwd);
        expect(list.out).toMatch(/^no runs in /);
        // A run with answers in it is kept whatever happens later.
        expect(sh("eddy run --backend reference --templates list_every_kth --instances 1 --rounds 1 --db s.db --no-progress", cwd).code).toBe(0);
        expect(sh("eddy runs list --db s.db", cwd).out).toMatch(/complete/);
    });

    it("'cannot open database' says why", () => {
        const cwd = tmpDir("eddy-left-");
        mkdirSync(path.join(cwd, "folder.db"));
        const r = sh("eddy run --backend reference --templates list_every_kth --instances 1 --rounds 1 --db folder.db --no-progress", cwd);
        expect(r.code).toBe(66);
        expect(r.out).toMatch(/^eddy: .*folder\.db is a folder, not a database file \(name a file, e\.g\. --db study\.db\)$/m);
    });

    it("reading commands read a database in a read-only folder (a read-only bind mount)", () => {
        const cwd = tmpDir("eddy-left-");
        studyAt(cwd, "ro/s.db");
        const ro = path.join(cwd, "ro");
        const inRo = (cmd: string) =>
            spawnSync("bwrap", ["--bind", "/", "/", "--ro-bind", ro, ro, "--dev", "/dev", "--proc", "/proc", "--chdir", cwd, "bash", "-c", cmd], { env: env(), encoding: "utf8" });
        for (const cmd of ["eddy runs list --db ro/s.db", "eddy report latest --db ro/s.db", "eddy export latest --db ro/s.db"]) {
            const r = inRo(cmd);
            expect(r.status, `${cmd}: ${r.stderr}`).toBe(0);
        }
        // Writing there is refused with why.
        const w = inRo("eddy run --backend reference --templates list_every_kth --instances 2 --rounds 1 --db ro/new.db --no-progress");
        expect(unwrapMessages(w.stderr)).toMatch(/^eddy: cannot open database .*new\.db: the folder .*ro is not writable/m);
    });

    it("doctor exits non-zero without python3; export says what it wrote; mutate variants has a header", () => {
        const cwd = tmpDir("eddy-left-");
        const doc = sh("eddy doctor --python /nonexistent/python3", cwd);
        expect(doc.code).toBe(1);
        expect(doc.out).toMatch(/^problem: \/nonexistent\/python3 not found/m);
        studyAt(cwd, "s.db");
        const ex = sh("eddy export latest --db s.db --format jsonl --out rows.jsonl", cwd);
        expect(ex.code).toBe(0);
        expect(ex.out).toBe("eddy: export written to rows.jsonl (jsonl, 2 rows, " + readFileSync(path.join(cwd, "rows.jsonl")).length + " bytes)\n");
        const v = sh(`eddy mutate variants --wrapper default --embed-model ${path.join(cwd, "eddy-tiny-embed")}`, cwd);
        expect(v.code, v.out).toBe(0);
        expect(v.out.split("\n")[0]).toMatch(/^variant +kept +cosine +operations$/);
    });
});

describe("whole counts", () => {
    it("a replay run missing a whole template: incomplete everywhere, and the report keeps the template as No data", () => {
        const cwd = tmpDir("eddy-whole-");
        const answers = [0, 1, 2].map((instance) => JSON.stringify({ template: "list_every_kth", instance, round: 0, response: "```python\ndef every_kth(values):\n    return values[::2]\n```" }));
        writeFileSync(path.join(cwd, "a.jsonl"), answers.join("\n") + "\n");
        const run = sh("eddy run --backend replay --replay a.jsonl --templates list_every_kth,list_rotate_right --instances 3 --rounds 1 --db s.db --no-progress", cwd);
        expect(run.code, run.out).toBe(0);
        expect(run.out).toMatch(/^run \S+: incomplete: 3 answers missing in /m);
        expect(sh("eddy runs list --db s.db", cwd).out).toMatch(/ incomplete +replay +3 \+3 missing /);
        expect(sh("eddy runs show latest --db s.db", cwd).out).toMatch(/^run \S+ {2}\(incomplete: 3 answers missing\)$/m);
        const report = sh("eddy report latest --db s.db", cwd).out;
        expect(report).toMatch(/^list_rotate_right +0 of 3 .*No data$/m);
        expect(report).toMatch(/ 3 of 6 /);
    });
});
