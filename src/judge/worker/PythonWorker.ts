import { createInterface } from "node:readline";
import { execa, type ResultPromise } from "execa";
import { readFileSync } from "node:fs";
import path from "node:path";
import { EddyError } from "../../util/errors.js";
import { judgePackageParent } from "../workerScript.js";

/** The oldest Python the judge runs on, as eddy_judge/__init__.py states it (stated once, there). */
export function minPython(): string {
    try {
        const m = /MIN_PYTHON = \((\d+), (\d+)\)/.exec(readFileSync(path.join(judgePackageParent(), "eddy_judge", "__init__.py"), "utf8"));
        if (m) return `${m[1]}.${m[2]}`;
    } catch {
        // fall through: the message still makes sense without the number
    }
    return "3";
}

/** A reply line from the worker (eddy_judge.worker): the request's fields answered, or `error` when the harness failed. */
export type WorkerReply = Record<string, unknown> & { id: number; error?: string };

interface Pending {
    resolve: (reply: WorkerReply) => void;
    reject: (err: Error) => void;
    timer: NodeJS.Timeout;
}

/** Raised when a worker dies, hangs or cannot start: the pool turns it into a judge_error or a retry. */
export class WorkerFailure extends Error {
    override readonly name = "WorkerFailure";
}

/**
 * One long-lived `python3 -I -m eddy_judge`-style worker speaking line-delimited JSON. It handles one request at a
 * time (the pool never sends a second before the first is answered); replies are matched by id.
 */
export class PythonWorker {
    private nextId = 1;
    private readonly pending = new Map<number, Pending>();
    private stderrTail = "";
    private exited = false;
    /** Resolves when the process has ended, whatever the reason. */
    readonly ended: Promise<void>;

    private constructor(private readonly proc: ResultPromise<{ stdin: "pipe"; stdout: "pipe"; stderr: "pipe"; buffer: false; reject: false }>, readonly python: string) {
        const lines = createInterface({ input: proc.stdout });
        lines.on("line", (line) => this.onLine(line));
        proc.stderr.on("data", (chunk: Buffer) => {
            this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-4000);
        });
        proc.stdin.on("error", () => undefined); // EPIPE after death is reported through `ended`
        this.ended = proc.then(
            (result) => this.onExit(result.code === "ENOENT" ? `cannot run ${python}: not found` : this.describeExit(result.exitCode, result.signal)),
            (err: unknown) => this.onExit(String(err))
        );
    }

    /** Starts a worker process; fails fast (EddyError) when python cannot be started at all. */
    static async spawn(python: string, args: string[]): Promise<PythonWorker> {
        const proc = execa(python, args, { stdin: "pipe", stdout: "pipe", stderr: "pipe", buffer: false, reject: false });
        return new PythonWorker(proc, python);
    }

    /** Whether the process is gone. */
    get dead(): boolean {
        return this.exited;
    }

    /** Sends one request and waits for its reply, killing the worker if it takes longer than `timeoutMs`. */
    request(message: Record<string, unknown>, timeoutMs: number): Promise<WorkerReply> {
        if (this.exited) return Promise.reject(new WorkerFailure("judge worker is not running" + this.stderrNote()));
        const id = this.nextId++;
        return new Promise<WorkerReply>((resolve, reject) => {
            const timer = setTimeout(() => {
                this.pending.delete(id);
                reject(new WorkerFailure(`judge worker did not answer within ${timeoutMs} ms`));
                this.kill();
            }, timeoutMs);
            this.pending.set(id, { resolve, reject, timer });
            this.proc.stdin.write(JSON.stringify({ ...message, id }) + "\n");
        });
    }

    /** Ends the worker: closing stdin lets it clean its temp dir; SIGKILL after a grace period. */
    async close(): Promise<void> {
        if (!this.exited) {
            this.proc.stdin.end();
            const t = setTimeout(() => this.kill(), 2000);
            await this.ended;
            clearTimeout(t);
        }
    }

    /** Kills the worker at once. */
    kill(): void {
        if (!this.exited) this.proc.kill("SIGKILL");
    }

    private onLine(line: string): void {
        let reply: WorkerReply;
        try {
            reply = JSON.parse(line) as WorkerReply;
        } catch {
            this.stderrTail = (this.stderrTail + "\n[stdout] " + line).slice(-4000);
            return;
        }
        const p = this.pending.get(reply.id);
        if (!p) return;
        this.pending.delete(reply.id);
        clearTimeout(p.timer);
        p.resolve(reply);
    }

    private describeExit(code: number | undefined, signal: string | undefined): string {
        return signal ? `judge worker killed by ${signal}` : `judge worker exited with status ${code ?? "?"}`;
    }

    private onExit(why: string): void {
        this.exited = true;
        for (const [id, p] of this.pending) {
            clearTimeout(p.timer);
            p.reject(new WorkerFailure(why + this.stderrNote()));
            this.pending.delete(id);
        }
        this.exitReason = why;
    }

    /** Why the process ended, once it has. */
    exitReason: string | undefined;

    private stderrNote(): string {
        const last = this.stderrTail.trim().split("\n").slice(-1)[0];
        return last ? ` (${last.slice(0, 300)})` : "";
    }
}

/** Converts a worker that could not even start into the one-line error a person sees. */
export function startFailure(python: string, why: string): EddyError {
    if (/not found|ENOENT/.test(why))
        return new EddyError(`${python} not found on PATH: eddy's judge needs Python ${minPython()}+ (standard library only); install it or set EDDY_PYTHON`);
    return new EddyError(`the Python judge worker (${python}) failed to start: ${why}`);
}
