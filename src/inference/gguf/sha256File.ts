import { createHash } from "node:crypto";
import { createReadStream, statSync } from "node:fs";

const cache = new Map<string, string>();

/** sha256 of a file, streamed (models are gigabytes); cached in memory by path + size + mtime. */
export async function sha256File(file: string): Promise<string> {
    const st = statSync(file);
    const key = `${file}\0${st.size}\0${st.mtimeMs}`;
    const hit = cache.get(key);
    if (hit) return hit;
    const hash = createHash("sha256");
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 22 })) hash.update(chunk as Buffer);
    const digest = hash.digest("hex");
    cache.set(key, digest);
    return digest;
}
