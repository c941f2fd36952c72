import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import { judgePackageParent } from "../../judge/workerScript.js";
import { EddyError, oneLine } from "../../util/errors.js";
import { packageRoot } from "../../util/paths.js";
import type { Dataset, HumanEvalProblem } from "./problems.js";

/** What expected.py reports for one problem it could store. */
export interface Expected {
    ok: true;
    arity: number;
    returns: string[];
    evalplus: boolean;
    tests: Record<string, number>;
    canonicalMs: Record<string, number>;
    budgetMs: number | null;
    sha256: string;
    bytes: number;
    /** Expected outputs over 16 MB kept as their digest (compared exactly by it, expected.py). */
    digests: number;
}

/** How the problems' own code runs at import: in the judge's sandbox, under these limits. */
export interface GroundTruthLimits {
    /** CPU seconds (reference machine; scaled by the judge's host factor) for one problem's program and all its inputs. */
    cpuS: number;
    /** Address space of its process (MB). */
    memoryMb: number;
    /** EvalPlus's minimum per-input time limit (s) the inputs' limits are computed with (default 4, its current; --evalplus-version names another). */
    minTimeLimitS?: number;
}

/** EvalPlus's memory limit for an answer (4 GiB): a canonical solution runs under the same at import. */
export const DEFAULT_GROUND_TRUTH: GroundTruthLimits = { cpuS: 60, memoryMb: 4096 };

const EXPECTED_SCRIPT = path.join(packageRoot(), "src", "import", "humaneval", "expected.py");

/**
 * One expected.py process: trusted code that runs each problem's program in the judge's sandbox
 * (a zygote and keepers of its own, started once) and writes what came back as tagged JSON. It
 * serves one problem after another; one that ends or hangs is replaced for the next problem.
 */
class Lane {
    private child: ChildProcessWithoutNullStreams | undefined;
    private out = "";
    private err = "";
    private waiting: { resolve: (line: string) => void; reject: (err: Error) => void } | undefined;
    private ended: string | undefined;

    constructor(private readonly python: string) {}

    private start(): ChildProcessWithoutNullStreams {
        const child = spawn(this.python, ["-I", "-B", EXPECTED_SCRIPT, judgePackageParent()], { stdio: ["pipe", "pipe", "pipe"] });
        this.out = "";
        this.err = "";
        this.ended = undefined;
        child.stdout.setEncoding("utf8").on("data", (d: string) => {
            this.out += d;
            const nl = this.out.indexOf("\n");
            if (nl >= 0 && this.waiting) {
                const line = this.out.slice(0, nl);
                this.out = this.out.slice(nl + 1);
                const w = this.waiting;
                this.waiting = undefined;
                w.resolve(line);
            }
        });
        child.stderr.setEncoding("utf8").on("data", (d: string) => (this.err = (this.err + d).slice(-4000)));
        child.stdin.on("error", () => {});
        const gone = (why: string) => {
            if (this.child !== child) return;
            this.ended = why;
            this.child = undefined;
            const w = this.waiting;
            this.waiting = undefined;
            const tail = oneLine(this.err.trim().split("\n").pop() ?? "");
            w?.reject(new EddyError(`eddy's process computing its expected outputs ${why}${tail ? `: ${tail}` : ""}`));
        };
        child.on("error", (e) => gone(`could not run (${this.python}: ${e.message})`));
        child.on("close", (code, signal) => gone(signal ? `was killed by ${signal}` : `exited with status ${code}`));
        this.child = child;
        return child;
    }

    /** The expected outputs of one problem, written to `out`; an EddyError saying why it cannot come in. */
    compute(p: HumanEvalProblem, dataset: Dataset, out: string, limits: GroundTruthLimits, unsandboxedOk: boolean, timeoutMs: number): Promise<Expected> {
        const child = this.child ?? this.start();
        return new Promise<string>((resolve, reject) => {
            const timer = setTimeout(() => {
                // Let go at once: the next problem starts a fresh process.
                if (this.child === child) this.child = undefined;
                child.kill("SIGKILL");
                const w = this.waiting;
                this.waiting = undefined;
                w?.reject(new EddyError(`computing its expected outputs did not finish within ${Math.round(timeoutMs / 1000)} s`));
            }, timeoutMs);
            this.waiting = {
                resolve: (line) => {
                    clearTimeout(timer);
                    resolve(line);
                },
                reject: (err) => {
                    clearTimeout(timer);
                    reject(err);
                }
            };
            // The line as written: Python's json keeps integers beyond 2^53 exact.
            const head = JSON.stringify({ dataset, out, cpuS: limits.cpuS, memoryMb: limits.memoryMb, unsandboxedOk, ...(limits.minTimeLimitS !== undefined ? { minTimeLimitS: limits.minTimeLimitS } : {}) });
            child.stdin.write(`${head.slice(0, -1)}, "problem": ${p.line.trim()}}\n`);
        }).then((line) => {
            let r: { ok?: boolean; error?: unknown } | undefined;
            try {
                r = JSON.parse(line) as { ok?: boolean; error?: unknown };
            } catch {
                r = undefined;
            }
            if (r?.ok === true) return r as Expected;
            throw new EddyError(typeof r?.error === "string" ? r.error : `eddy's process computing its expected outputs said something unreadable: ${oneLine(line.slice(0, 200))}`);
        });
    }

    /** Ends the process (its sandboxes end with it). */
    async close(): Promise<void> {
        const child = this.child;
        if (!child) return;
        await new Promise<void>((resolve) => {
            const t = setTimeout(() => child.kill("SIGKILL"), 5000);
            child.on("close", () => {
                clearTimeout(t);
                resolve();
            });
            child.stdin.end();
        });
    }
}

/**
 * The expected outputs of every problem (`out(p)` names its file), `lanes` problems at once, each
 * problem's own code run in the judge's sandbox; per problem, its facts or the Error saying why it
 * cannot come in, in problem order. `onDone` is called as each one finishes.
 */
export async function computeGroundTruth(
    problems: HumanEvalProblem[],
    opts: { dataset: Dataset; out: (p: HumanEvalProblem) => string; python: string; lanes: number; limits: GroundTruthLimits; unsandboxedOk: boolean; cpuFactor: number; onDone?: (p: HumanEvalProblem, r: Expected | Error) => void }
): Promise<(Expected | Error)[]> {
    const results: (Expected | Error)[] = new Array(problems.length);
    // The sandbox's own limits end a problem long before this: its CPU limit, 10 x that plus 10 s
    // of wall-clock time (eddy_judge/outputs.py), the static check's 30 s, and slack.
    const timeoutMs = (10 * opts.limits.cpuS * 1000 * Math.max(1, opts.cpuFactor) + 10_000 + 30_000) * 1.5 + 60_000;
    const lanes = Array.from({ length: Math.max(1, Math.min(opts.lanes, problems.length)) }, () => new Lane(opts.python));
    let next = 0;
    try {
        await Promise.all(
            lanes.map(async (lane) => {
                while (next < problems.length) {
                    const i = next++;
                    const p = problems[i]!;
                    try {
                        results[i] = await lane.compute(p, opts.dataset, opts.out(p), opts.limits, opts.unsandboxedOk, timeoutMs);
                    } catch (err) {
                        results[i] = err instanceof Error ? err : new Error(String(err));
                    }
                    opts.onDone?.(p, results[i]!);
                }
            })
        );
    } finally {
        await Promise.all(lanes.map((l) => l.close()));
    }
    return results;
}
