import { spawnSync } from "node:child_process";
import path from "node:path";
import { pythonCommand } from "../../judge/workerScript.js";
import { packageRoot } from "../../util/paths.js";
import type { ParamValue } from "../../vocabulary.js";
import { EddyError } from "../../util/errors.js";
import type { ArgumentRule } from "./rules.js";

/** What running a question's own Python files tells the importer. */
export interface ProbeFacts {
    tuples: ParamValue[][];
    /** Python's str() of every value of every tuple: how Turbulence writes it into the question (974.0, not 974). */
    texts: string[][];
    /** Positions whose values hold floats: JSON cannot tell 974.0 from 974, so these travel as text. */
    floatPositions: number[];
    /** Where the tuples came from (a params_report.json, all_params.txt, genparams.py, manually_chosen_params.txt). */
    paramsSource: string;
    argNames: string[];
    vararg: boolean;
    /** Some answer of the model solution holds a float. */
    floats: boolean;
    /** Lengths of tuples input_generator() returned (empty: it never returned a tuple). */
    tupleLengths: number[];
    returnTypes: string[];
}

/** The importer's Python (probe.py, beside this file: tsc does not copy it, and the package ships src/). */
const PROBE_SCRIPT = path.join(packageRoot(), "src", "import", "turbulence", "probe.py");

/**
 * Runs probe.py (beside this file) on question `n` of the benchmark at `root`, with `-I` (no
 * environment, no user site) and `-B`. `reports` (the
 * published rounds' params_report.json files, first round first) give the neighbourhood when present.
 */
export function probeQuestion(root: string, n: number, fn: string, args: ArgumentRule, python?: string, reports: { files: string[]; root: string } = { files: [], root }): ProbeFacts {
    const res = spawnSync(pythonCommand(python), ["-I", "-B", PROBE_SCRIPT], {
        input: JSON.stringify({ root: path.resolve(root), question: n, function: fn, arguments: args, samples: 3, reports: reports.files, reportsRoot: path.resolve(reports.root) }),
        encoding: "utf8",
        timeout: 300_000,
        maxBuffer: 64 * 1024 * 1024
    });
    if (res.error) throw new EddyError(`cannot run ${pythonCommand(python)} to read Q${n}: ${res.error.message}`);
    const last = res.stdout.trim().split("\n").pop() ?? "";
    let out: { ok: boolean; error?: string } & Partial<ProbeFacts>;
    try {
        out = JSON.parse(last);
    } catch {
        throw new EddyError(`Q${n}: reading the question's Python files failed: ${(res.stderr || res.stdout).trim().split("\n").pop() ?? "no output"}`);
    }
    if (!out.ok) throw new EddyError(out.error ?? `Q${n}: reading the question failed`);
    return out as ProbeFacts;
}
