import { execa } from "execa";
import { inputSeed, paramTuple } from "../instanceTuple.js";
import { pythonCommand, toolArgs } from "../../judge/workerScript.js";
import { EddyError } from "../../util/errors.js";
import type { Instance, Template } from "../types.js";
import type { Category } from "../../vocabulary.js";

/** Branch coverage of the model solution reached by one kind of input (fixed tests or random inputs). */
export interface BranchCoverage {
    /** Branch outcomes in `solution` (two per if/while/for, one per except handler). */
    branches: number;
    covered: number;
    /** covered ÷ branches; 1 when the solution has no branch. */
    coverage: number;
    /** The outcomes never reached, e.g. `line 7 if: false`. */
    missed: string[];
    /** Statement lines of `solution`, and how many ran. */
    lines: number;
    linesRun: number;
}

/** What strength.py measured over one neighbourhood. */
export interface StrengthMeasure {
    fixed: BranchCoverage;
    random: BranchCoverage;
    counts: { fixed: number; random: number; randomWithEdge: number; solutionErrors: number };
    edges: {
        names: string[];
        /** Whether the oracle defines edge_cases(). */
        measured: boolean;
        /** Per named edge: share of the random inputs that hit it. */
        randomShare: Record<string, number>;
        /** Per named edge: fixed tests that hit it. */
        fixedHits: Record<string, number>;
        /** Share of random inputs hitting at least one named edge. */
        randomWithAnyEdge: number;
        /** Names edge_cases() returned that `edges:` does not list. */
        unknown: string[];
    };
    notes: string[];
    /** With `check`: the in-process verdicts (quick form of `validate`). */
    check?: DirectCheck;
}

/** The model solution and the mutants judged in the measuring process itself (trusted oracle code, no sandbox). */
export interface DirectCheck {
    /** Instances (index into the instances given) where the solution fails a fixed test, raises or is too slow. */
    solutionFailures: { index: number; detail: string }[];
    /** `category`: the verdict the judge gives the call that killed it (strength.py's Failed.category). */
    mutants: { name: string; killed: boolean; killedOn?: number; by?: string; category?: Category }[];
}


/** Seconds one template's measurement may take before it is reported as timed out. */
const TIMEOUT_S = 180;

/**
 * Runs the oracle's model solution under sys.settrace on the fixed tests and on the random inputs of
 * every instance (drawn with the judge's seeds, so they are the inputs a candidate meets), in a
 * plain Python process: the oracle is trusted code, as in the judge's own oracle calls.
 */
export async function measureStrength(t: Template, instances: Instance[], opts: { check?: boolean; python?: string; solutionOnly?: boolean } = {}): Promise<StrengthMeasure> {
    const request = {
        oracle: t.oracleFile,
        instances: instances.map((i) => ({ bindings: i.bindings, seed: inputSeed(t.id, paramTuple(t, i.bindings)) })),
        randomInputs: t.randomInputs,
        edges: t.edges ?? [],
        comparator: t.comparator,
        timeMs: t.budget.timeMs,
        check: opts.check === true,
        // Only the model solution's verdicts: no coverage tracing, no mutants (the coverage figures are then meaningless).
        ...(opts.solutionOnly ? { trace: false, mutants: false } : {})
    };
    // eddy_judge.tools.strength: in the judge's package, where it shares the oracle contract (oracle.py) and the comparators.
    const r = await execa(pythonCommand(opts.python), toolArgs("strength"), { input: JSON.stringify(request), reject: false, timeout: TIMEOUT_S * 1000 });
    if (r.timedOut) throw new EddyError(`${t.id}: strength measurement took longer than ${TIMEOUT_S} s`);
    if (r.exitCode !== 0 || r.stdout.trim() === "")
        throw new EddyError(`${t.id}: strength measurement failed: ${(r.stderr || r.shortMessage || "no output").split("\n").filter(Boolean).pop()}`);
    const out = JSON.parse(r.stdout) as StrengthMeasure | { error: string };
    if ("error" in out) throw new EddyError(`${t.id}: strength measurement failed: ${out.error}`);
    return out;
}
