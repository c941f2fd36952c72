import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Where a sibling module meant to run in a child Node process lives, and how to start it.
 * From dist/ it is plain `.js`; from src/ (vitest, tsx) it is `.ts` and needs the tsx loader.
 * `from` is the caller's `import.meta.url`, `baseName` the module name without extension.
 */
export function childModule(from: string, baseName: string): { file: string; execArgv: string[] } {
    const dir = path.dirname(fileURLToPath(from));
    const js = path.join(dir, baseName + ".js");
    if (existsSync(js)) return { file: js, execArgv: [] };
    const ts = path.join(dir, baseName + ".ts");
    if (existsSync(ts)) return { file: ts, execArgv: ["--import", "tsx"] };
    throw new Error(`child module ${baseName} not found beside ${dir}`);
}
