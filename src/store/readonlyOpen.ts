import { accessSync, closeSync, constants as fsConstants, existsSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { EddyError } from "../util/errors.js";

/**
 * A database image with a rollback-journal header. Bytes 18 and 19 of a WAL-mode file say 2 ("WAL");
 * SQLite opens an in-memory image only in rollback mode, and an image has no -shm to need anyway.
 */
export function rollbackImage(image: Buffer): Buffer {
    if (image.length >= 100 && image[18] === 2 && image[19] === 2) image[18] = image[19] = 1;
    return image;
}

/**
 * Open a database file read-only, without writing to it. A WAL-mode file needs a -shm beside it, which
 * read-only media (a write-protected stick, a read-only mount) cannot give: there the file is read into
 * memory and opened from that image. (SQLite's own answer, `?immutable=1`, needs a URI filename, which
 * better-sqlite3 is built without.) An image would miss commits still in a -wal file: that case is refused
 * with what to do.
 */
export function openReadonlyDatabase(file: string, timeoutMs: number): Database.Database {
    let db: Database.Database | undefined;
    // A WAL-mode file that nobody has open (no -wal, no -shm beside it) in a folder we may write: a read-only
    // connection would make a -wal and a -shm there and, unable to remove them, leave them behind. A connection
    // that may write but is made query-only reads the same rows and writes nothing to the file, and SQLite
    // removes the side files when the last connection closes (checkpointing nothing: no frame is ever written).
    if (quietWalFile(file)) {
        try {
            db = new Database(file, { fileMustExist: true, timeout: timeoutMs });
            db.pragma("query_only = ON");
            db.pragma("schema_version");
            return db;
        } catch (err) {
            db?.close();
            db = undefined;
            if (!String((err as { code?: unknown }).code).startsWith("SQLITE_CANTOPEN")) throw err;
        }
    }
    try {
        db = new Database(file, { readonly: true, fileMustExist: true, timeout: timeoutMs });
        db.pragma("schema_version"); // the first read: where a -shm that cannot be made shows
        return db;
    } catch (err) {
        db?.close();
        // No -shm can be made beside the file: read-only media (CANTOPEN) or a folder this user may not write
        // (READONLY_DIRECTORY, READONLY_CANTINIT: a -shm nobody may initialise).
        const code = String((err as { code?: unknown }).code);
        const noSideFiles = code.startsWith("SQLITE_CANTOPEN") || code === "SQLITE_READONLY_DIRECTORY" || code === "SQLITE_READONLY_CANTINIT";
        if (!noSideFiles || !existsSync(file)) throw err;
        const wal = `${file}-wal`;
        if (existsSync(wal) && statSync(wal).size > 0)
            throw new EddyError(`${file} cannot be opened where it is (read-only media?) and ${wal} holds changes not yet in it: copy both files to writable disk and open the copy`, 66);
        let image: Buffer;
        try {
            image = readFileSync(file);
        } catch {
            throw err; // unreadable: SQLite's own error says so
        }
        return new Database(rollbackImage(image), { readonly: true });
    }
}

/** The first 100 bytes of SQLite's file header, "SQLite format 3\0" first. */
const SQLITE_MAGIC = Buffer.from("SQLite format 3\0", "latin1");

/** What a store's file is, read from its first bytes alone (no SQLite, so nothing is written or created). */
export type StoreFileKind = "missing" | "folder" | "empty" | "not-sqlite" | "sqlite";

/** The file's kind and, for a SQLite file, its 100-byte header. */
export function storeFileKind(file: string): { kind: StoreFileKind; header?: Buffer } {
    let size: number;
    try {
        const st = statSync(file);
        if (st.isDirectory()) return { kind: "folder" };
        size = st.size;
    } catch {
        return { kind: "missing" };
    }
    if (size === 0) return { kind: "empty" };
    const header = Buffer.alloc(100);
    let fd: number | undefined;
    try {
        fd = openSync(file, "r");
        const n = readSync(fd, header, 0, 100, 0);
        if (n < 100 || !header.subarray(0, 16).equals(SQLITE_MAGIC)) return { kind: "not-sqlite" };
        return { kind: "sqlite", header };
    } catch {
        return { kind: "sqlite" }; // unreadable: SQLite's own error says why
    } finally {
        if (fd !== undefined) closeSync(fd);
    }
}

/** A WAL-mode SQLite file with no -wal or -shm beside it, where this user may write the file and its folder. */
function quietWalFile(file: string): boolean {
    const { kind, header } = storeFileKind(file);
    if (kind !== "sqlite" || !header || header[18] !== 2) return false;
    if (existsSync(`${file}-wal`) || existsSync(`${file}-shm`)) return false;
    try {
        accessSync(file, fsConstants.R_OK | fsConstants.W_OK);
        accessSync(path.dirname(file), fsConstants.W_OK | fsConstants.X_OK);
        return true;
    } catch {
        return false;
    }
}
