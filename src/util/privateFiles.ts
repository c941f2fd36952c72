import { chmodSync, closeSync, fchmodSync, fstatSync, mkdirSync, openSync, statSync, writeSync, type Stats } from "node:fs";
import path from "node:path";

/**
 * Files only their owner may read. eddy's database and the reports and exports written from it hold
 * verdict details, and those quote the expected values of hidden oracles: a study on a shared machine
 * must not hand them to every local user. Files and folders are created with the private mode (which a
 * umask can only narrow), then (f)chmod-ed to exactly that mode, so the result does not depend on the
 * process umask. Nothing here prints anything.
 */

/** Mode of the files eddy creates: read and write for the owner only. */
export const PRIVATE_FILE_MODE = 0o600;
/** Mode of the folders eddy creates for them (`.eddy`, a new `--db` or `--out` folder). */
export const PRIVATE_DIR_MODE = 0o700;

/**
 * Make `dir` and any missing parents; the folders made here get {@link PRIVATE_DIR_MODE}.
 * Folders that already exist are left as they are (the working directory is the user's business).
 */
export function ensurePrivateDir(dir: string): void {
    const abs = path.resolve(dir);
    const first = mkdirSync(abs, { recursive: true, mode: PRIVATE_DIR_MODE });
    if (first === undefined) return;
    // `first` is the outermost folder made; every folder from it down to `abs` is new.
    for (let d = abs; ; d = path.dirname(d)) {
        bestEffort(() => chmodSync(d, PRIVATE_DIR_MODE));
        if (d === path.resolve(first) || path.dirname(d) === d) break;
    }
}

/**
 * A chmod that may fail where the file system has no Unix modes: what was created is already at most
 * the private mode (the umask only removes bits), so a failure here never leaves a file more open.
 */
function bestEffort(fn: () => void): void {
    try {
        fn();
    } catch {
        // no Unix modes on this file system
    }
}

/** The process's user id, or undefined where there is none (Windows). */
function uid(): number | undefined {
    return typeof process.getuid === "function" ? process.getuid() : undefined;
}

/** Whether a file's mode should be tightened: a regular file of ours that its group or others can read. */
function exposed(st: Stats): boolean {
    const me = uid();
    return me !== undefined && st.isFile() && st.uid === me && (st.mode & 0o044) !== 0;
}

/**
 * An existing file readable by its group or by everyone, and owned by this user, loses its group's and
 * others' permissions (0644 becomes {@link PRIVATE_FILE_MODE}, 0444 becomes 0400); anything else (missing, another user's, already private) is left alone.
 * Returns whether the mode was changed. Never throws: a mode it cannot change is not worth a failure.
 */
export function tightenIfExposed(file: string): boolean {
    try {
        const st = statSync(file);
        if (!exposed(st)) return false;
        // Others' bits go; the owner's stay as they were: a write-protected store (0444) a command only
        // reads becomes 0400, not writable.
        chmodSync(file, st.mode & 0o700);
        return true;
    } catch {
        return false;
    }
}

/**
 * Create `file` empty with {@link PRIVATE_FILE_MODE} unless it exists (O_EXCL: never truncates, never
 * follows a planted link). Returns whether it was created. An existing file is tightened by the rule of
 * {@link tightenIfExposed}. Used for the database before SQLite opens it: SQLite gives its `-wal`,
 * `-shm` and `-journal` files the mode of the database file, so they are private too.
 */
export function createPrivateFile(file: string): boolean {
    let fd: number;
    try {
        fd = openSync(file, "wx", PRIVATE_FILE_MODE);
    } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EEXIST") {
            tightenIfExposed(file);
            return false;
        }
        throw err;
    }
    try {
        bestEffort(() => fchmodSync(fd, PRIVATE_FILE_MODE)); // the umask may have taken bits away; set exactly
    } finally {
        closeSync(fd);
    }
    return true;
}

/**
 * Write `text` to `file` (missing folders made private): a new file is created {@link PRIVATE_FILE_MODE};
 * an existing one is overwritten in place and tightened by the rule of {@link tightenIfExposed}.
 * The one writer of report and export files.
 */
export function writePrivateFile(file: string, text: string | Uint8Array): void {
    ensurePrivateDir(path.dirname(path.resolve(file)));
    let fd: number;
    let created = true;
    try {
        fd = openSync(file, "wx", PRIVATE_FILE_MODE);
    } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
        fd = openSync(file, "w", PRIVATE_FILE_MODE);
        created = false;
    }
    try {
        if (created || exposed(fstatSync(fd))) bestEffort(() => fchmodSync(fd, PRIVATE_FILE_MODE));
        const data = typeof text === "string" ? Buffer.from(text, "utf8") : text;
        let off = 0;
        while (off < data.length) off += writeSync(fd, data, off, data.length - off);
    } finally {
        closeSync(fd);
    }
}
