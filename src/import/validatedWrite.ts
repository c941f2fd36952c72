import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { EddyError, oneLine } from "../util/errors.js";
import { makeTempDir, sweepStale } from "../util/tempDir.js";

/**
 * A temporary `.<out>.importing-<pid>-*` folder beside `out` with empty templates/ and oracles/:
 * imports write and validate there first. It is removed on every exit (`dispose`, the end of the
 * process, SIGINT/SIGTERM/SIGHUP); folders left by a killed import are swept here first.
 */
export function stagingFolder(out: string): { tmp: string; templates: string; oracles: string; dispose: () => void } {
    mkdirSync(path.dirname(out), { recursive: true });
    const prefix = `.${path.basename(out)}.importing-`;
    sweepStale(path.dirname(out), prefix);
    const dir = makeTempDir(path.dirname(out), prefix);
    const templates = path.join(dir.path, "templates");
    const oracles = path.join(dir.path, "oracles");
    mkdirSync(templates);
    mkdirSync(oracles);
    return { tmp: dir.path, templates, oracles, dispose: dir.dispose };
}

/**
 * Moves validated files from the staging folder into `out` (created when absent); re-importing
 * replaces those templates' files (with the data files `oracleData` names beside their oracles) and
 * the summary `summaryFile`, nothing else.
 */
export function moveInto(tmp: string, out: string, ids: string[], summaryFile: string, oracleData: (id: string) => string[] = () => []): void {
    // Python's bytecode caches from validation stay behind (and go with the temporary folder).
    rmSync(path.join(tmp, "oracles", "__pycache__"), { recursive: true, force: true });
    try {
        if (!existsSync(out)) {
            mkdirSync(out);
            for (const sub of ["templates", "oracles"]) renameSync(path.join(tmp, sub), path.join(out, sub));
        } else {
            for (const sub of ["templates", "oracles"]) mkdirSync(path.join(out, sub), { recursive: true });
            for (const id of ids) {
                renameSync(path.join(tmp, "templates", `${id}.yaml`), path.join(out, "templates", `${id}.yaml`));
                renameSync(path.join(tmp, "oracles", `${id}.py`), path.join(out, "oracles", `${id}.py`));
                // Files an oracle reads beside itself (an import's expected outputs).
                for (const f of oracleData(id)) renameSync(path.join(tmp, "oracles", f), path.join(out, "oracles", f));
            }
        }
        renameSync(path.join(tmp, summaryFile), path.join(out, summaryFile));
    } catch (err) {
        throw new EddyError(`cannot move the imported files into ${out}: ${oneLine(err)}`, 73, { cause: err });
    }
}
