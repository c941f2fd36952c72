import { createHash } from "node:crypto";
import { closeSync, createReadStream, openSync, readFileSync, readSync, statSync } from "node:fs";
import { throwIfStopped } from "./abort.js";

/** True when `p` is a directory (false when it does not exist or cannot be read). */
export function isDir(p: string): boolean {
    try {
        return statSync(p).isDirectory();
    } catch {
        return false;
    }
}

const SMALL = 1 << 20;
const cache = new Map<string, string>();

/**
 * sha256 of a file: read at once when small (a kit hashes ~15k files, and a stream per file costs
 * more than the read), streamed when large (models are gigabytes), memoised by path, size and mtime.
 */
export async function sha256File(file: string, signal?: AbortSignal): Promise<string> {
    const st = statSync(file);
    const key = `${file}\0${st.size}\0${st.mtimeMs}`;
    const hit = cache.get(key);
    if (hit) return hit;
    let digest: string;
    if (st.size < SMALL) digest = createHash("sha256").update(readFileSync(file)).digest("hex");
    else {
        const hash = createHash("sha256");
        // A model of many gigabytes takes minutes: a stopped study (Ctrl-C) stops reading it at the next chunk.
        for await (const chunk of createReadStream(file, { highWaterMark: 1 << 22 })) {
            throwIfStopped(signal, `stopped while hashing ${file}`);
            hash.update(chunk as Buffer);
        }
        digest = hash.digest("hex");
    }
    cache.set(key, digest);
    return digest;
}

/** sha256 of a file, synchronously, in 4 MB chunks (a database being merged may be large). */
export function sha256FileSync(file: string): string {
    const hash = createHash("sha256");
    const fd = openSync(file, "r");
    try {
        const buf = Buffer.allocUnsafe(1 << 22);
        for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) hash.update(buf.subarray(0, n));
    } finally {
        closeSync(fd);
    }
    return hash.digest("hex");
}
