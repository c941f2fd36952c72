import type Database from "better-sqlite3";
import { ulid } from "ulid";

/** This database's node id from its meta table, if it has one (and the table exists). */
export function readNodeId(db: Database.Database): string | undefined {
    try {
        const r = db.prepare("SELECT value FROM meta WHERE key = 'node_id'").get() as { value: string } | undefined;
        return r?.value;
    } catch {
        return undefined; // a database from before the meta table
    }
}

/** The node id, written as a new ULID when eddy first opens the database for writing (a migrated database). */
export function ensureNodeId(db: Database.Database): string {
    const have = readNodeId(db);
    if (have) return have;
    // OR IGNORE then read back: two processes giving the same file an id at once agree on one.
    db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('node_id', ?)").run(ulid());
    return readNodeId(db)!;
}
