import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let root: string | undefined;

/** The folder holding eddy's package.json, whether running from src/ (tests, tsx) or dist/. */
export function packageRoot(): string {
    if (root) return root;
    let dir = path.dirname(fileURLToPath(import.meta.url));
    for (;;) {
        const pkg = path.join(dir, "package.json");
        if (existsSync(pkg) && JSON.parse(readFileSync(pkg, "utf8")).name === "eddy") return (root = dir);
        const up = path.dirname(dir);
        if (up === dir) throw new Error("cannot find eddy's package.json above " + fileURLToPath(import.meta.url));
        dir = up;
    }
}

export function eddyVersion(): string {
    return JSON.parse(readFileSync(path.join(packageRoot(), "package.json"), "utf8")).version;
}

/** Where `eddy models list` looks and where the tiny models are written. */
export function modelsDir(): string {
    return process.env.EDDY_MODELS ?? path.join(packageRoot(), "models");
}

/** The embedded default database: `.eddy/eddy.db` under the current directory; `EDDY_DB` overrides. */
export function defaultDbPath(): string {
    return process.env.EDDY_DB ?? path.resolve(".eddy", "eddy.db");
}

/** Default folder for reports written by `eddy demo` and `eddy report --out` without a path. */
export function defaultReportsDir(): string {
    return path.resolve(".eddy", "reports");
}
