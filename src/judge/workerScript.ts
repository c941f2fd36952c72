import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { packageRoot } from "../util/paths.js";

/** Bumped when verdict semantics change in a way the worker's bytes do not show. */
// 2: random-input seeds come from util/seeds.ts deriveSeed.
export const JUDGE_PROTOCOL = "2";

/** The Python worker script (shipped in src/, which the package includes; tsc does not copy .py). */
export function workerScriptPath(): string {
    return path.join(packageRoot(), "src", "judge", "python", "worker.py");
}

let version: string | undefined;

/** Judge version for the verdict cache: the protocol number plus a hash of the worker's source. */
export function judgeVersion(): string {
    version ??= `${JUDGE_PROTOCOL}-${createHash("sha256").update(readFileSync(workerScriptPath())).digest("hex").slice(0, 16)}`;
    return version;
}

/** The Python interpreter to use: the explicit option, then EDDY_PYTHON, then `python3` on PATH. */
export function pythonCommand(explicit?: string): string {
    return explicit || process.env.EDDY_PYTHON || "python3";
}
