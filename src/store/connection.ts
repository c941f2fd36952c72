import type Database from "better-sqlite3";

/**
 * The SQLite connection behind each open Store. It lives here, not on the Store, so that only the
 * modules of src/store (its repositories) reach it: everything else asks the store. The wall is held
 * by test/store/wall.test.ts (no SQL, no better-sqlite3 and no import of this module outside src/store).
 */
const connections = new WeakMap<object, Database.Database>();

/** Remember `db` as the connection of `store` (the Store's constructor). */
export function attachConnection(store: object, db: Database.Database): void {
    connections.set(store, db);
}

/** The connection of an open store. */
export function connection(store: object): Database.Database {
    const db = connections.get(store);
    if (!db) throw new Error("this store has no connection (it failed to open)");
    return db;
}
