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
    // The test suite builds dist/ from this very source before it starts (test/globalSetup.ts) and says so: a child
    // started from the build skips compiling its whole module graph under tsx (1.5 to 2 CPU-seconds a child).
    const built = process.env.EDDY_CHILDREN_FROM_BUILD === "1" ? builtTwin(ts) : undefined;
    if (built) return { file: built, execArgv: [] };
    if (existsSync(ts)) return { file: ts, execArgv: ["--import", "tsx"] };
    throw new Error(`child module ${baseName} not found beside ${dir}`);
}

/** `<root>/src/<path>.ts`'s compiled twin `<root>/dist/<path>.js` (tsconfig.json: rootDir src, outDir dist), if built. */
function builtTwin(ts: string): string | undefined {
    const parts = ts.split(path.sep);
    const at = parts.lastIndexOf("src");
    if (at < 0) return undefined;
    const js = [...parts.slice(0, at), "dist", ...parts.slice(at + 1)].join(path.sep).replace(/\.ts$/, ".js");
    return existsSync(js) ? js : undefined;
}
