import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/Store.js";
import { createPrivateFile, ensurePrivateDir, tightenIfExposed, writePrivateFile } from "../../src/util/privateFiles.js";

const mode = (p: string): number => statSync(p).mode & 0o777;
const dirs: string[] = [];
let umask: number;
function tmp(): string {
    const d = mkdtempSync(path.join(os.tmpdir(), "eddy-private-"));
    dirs.push(d);
    return d;
}
beforeEach(() => {
    // A permissive umask, as on most machines: the modes must not come from it.
    umask = process.umask(0o022);
});
afterEach(() => {
    process.umask(umask);
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const isRoot = typeof process.getuid === "function" && process.getuid() === 0;

describe.skipIf(process.platform === "win32")("private files", () => {
    it("creates the database 0600 in a new 0700 .eddy folder, and its -wal and -shm files 0600", () => {
        const root = tmp();
        const db = path.join(root, ".eddy", "eddy.db");
        const store = openStore(db);
        try {
            store.createOrFindRun({ id: "r1", configHash: "h", config: {}, eddyVersion: "0.1.0", backend: "reference", seed: 1 }, false);
            expect(mode(db)).toBe(0o600);
            expect(mode(path.join(root, ".eddy"))).toBe(0o700);
            // While the connection is open in WAL mode, both side files exist.
            for (const side of [`${db}-wal`, `${db}-shm`]) {
                expect(existsSync(side)).toBe(true);
                expect(mode(side)).toBe(0o600);
            }
        } finally {
            store.close();
        }
        expect(mode(db)).toBe(0o600);
    });

    it("makes every missing folder of a --db path 0700 and leaves existing ones alone", () => {
        const root = tmp();
        chmodSync(root, 0o755);
        const db = path.join(root, "a", "b", "study.db");
        openStore(db).close();
        expect(mode(db)).toBe(0o600);
        expect(mode(path.join(root, "a"))).toBe(0o700);
        expect(mode(path.join(root, "a", "b"))).toBe(0o700);
        expect(mode(root)).toBe(0o755);
    });

    it("does not depend on a restrictive umask either", () => {
        const db = path.join(tmp(), "new", "eddy.db");
        process.umask(0o277); // would leave a file created 0600 at 0400 (unwritable), a folder 0700 at 0500
        const store = openStore(db);
        try {
            store.createOrFindRun({ id: "r1", configHash: "h", config: {}, eddyVersion: "0.1.0", backend: "reference", seed: 1 }, false);
        } finally {
            store.close();
        }
        expect(mode(db)).toBe(0o600);
        expect(mode(path.dirname(db))).toBe(0o700);
    });

    it("tightens an existing database of ours that others can read, read-only opens included; leaves private ones alone", () => {
        const root = tmp();
        const db = path.join(root, "old.db");
        openStore(db).close();
        chmodSync(db, 0o644);
        openStore(db).close();
        expect(mode(db)).toBe(0o600);
        chmodSync(db, 0o640);
        openStore(db, { readonly: true }).close();
        expect(mode(db)).toBe(0o600);
        // Not readable by group or others: the owner's choice stands.
        chmodSync(db, 0o700);
        openStore(db).close();
        expect(mode(db)).toBe(0o700);
    });

    it.skipIf(!isRoot)("leaves another user's database as it is", () => {
        const root = tmp();
        const db = path.join(root, "theirs.db");
        openStore(db).close();
        chmodSync(db, 0o644);
        chownSync(db, 65534, 65534);
        openStore(db, { readonly: true }).close();
        expect(mode(db)).toBe(0o644);
        expect(tightenIfExposed(db)).toBe(false);
    });

    it("writes report and export files 0600, also over an existing world-readable file of ours", () => {
        const root = tmp();
        const file = path.join(root, "reports", "run.html");
        writePrivateFile(file, "<p>secret expected value</p>");
        expect(mode(file)).toBe(0o600);
        expect(mode(path.join(root, "reports"))).toBe(0o700);
        expect(statSync(file).size).toBe(Buffer.byteLength("<p>secret expected value</p>"));
        const old = path.join(root, "old.csv");
        writeFileSync(old, "a long old text that must be replaced entirely\n");
        chmodSync(old, 0o644);
        writePrivateFile(old, "x\n");
        expect(mode(old)).toBe(0o600);
        expect(statSync(old).size).toBe(2);
    });

    it("creates a file privately only once, and never truncates an existing one", () => {
        const root = tmp();
        const f = path.join(root, "x.db");
        expect(createPrivateFile(f)).toBe(true);
        expect(mode(f)).toBe(0o600);
        writeFileSync(f, "data");
        expect(createPrivateFile(f)).toBe(false);
        expect(statSync(f).size).toBe(4);
        ensurePrivateDir(root); // exists: untouched, no error
    });
});
