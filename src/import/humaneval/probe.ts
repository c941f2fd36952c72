import { spawnSync } from "node:child_process";
import { pythonCommand, toolArgs } from "../../judge/workerScript.js";
import { EddyError } from "../../util/errors.js";
import type { HumanEvalProblem } from "./problems.js";

/** What running a problem's canonical solution and check() tells the importer. */
export interface ProblemFacts {
    arity: number;
    /** Type names of the canonical solution's answers (int, float, str, list, matrix, none, …). */
    returns: string[];
}

/** Runs eddy_judge.tools.probe_humaneval on every problem (trusted code: the problems file's own solutions). */
export function probeProblems(problems: HumanEvalProblem[], python?: string): ProblemFacts[] {
    const res = spawnSync(pythonCommand(python), toolArgs("probe_humaneval"), { input: JSON.stringify(problems.map(({ line: _line, ...p }) => p)), encoding: "utf8", timeout: 600_000, maxBuffer: 64 * 1024 * 1024 });
    if (res.error) throw new EddyError(`cannot run ${pythonCommand(python)} to read the problems: ${res.error.message}`);
    let out: { ok: boolean; error?: string; problems?: ProblemFacts[] };
    try {
        out = JSON.parse(res.stdout.trim().split("\n").pop() ?? "");
    } catch {
        throw new EddyError(`reading the problems' Python failed: ${(res.stderr || res.stdout).trim().split("\n").pop() ?? "no output"}`);
    }
    if (!out.ok || !out.problems) throw new EddyError(out.error ?? "reading the problems failed");
    return out.problems;
}
