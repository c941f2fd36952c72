/**
 * Issue #47, data safety: eddy writes only into an empty file or an eddy store, reads a store without
 * creating or changing anything beside it, reads one in a read-only folder as any user, and says in one
 * `eddy:` line what a damaged, empty or foreign file is. Every case runs through the built CLI, as root
 * and as an ordinary user (nobody) on a chowned copy.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../src/store/schema.js";
import { messageLines } from "../support/messages.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "dist/cli/bin.js");
const asRoot = process.getuid?.() === 0;
const users: ("root" | "nobody")[] = asRoot && existsSync("/usr/sbin/runuser") ? ["root", "nobody"] : ["root"];
const made: string[] = [];
afterAll(() => {
    for (const d of made) rmSync(d, { recursive: true, force: true });
});

function freshDir(): string {
    const d = mkdtempSync(path.join(tmpdir(), "eddy-stores-"));
    chmodSync(d, 0o755);
    made.push(d);
    return d;
}

/** A home for both users (caches go there, never beside the stores under test). */
let homeDir = "";
function home(): string {
    if (!homeDir) {
        homeDir = freshDir();
        chmodSync(homeDir, 0o1777);
    }
    return homeDir;
}

interface Result {
    status: number | null;
    stdout: string;
    stderr: string;
}

/** The CLI as `who`, in `cwd`, with a clean environment. */
function eddy(who: "root" | "nobody", args: string[], cwd: string): Result {
    const env = ["PATH=/usr/bin:/bin", `HOME=${home()}`, "COLUMNS=100"];
    const command = ["env", "-i", ...env, process.execPath, bin, ...args];
    const [b, ...a] = who === "nobody" ? ["runuser", "-u", "nobody", "--", ...command] : command;
    const r = spawnSync(b!, a, { cwd, encoding: "utf8", timeout: 60_000 });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every file of a folder with its size, mode and sha256: what must not change. */
function snapshot(dir: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const f of readdirSync(dir).sort()) {
        const p = path.join(dir, f);
        const st = statSync(p);
        out[f] = `${st.size} ${(st.mode & 0o777).toString(8)} ${st.isFile() ? createHash("sha256").update(readFileSync(p)).digest("hex") : "dir"}`;
    }
    return out;
}

let good = "";

beforeAll(() => {
    const dir = freshDir();
    good = path.join(dir, "good.db");
    const r = eddy("root", ["run", "--backend", "reference", "--templates", "list_every_kth", "-M", "2", "-R", "1", "--judge-workers", "1", "--db", good], dir);
    expect(r.status, r.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual(["good.db"]);
}, 120_000);

/** The files that are not eddy stores, made in `dir`. */
function strangers(dir: string): Record<string, { code: number; says: RegExp }> {
    const foreign = new Database(path.join(dir, "foreign.db"));
    foreign.exec("CREATE TABLE notes(x); INSERT INTO notes VALUES (1)");
    foreign.close();
    const wal = new Database(path.join(dir, "walforeign.db"));
    wal.pragma("journal_mode = WAL");
    wal.exec("CREATE TABLE photos(x); CREATE TABLE albums(y); INSERT INTO photos VALUES (2)");
    wal.close();
    writeFileSync(path.join(dir, "empty.db"), "");
    writeFileSync(path.join(dir, "text.db"), "not a database at all\n".repeat(50));
    // An eddy store (WAL mode) whose data pages were overwritten: the header and schema read, the rows do not.
    copyFileSync(good, path.join(dir, "damaged.db"));
    const bytes = readFileSync(path.join(dir, "damaged.db"));
    for (let i = 4096 * 3; i < bytes.length; i++) bytes[i] = (i * 7919) & 0xff;
    writeFileSync(path.join(dir, "damaged.db"), bytes);
    for (const f of readdirSync(dir)) chmodSync(path.join(dir, f), 0o644);
    return {
        "foreign.db": { code: 65, says: /foreign\.db is not an eddy store: it is another program's SQLite database \(table notes\); eddy leaves it as it is/ },
        "walforeign.db": { code: 65, says: /walforeign\.db is not an eddy store: it is another program's SQLite database \(tables albums, photos\)/ },
        "empty.db": { code: 66, says: /empty\.db is empty, not an eddy store yet/ },
        "text.db": { code: 65, says: /text\.db is not an eddy store: it is not a SQLite database/ },
        "damaged.db": { code: 65, says: /damaged\.db is damaged \(database disk image is malformed\); eddy leaves it as it is: restore it from a copy/ }
    };
}

/** One `eddy:` message and nothing else on stderr: no stack, no internal error. */
function oneMessage(r: Result, says: RegExp): void {
    const lines = messageLines(r.stderr);
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^eddy: /);
    expect(lines[0]).toMatch(says);
    expect(r.stderr).not.toMatch(/internal error|SqliteError|\n\s+at /);
}

describe.each(users)("files that are not eddy stores, as %s", (who) => {
    it("reading commands say what the file is in one line, and leave it and its folder exactly as they were", () => {
        const dir = freshDir();
        const cases = strangers(dir);
        if (who === "nobody") execFileSync("chown", ["-R", "nobody", dir]);
        const before = snapshot(dir);
        for (const [file, want] of Object.entries(cases)) {
            const commands = file === "foreign.db" || file === "damaged.db" ? [["runs", "list"], ["report", "latest"], ["export", "latest"]] : [["runs", "list"]];
            for (const c of commands) {
                const r = eddy(who, [...c, "--db", path.join(dir, file)], dir);
                expect(r.status, `${c.join(" ")} ${file}: ${r.stderr}`).toBe(want.code);
                oneMessage(r, want.says);
            }
        }
        expect(snapshot(dir)).toEqual(before);
    }, 120_000);

    it("`eddy run` writes into none of them (an empty file is the one it may make a store of)", () => {
        const dir = freshDir();
        const cases = strangers(dir);
        rmSync(path.join(dir, "empty.db"));
        delete cases["empty.db"];
        if (who === "nobody") execFileSync("chown", ["-R", "nobody", dir]);
        const before = snapshot(dir);
        for (const [file, want] of Object.entries(cases)) {
            const r = eddy(who, ["run", "--backend", "reference", "--templates", "list_every_kth", "-M", "1", "-R", "1", "--db", path.join(dir, file)], dir);
            expect(r.status, `${file}: ${r.stderr}`).toBe(65);
            oneMessage(r, want.says);
        }
        expect(snapshot(dir)).toEqual(before);
        // An empty file becomes a store.
        writeFileSync(path.join(dir, "new.db"), "");
        if (who === "nobody") execFileSync("chown", ["nobody", path.join(dir, "new.db")]);
        const r = eddy(who, ["run", "--backend", "reference", "--templates", "list_every_kth", "-M", "1", "-R", "1", "--db", path.join(dir, "new.db")], dir);
        expect(r.status, r.stderr).toBe(0);
    }, 120_000);
});

describe.each(users)("an eddy store, read as %s", (who) => {
    it("in a read-only folder: runs, report, export and view read it, and nothing is created beside it", async () => {
        const dir = freshDir();
        const ro = path.join(dir, "ro");
        execFileSync("mkdir", [ro]);
        copyFileSync(good, path.join(ro, "good.db"));
        chmodSync(path.join(ro, "good.db"), 0o444);
        if (who === "nobody") execFileSync("chown", ["-R", "nobody", dir]);
        chmodSync(ro, 0o555);
        const db = path.join(ro, "good.db");
        const runs = eddy(who, ["runs", "list", "--db", db], dir);
        expect(runs.status, runs.stderr).toBe(0);
        expect(runs.stdout).toMatch(/complete/);
        const report = eddy(who, ["report", "latest", "--db", db], dir);
        expect(report.status, report.stderr).toBe(0);
        expect(report.stdout).toMatch(/list_every_kth/);
        const exported = eddy(who, ["export", "latest", "--db", db], dir);
        expect(exported.status, exported.stderr).toBe(0);
        expect(exported.stdout.trim().split("\n")).toHaveLength(2);
        // The viewer: its first page, then Ctrl-C.
        const command = ["env", "-i", "PATH=/usr/bin:/bin", `HOME=${home()}`, process.execPath, bin, "view", "--port", "0", "--db", db];
        const [b, ...a] = who === "nobody" ? ["runuser", "-u", "nobody", "--", ...command] : command;
        const view = spawn(b!, a, { cwd: dir, stdio: ["ignore", "pipe", "pipe"], detached: true });
        let out = "";
        view.stdout.on("data", (d: Buffer) => (out += d.toString()));
        view.stderr.on("data", (d: Buffer) => (out += d.toString()));
        const deadline = Date.now() + 30_000;
        while (!/http:\/\/127\.0\.0\.1:\d+\//.test(out) && view.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(out)?.[0];
        expect(url, out).toBeDefined();
        const page = await fetch(url!);
        expect(page.status).toBe(200);
        expect(await page.text()).toMatch(/reference/);
        // Ctrl-C reaches the whole process group (runuser and the viewer under it), as at a terminal.
        const exited = new Promise((r) => view.once("exit", r));
        process.kill(-view.pid!, "SIGINT");
        const late = setTimeout(() => process.kill(-view.pid!, "SIGKILL"), 10_000);
        await exited;
        clearTimeout(late);
        expect(readdirSync(ro)).toEqual(["good.db"]);
    }, 120_000);

    it("written by an older eddy, in a read-only folder: reading commands read it at this schema, and the file stays as it was", () => {
        const dir = freshDir();
        const ro = path.join(dir, "ro");
        execFileSync("mkdir", [ro]);
        const db = path.join(ro, "older.db");
        copyFileSync(good, db);
        // The store as eddy wrote it before its last three migrations (token usage and quant studies; shrunk inputs; the
        // answers' shape index).
        const older = new Database(db);
        older.exec("DROP TABLE generation_usage; DROP TABLE quant_studies; ALTER TABLE verdicts DROP COLUMN shrunk_json; ALTER TABLE verdict_cache DROP COLUMN shrunk_json; DROP INDEX generations_shape;");
        older.pragma(`user_version = ${MIGRATIONS.length - 3}`);
        older.close();
        chmodSync(db, 0o444);
        if (who === "nobody") execFileSync("chown", ["-R", "nobody", dir]);
        chmodSync(ro, 0o555);
        const before = snapshot(ro);
        const runs = eddy(who, ["runs", "list", "--db", db], dir);
        expect(runs.status, runs.stderr).toBe(0);
        expect(runs.stdout).toMatch(/complete/);
        const exported = eddy(who, ["export", "latest", "--db", db], dir);
        expect(exported.status, exported.stderr).toBe(0);
        const rows = exported.stdout.trim().split("\n").map((l) => JSON.parse(l) as { shrunk_input: unknown });
        expect(rows).toHaveLength(2);
        expect(rows.every((r) => r.shrunk_input === null)).toBe(true);
        const report = eddy(who, ["report", "latest", "--db", db], dir);
        expect(report.status, report.stderr).toBe(0);
        // The same bytes, nothing beside it; its owner's read keeps others out (the store's rule) without making it writable.
        const bytes = (snap: Record<string, string>) => Object.fromEntries(Object.entries(snap).map(([f, v]) => [f, v.replace(/ \d+ /, " ")]));
        expect(bytes(snapshot(ro))).toEqual(bytes(before));
        expect(statSync(db).mode & 0o777).toBe(0o400);
        expect(new Database(db, { readonly: true }).pragma("user_version", { simple: true })).toBe(MIGRATIONS.length - 3);
    }, 120_000);

    it("in a writable folder: reading leaves no -wal or -shm beside a WAL-mode store", () => {
        const dir = freshDir();
        copyFileSync(good, path.join(dir, "good.db"));
        chmodSync(path.join(dir, "good.db"), 0o600);
        if (who === "nobody") execFileSync("chown", ["-R", "nobody", dir]);
        const before = snapshot(dir);
        for (const c of [["runs", "list"], ["report", "latest"], ["export", "latest"]]) {
            const r = eddy(who, [...c, "--db", path.join(dir, "good.db")], dir);
            expect(r.status, r.stderr).toBe(0);
        }
        expect(snapshot(dir)).toEqual(before);
    }, 120_000);
});

describe("a full disk while the judge pool starts", () => {
    it("the pool is closed when the run's record of it fails, so the process ends", () => {
        // The moment of issue #47: the status write after the pool came up threw "database … is full", and the pool
        // it had started kept the process alive forever.
        const dir = freshDir();
        const script = path.join(dir, "stage.mjs");
        writeFileSync(
            script,
            `import { JudgeStage } from ${JSON.stringify(path.join(root, "dist/run/study/JudgeStage.js"))};
const stage = new JudgeStage({ workers: 1, judging: false, needPool: true, cache: { get: () => undefined, set: () => {} }, log: () => {},
    onPool: () => { throw new Error("database x.db is full"); }, onFatal: (e) => console.log("fatal:", e.message), signal: new AbortController().signal });
await stage.pool.catch(() => {});
console.log("returned");
`
        );
        const r = spawnSync(process.execPath, [script], { encoding: "utf8", timeout: 30_000 });
        expect(r.stdout).toMatch(/fatal: database x\.db is full/);
        expect(r.stdout).toMatch(/returned/);
        expect(r.signal, "the process did not end by itself").toBeNull();
        expect(r.status).toBe(0);
    }, 60_000);
});
