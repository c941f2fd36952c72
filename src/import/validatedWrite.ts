import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { EddyError, oneLine } from "../util/errors.js";

/** A temporary `<out>.importing-*` folder beside `out` with empty templates/ and oracles/: imports write and validate there first. */
export function stagingFolder(out: string): { tmp: string; templates: string; oracles: string } {
    mkdirSync(path.dirname(out), { recursive: true });
    const tmp = mkdtempSync(path.join(path.dirname(out), `.${path.basename(out)}.importing-`));
    const templates = path.join(tmp, "templates");
    const oracles = path.join(tmp, "oracles");
    mkdirSync(templates);
    mkdirSync(oracles);
    return { tmp, templates, oracles };
}

/**
 * Moves validated files from the staging folder into `out` (created when absent); re-importing
 * replaces those templates' files and the summary `summaryFile`, nothing else.
 */
export function moveInto(tmp: string, out: string, ids: string[], summaryFile: string): void {
    // Python's bytecode caches from validation stay behind (and go with the temporary folder).
    rmSync(path.join(tmp, "oracles", "__pycache__"), { recursive: true, force: true });
    try {
        if (!existsSync(out)) {
            renameSync(tmp, out);
            return;
        }
        for (const sub of ["templates", "oracles"]) mkdirSync(path.join(out, sub), { recursive: true });
        for (const id of ids) {
            renameSync(path.join(tmp, "templates", `${id}.yaml`), path.join(out, "templates", `${id}.yaml`));
            renameSync(path.join(tmp, "oracles", `${id}.py`), path.join(out, "oracles", `${id}.py`));
        }
        renameSync(path.join(tmp, summaryFile), path.join(out, summaryFile));
    } catch (err) {
        throw new EddyError(`cannot move the imported files into ${out}: ${oneLine(err)}`, 73, { cause: err });
    }
}
