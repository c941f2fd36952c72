import { createHash } from "node:crypto";
import { createReadStream, existsSync, statSync } from "node:fs";
import { Parser, type ReadEntry } from "tar";
import { EddyError, oneLine } from "../util/errors.js";
import { compareWithManifest, describeProblems, MANIFEST_NAME, parseManifest, verifyDirectory, type KitManifest } from "./manifest.js";

export interface KitVerdict {
    manifest: KitManifest;
    files: number;
}

/**
 * Check a kit archive against its manifest without extracting it: every entry is hashed as it
 * streams by. A damaged archive is refused naming the file that failed: a changed, missing or
 * unlisted file, or the entry being read when the stream broke (truncation, corrupt gzip or tar).
 */
export async function verifyArchive(file: string): Promise<KitVerdict> {
    if (!existsSync(file)) throw new EddyError(`kit verify: ${file} not found`);
    if (statSync(file).isDirectory()) return verifyExtracted(file);
    const found = new Map<string, { size: number; sha256: string }>();
    let top: string | undefined;
    let manifestText: string | undefined;
    let current: string | undefined;
    let last: string | undefined;
    // Found while streaming: reported once the stream is done (a throw inside the entry callback
    // would escape the promise).
    let early: string | undefined;
    const refuse = (what: string): never => {
        throw new EddyError(`kit verify: ${file} refused: ${what}`);
    };
    const onEntry = (entry: ReadEntry): void => {
        const [head, ...rest] = entry.path.split("/");
        if (top === undefined) top = head;
        else if (head !== top) early ??= `${entry.path}: outside the kit's folder ${top}/`;
        const rel = rest.join("/").replace(/\/$/, "");
        if (entry.type === "Directory" || rel === "") {
            entry.resume();
            return;
        }
        if (entry.type !== "File" && entry.type !== "OldFile") {
            early ??= `${entry.path}: a ${entry.type} entry; kits hold only files`;
            entry.resume();
            return;
        }
        current = rel;
        const hash = createHash("sha256");
        const chunks: Buffer[] = [];
        let size = 0;
        entry.on("data", (c: Buffer) => {
            hash.update(c);
            size += c.length;
            if (rel === MANIFEST_NAME) chunks.push(c);
        });
        entry.on("end", () => {
            if (rel === MANIFEST_NAME) manifestText = Buffer.concat(chunks).toString("utf8");
            else found.set(rel, { size, sha256: hash.digest("hex") });
            last = rel;
            current = undefined;
        });
    };
    try {
        await parse(file, onEntry);
    } catch (err) {
        if (err instanceof EddyError) throw err;
        const where = current ? `${current}: damaged (${oneLine(err)})` : `damaged after ${last ?? "the start"} (${oneLine(err)})`;
        refuse(`${where}; the archive is truncated or corrupt`);
    }
    if (early) refuse(early);
    if (manifestText === undefined) refuse(`no ${MANIFEST_NAME}; not an eddy kit, or truncated`);
    let manifest: KitManifest;
    try {
        manifest = parseManifest(manifestText!, file);
    } catch (err) {
        return refuse(oneLine(err));
    }
    const problems = compareWithManifest(manifest, found);
    if (problems.length) refuse(describeProblems(problems));
    return { manifest, files: found.size };
}

async function verifyExtracted(dir: string): Promise<KitVerdict> {
    let result;
    try {
        result = await verifyDirectory(dir);
    } catch (err) {
        throw new EddyError(`kit verify: ${oneLine(err)}`);
    }
    if (result.problems.length) throw new EddyError(`kit verify: ${dir} refused: ${describeProblems(result.problems)}`);
    return { manifest: result.manifest, files: result.manifest.files.length };
}

/**
 * Stream `file` through tar's parser (gzip detected by it). The first error, strict mode making tar
 * warnings errors too, stops reading at once: the parser would otherwise go on through the rest.
 */
function parse(file: string, onEntry: (entry: ReadEntry) => void): Promise<void> {
    return new Promise((resolve, reject) => {
        const input = createReadStream(file);
        const parser = new Parser({ strict: true, onReadEntry: onEntry });
        let settled = false;
        const fail = (err: unknown): void => {
            if (settled) return;
            settled = true;
            input.destroy();
            reject(err);
        };
        parser.on("error", fail);
        input.on("error", fail);
        parser.on("end", () => {
            if (settled) return;
            settled = true;
            resolve();
        });
        input.pipe(parser);
    });
}
