import { execa } from "execa";
import { EddyError, oneLine } from "../util/errors.js";
import { parseEnvironment } from "./environment.js";
import type { JudgeEnvironment } from "./types.js";
import { pythonCommand, toolArgs } from "./workerScript.js";

// The judge's Python environment read from outside the judge (a queued study's identity, its coordinator's record):
// one short process of the interpreter, running the same code as the worker's hello (environment.ts says what it means).

const cache = new Map<string, Promise<JudgeEnvironment>>();

/**
 * The environment of the judge's interpreter (`python`, default pythonCommand()), asked once per
 * process and interpreter from outside the judge (eddy_judge/tools/environment.py, the code the
 * worker's hello runs). A failure is not remembered.
 */
export function readEnvironment(python: string = pythonCommand()): Promise<JudgeEnvironment> {
    let p = cache.get(python);
    if (!p) {
        p = (async () => {
            const r = await execa(python, toolArgs("environment"), { reject: false, timeout: 30_000, stdin: "ignore" });
            let value: unknown;
            try {
                value = JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "");
            } catch {
                value = undefined;
            }
            const env = r.exitCode === 0 ? parseEnvironment(value) : undefined;
            if (typeof env === "object") return env;
            const why = r.exitCode !== 0 ? (r.failed && !r.exitCode ? oneLine(r.shortMessage) : `exit ${r.exitCode}: ${oneLine(r.stderr).slice(0, 160)}`) : `it said ${oneLine(r.stdout).slice(0, 120) || "nothing"}${typeof env === "string" ? ` (${env})` : ""}`;
            throw new EddyError(`cannot read the judge's Python environment from ${python} (${why})`);
        })();
        p.catch(() => cache.delete(python));
        cache.set(python, p);
    }
    return p;
}
