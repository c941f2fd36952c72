import path from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "../run/helpers.js";

/**
 * A module of the built dist/ (test/globalSetup.ts builds it from src/ at each start), typed as its source:
 * `built<typeof import("../../src/queue/worker.js")>("queue/worker.js")`. What such a module forks (a
 * shard's process, a llama.cpp worker) then runs compiled eddy, as the CLI's do: the same module from src/
 * forks it under tsx, which compiles eddy again in every child (about 0.7 CPU-s each).
 */
export async function built<T>(module: string): Promise<T> {
    return (await import(pathToFileURL(path.join(ROOT, "dist", module)).href)) as T;
}
