import { note } from "../messages.js";
import path from "node:path";
import { EddyError } from "../../util/errors.js";
import { writePrivateFile } from "../../util/privateFiles.js";

/** Formats an output file's extension names. */
const BY_EXTENSION: Record<string, string> = { txt: "text", text: "text", md: "md", markdown: "md", json: "json", csv: "csv", html: "html", htm: "html" };

/**
 * The output format of a report command: `--format`, else what the `--out` file's extension names
 * (when the command offers it), else `fallback`. Shared by `report`, `loop report` and `mutate report`.
 */
export function reportFormat<F extends string>(allowed: readonly F[], format: string | undefined, out: string | undefined, fallback: F): F {
    const fromFile = out ? BY_EXTENSION[path.extname(out).slice(1).toLowerCase()] : undefined;
    const f = format ?? (fromFile && (allowed as readonly string[]).includes(fromFile) ? fromFile : fallback);
    if (!(allowed as readonly string[]).includes(f)) throw new EddyError(`unknown --format '${f}' (one of ${allowed.join(", ")})`);
    return f as F;
}

/**
 * A rendered report to stdout, or into `file` (folders made) with one line on stderr saying where.
 * The file is private to its owner (0600, folders made 0700): reports quote verdict details.
 */
export function writeReport(text: string, format: string, file: string | undefined): void {
    if (file === undefined) {
        process.stdout.write(text);
        return;
    }
    try {
        writePrivateFile(file, text);
    } catch (err) {
        throw new EddyError(`cannot write ${file}: ${(err as Error).message}`, 73, { cause: err });
    }
    note(`report written to ${file} (${format}, ${Buffer.byteLength(text)} bytes)`);
}
