import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalizeStudyConfig } from "../../src/run/config.js";
import { runStudy } from "../../src/run/runStudy.js";
import { MergeConflictError, mergeStores } from "../../src/store/merge.js";
import { MIGRATIONS } from "../../src/store/schema.js";
import { openStore } from "../../src/store/Store.js";
import { BIN, cleanTmp, tmpDir } from "../run/helpers.js";
import { unwrapMessages } from "../support/messages.js";
import { TEMPLATES, exportStore, useFixedTemplates } from "./studyFixture.js";
import { libraryAt } from "../../src/templates/library.js";

let dir: string;
let restore: () => void;
beforeAll(() => {
    dir = tmpDir("eddy-merge-faults-");
    restore = useFixedTemplates(dir);
});
afterAll(() => {
    restore();
    cleanTmp();
});

const sha = (file: string): string => createHash("sha256").update(readFileSync(file)).digest("hex");
/** The database file and whatever sits beside it (-wal, -shm): what "never touched" is checked against. */
const files = (file: string): string[] => readdirSync(path.dirname(file)).filter((f) => f.startsWith(path.basename(file))).sort();
/** The CLI, optionally under a prefix (bubblewrap's read-only view). */
const cli = (args: string[], prefix: string[] = []) => {
    const argv = [...prefix, "node", BIN, ...args];
    return execa(argv[0]!, argv.slice(1), { reject: false, env: process.env, timeout: 60_000 });
};

async function node(name: string, templates = TEMPLATES.join(",")): Promise<string> {
    const db = path.join(dir, `${name}.db`);
    const r = await runStudy(normalizeStudyConfig({ backend: "reference", templates, instances: 3, rounds: 2, temperatures: "0,0.7", seed: 5, judgeWorkers: 1, db }), { library: libraryAt(dir) });
    expect(r.status).toBe("complete");
    return db;
}

const one = (file: string, sql: string): Record<string, unknown> | undefined => {
    const db = new Database(file, { readonly: true });
    try {
        return db.prepare(sql).get() as Record<string, unknown> | undefined;
    } finally {
        db.close();
    }
};

/** Whether bubblewrap can give a command a read-only view of a folder (a stand-in for read-only media, root included). */
const HAS_RO_BIND = spawnSync("bwrap", ["--dev-bind", "/", "/", "--ro-bind", "/tmp", "/tmp", "true"], { stdio: "ignore" }).status === 0;

describe("eddy merge never alters a source, and says which file is at fault", () => {
    let good: string;
    beforeAll(async () => {
        good = await node("good");
    });

    it("a foreign SQLite file and an empty file are refused untouched, and no target is left behind", async () => {
        const foreign = path.join(dir, "foreign.sqlite");
        const f = new Database(foreign);
        f.exec("CREATE TABLE songs (title TEXT); INSERT INTO songs VALUES ('la')");
        f.close();
        const empty = path.join(dir, "empty.db");
        writeFileSync(empty, "");
        const before = { foreign: sha(foreign), empty: sha(empty), foreignFiles: files(foreign), emptyFiles: files(empty) };
        for (const [file, why] of [
            [foreign, /^eddy: .*foreign\.sqlite is not an eddy database \(no eddy tables\)$/],
            [empty, /^eddy: .*empty\.db is empty: not an eddy database$/]
        ] as const) {
            const into = path.join(dir, `into-${path.basename(file)}.db`);
            const r = await cli(["merge", good, file, "--into", into]);
            expect(r.exitCode, r.stderr).toBe(65);
            expect(unwrapMessages(r.stderr).trim()).toMatch(why);
            expect(existsSync(into)).toBe(false);
        }
        expect(sha(foreign)).toBe(before.foreign);
        expect(sha(empty)).toBe(before.empty);
        expect(readFileSync(empty).length).toBe(0);
        expect(files(foreign)).toEqual(before.foreignFiles);
        expect(files(empty)).toEqual(before.emptyFiles);
        expect(one(foreign, "SELECT COUNT(*) AS n FROM sqlite_master")).toEqual({ n: 1 });
        expect(one(foreign, "PRAGMA journal_mode")).toEqual({ journal_mode: "delete" });
    });

    it("a source from an older eddy (older schema, no node id) is merged without writing to it", async () => {
        const old = path.join(dir, "old.db");
        // The schema before merge existed (the migrations up to the one that made `meta`), holding the
        // good store's rows in the columns that schema has: later migrations (tables or columns) are absent.
        const before = MIGRATIONS.findIndex((m) => m.includes("CREATE TABLE meta"));
        const db = new Database(old);
        for (const m of MIGRATIONS.slice(0, before)) db.exec(m);
        db.pragma(`user_version = ${before}`);
        db.pragma("journal_mode = DELETE");
        db.exec(`ATTACH DATABASE '${good.replace(/'/g, "''")}' AS good`);
        const tables = db.prepare("SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[];
        for (const { name } of tables) {
            const cols = (db.prepare(`PRAGMA main.table_info(${name})`).all() as { name: string }[]).map((c) => c.name).join(", ");
            db.exec(`INSERT INTO main.${name} (${cols}) SELECT ${cols} FROM good.${name}`);
        }
        db.exec("DETACH DATABASE good");
        db.close();
        const hash = sha(old);
        const into = path.join(dir, "from-old.db");
        const r = mergeStores([old], into);
        expect(r.sources[0]!.nodeId).toMatch(/^sha256:[0-9a-f]{26}$/);
        expect(exportStore(into)).toEqual(exportStore(good));
        expect(sha(old)).toBe(hash);
        expect(one(old, "PRAGMA user_version")).toEqual({ user_version: before });
        expect(one(old, "SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'meta'")).toEqual({ n: 0 });
    });

    it("a damaged source is named as the damaged file, never the target", async () => {
        // Pages of the generations table overwritten: the file opens, reading its rows fails.
        const pages = Math.floor(readFileSync(good).length / 4096);
        let named = 0;
        for (const page of [6, 10, Math.floor(pages * 0.75)]) {
            const bad = path.join(dir, `damaged-${page}.db`);
            copyFileSync(good, bad);
            const fd = openSync(bad, "r+");
            writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, 4096 * page);
            closeSync(fd);
            const into = path.join(dir, `into-damaged-${page}.db`);
            let msg = "";
            try {
                mergeStores([bad], into);
            } catch (err) {
                msg = (err as Error).message;
            }
            if (!msg) continue; // this page held nothing merge reads
            named++;
            expect(msg).toContain(bad);
            expect(msg).not.toContain(into);
            expect(existsSync(into)).toBe(false);
        }
        expect(named).toBeGreaterThan(0);
    });

    it("a refused merge into a new target leaves no database behind; conflicts show where the values differ", async () => {
        const edited = path.join(dir, "edited.db");
        copyFileSync(good, edited);
        const db = new Database(edited);
        // A change after the first 60 characters of a long response: both values must still read differently.
        db.prepare("UPDATE generations SET response = substr(response, 1, 80) || 'EDITED' || substr(response, 81) WHERE id = (SELECT MIN(id) FROM generations)").run();
        db.close();
        const into = path.join(dir, "refused-new.db");
        const r = await cli(["merge", good, edited, "--into", into]);
        expect(r.exitCode).toBe(65);
        expect(existsSync(into)).toBe(false);
        expect(files(into)).toEqual([]);
        const line = unwrapMessages(r.stderr).split("\n").find((l) => l.startsWith("conflict: edited.db"))!;
        const m = /here (.*), incoming (.*)\)$/.exec(line)!;
        expect(m[1]).not.toBe(m[2]);
        expect(m[2]).toContain("EDITED");
        expect(() => mergeStores([good, edited], into)).toThrow(MergeConflictError);
        expect(existsSync(into)).toBe(false);
    });

    it("a run merged while partial becomes complete when its complete copy is merged", async () => {
        const partial = path.join(dir, "partial.db");
        copyFileSync(good, partial);
        const db = new Database(partial);
        db.exec("DELETE FROM verdicts WHERE generation_id IN (SELECT id FROM generations WHERE round = 1)");
        db.exec("DELETE FROM generations WHERE round = 1");
        db.exec("UPDATE runs SET status = 'interrupted', error = 'stopped'");
        db.close();
        const into = path.join(dir, "status.db");
        mergeStores([partial], into);
        expect(one(into, "SELECT status FROM runs")).toEqual({ status: "interrupted" });
        mergeStores([good], into);
        expect(one(into, "SELECT status, error FROM runs")).toEqual({ status: "complete", error: null });
        expect(exportStore(into)).toEqual(exportStore(good));
        // A partial copy merged after the complete one does not undo it.
        mergeStores([partial], into);
        expect(one(into, "SELECT status FROM runs")).toEqual({ status: "complete" });
    });

    describe.skipIf(!HAS_RO_BIND)("a store on read-only media (no -shm can be made beside it)", () => {
        let media: string;
        let id: string;
        beforeAll(() => {
            media = path.join(dir, "stick");
            mkdirSync(media);
            copyFileSync(good, path.join(media, "node.db"));
            id = one(good, "SELECT id FROM runs")!.id as string;
        });
        const ro = (): string[] => ["bwrap", "--dev-bind", "/", "/", "--ro-bind", media, media, "--"];

        it("runs list, export and report read it", async () => {
            const db = path.join(media, "node.db");
            const list = await cli(["runs", "list", "--json", "--db", db], ro());
            expect(list.exitCode, list.stderr).toBe(0);
            expect(JSON.parse(list.stdout)).toMatchObject([{ id, status: "complete" }]);
            const exp = await cli(["export", id, "--format", "jsonl", "--db", db], ro());
            expect(exp.exitCode, exp.stderr).toBe(0);
            expect(exp.stdout.trim().split("\n")).toHaveLength(24);
            const rep = await cli(["report", id, "--db", db], ro());
            expect(rep.exitCode, rep.stderr).toBe(0);
            expect(rep.stdout).toContain(id);
            expect(files(db)).toEqual(["node.db"]);
        });

        it("merge reads it as a source", async () => {
            const into = path.join(dir, "from-stick.db");
            const r = await cli(["merge", path.join(media, "node.db"), "--into", into], ro());
            expect(r.exitCode, r.stderr).toBe(0);
            expect(exportStore(into)).toEqual(exportStore(good));
            expect(sha(path.join(media, "node.db"))).toBe(sha(good));
        });
    });
});

/** Whether bubblewrap can mount a tmpfs of a given size (a small disk to fill). */
const HAS_SIZED_TMPFS = spawnSync("bwrap", ["--dev-bind", "/", "/", "--size", "65536", "--tmpfs", "/tmp", "true"], { stdio: "ignore" }).status === 0;

describe("eddy merge refuses what it cannot carry, names a full disk, and exits with what happened", () => {
    let good: string;
    beforeAll(async () => {
        good = await node("carry-good");
    });
    /** A copy of the good store, changed by `sql`. */
    const changed = (name: string, sql: string): string => {
        const file = path.join(dir, `${name}.db`);
        copyFileSync(good, file);
        const db = new Database(file);
        db.exec(sql);
        db.close();
        return file;
    };

    it("a column merge does not know, holding data in a known table, is refused in one line; one holding nothing is merged", async () => {
        const extra = changed("extra-column", "ALTER TABLE generations ADD COLUMN reviewer TEXT; UPDATE generations SET reviewer = 'ann' WHERE round = 1");
        const before = sha(extra);
        const into = path.join(dir, "into-extra-column.db");
        const r = await cli(["merge", extra, "--into", into]);
        expect(r.exitCode, r.stderr).toBe(65);
        expect(unwrapMessages(r.stderr).trim()).toBe(`eddy: ${extra}: table generations has a column merge does not know ('reviewer', a value in 12 rows); refusing rather than dropping it (merge with the eddy that wrote it)`);
        expect(existsSync(into)).toBe(false);
        expect(sha(extra)).toBe(before);
        const empty = changed("empty-column", "ALTER TABLE verdicts ADD COLUMN note TEXT");
        const ok = await cli(["merge", empty, "--into", path.join(dir, "into-empty-column.db")]);
        expect(ok.exitCode, ok.stderr).toBe(0);
        expect(exportStore(path.join(dir, "into-empty-column.db"))).toEqual(exportStore(good));
    });

    it("a table merge does not know is refused in one line, even an empty one", async () => {
        for (const [name, sql, what] of [
            ["unknown-empty", "CREATE TABLE review_notes (generation_id INTEGER, note TEXT)", "empty"],
            ["unknown-rows", "CREATE TABLE review_notes (generation_id INTEGER, note TEXT); INSERT INTO review_notes VALUES (1, 'x'), (2, 'y')", "2 rows"]
        ] as const) {
            const file = changed(name, sql);
            const into = path.join(dir, `into-${name}.db`);
            const r = await cli(["merge", good, file, "--into", into]);
            expect(r.exitCode, r.stderr).toBe(65);
            expect(unwrapMessages(r.stderr).trim()).toBe(`eddy: ${file} has a table merge does not know ('review_notes', ${what}); refusing rather than dropping it (merge with the eddy that wrote it)`);
            expect(files(into)).toEqual([]);
        }
    });

    it("a verdict conflict is named by its run, configuration, template, instance and round", async () => {
        const other = changed("verdict-conflict", "UPDATE verdicts SET category = 'wrong_answer', detail = 'edited' WHERE generation_id = (SELECT MIN(id) FROM generations)");
        const g = one(good, "SELECT g.template_id, g.instance_idx, g.round, c.temperature FROM generations g JOIN configurations c ON c.id = g.config_id ORDER BY g.id LIMIT 1")!;
        const into = path.join(dir, "into-verdict-conflict.db");
        const r = await cli(["merge", good, other, "--into", into]);
        expect(r.exitCode).toBe(65);
        const line = unwrapMessages(r.stderr).split("\n").find((l) => l.includes(": category differs"));
        expect(line, r.stderr).toMatch(
            new RegExp(`^conflict: verdict-conflict\\.db: verdict of generation \\S+/reference/T=${g.temperature}/\\S+/${String(g.template_id)}#${String(g.instance_idx)} round ${String(g.round)}: category differs`)
        );
        expect(existsSync(into)).toBe(false);
    });

    it("a Ctrl-C while merging takes effect once the merge is done: a merge that completed exits 0 and says so", async () => {
        // A source big enough that the merge takes a while (rows in a cache table).
        const big = changed(
            "big",
            `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 150000)
             INSERT INTO verdict_cache (key, category, detail, ms, created) SELECT 'k' || i, 'correct', '', 1, '2026-01-01' FROM n`
        );
        const into = path.join(dir, "into-interrupted.db");
        const p = execa("node", [BIN, "merge", big, "--into", into], { reject: false, env: process.env });
        // Interrupted once it is merging (the target exists), well before it could have finished.
        for (let i = 0; i < 400 && !existsSync(into); i++) await new Promise((r) => setTimeout(r, 25));
        p.kill("SIGINT");
        const r = await p;
        expect(r.exitCode, r.stderr).toBe(0);
        expect(unwrapMessages(r.stderr).trim()).toBe(`eddy: SIGINT came while merging; the merge had already completed: ${into} holds everything merged`);
        expect(one(into, "SELECT COUNT(*) AS n FROM verdict_cache")!.n).toBeGreaterThanOrEqual(150000);
        expect(exportStore(into)).toEqual(exportStore(good));
    });

    describe.skipIf(!HAS_SIZED_TMPFS)("a full disk (a small tmpfs)", () => {
        /** Run a shell script with `small` mounted as a tmpfs of `bytes` (it exists only for that script). */
        const onSmallDisk = (small: string, bytes: number, script: string) =>
            execa("bwrap", ["--dev-bind", "/", "/", "--size", String(bytes), "--tmpfs", small, "sh", "-c", script], { reject: false, env: process.env, timeout: 120_000 });
        let emptyStore: string;
        beforeAll(async () => {
            emptyStore = path.join(dir, "empty-store.db");
            openStore(emptyStore).close();
        });

        it("into a new target: 'disk full', exit 74, no file left, and no talk of resuming a run", async () => {
            const small = path.join(dir, "small-new");
            mkdirSync(small);
            const into = path.join(small, "lab.db");
            const size = readFileSync(emptyStore).length + 32 * 1024;
            const r = await onSmallDisk(small, size, `node ${BIN} merge ${good} --into ${into}; echo "exit=$?"; ls -A ${small}`);
            const [exit, ...left] = r.stdout.trim().split("\n");
            expect(unwrapMessages(r.stderr).trim()).toBe(`eddy: disk full: no space left on ${small} to merge into ${into}; nothing was merged (no target file is left); free space and merge again`);
            expect(exit).toBe("exit=74");
            expect(left).toEqual([]);
        });

        it("into an existing target: 'disk full', exit 74, the target as it was, no stray -wal or -shm", async () => {
            const small = path.join(dir, "small-existing");
            mkdirSync(small);
            const into = path.join(small, "lab.db");
            const size = readFileSync(emptyStore).length + 24 * 1024;
            const r = await onSmallDisk(small, size, `cp ${emptyStore} ${into} && sha256sum ${into} && node ${BIN} merge ${good} --into ${into}; echo "exit=$?"; sha256sum ${into}; ls -A ${small}`);
            const out = r.stdout.trim().split("\n");
            expect(unwrapMessages(r.stderr).trim()).toBe(`eddy: disk full: no space left on ${small} to merge into ${into}; nothing was merged (the target is as it was); free space and merge again`);
            expect(out[1]).toBe("exit=74");
            expect(out[2]).toBe(out[0]); // byte for byte as it was
            expect(out.slice(3)).toEqual(["lab.db"]);
        });
    });
});
