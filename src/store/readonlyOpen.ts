import { existsSync, readFileSync, statSync } from "node:fs";
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
    try {
        db = new Database(file, { readonly: true, fileMustExist: true, timeout: timeoutMs });
        db.pragma("schema_version"); // the first read: where a -shm that cannot be made shows
        return db;
    } catch (err) {
        db?.close();
        if (!String((err as { code?: unknown }).code).startsWith("SQLITE_CANTOPEN") || !existsSync(file)) throw err;
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
