import { availableParallelism } from "node:os";
import { performance } from "node:perf_hooks";
import { DEFAULT_LANGUAGE, languageInfo, type Language } from "../languages/languages.js";
import type { Template } from "../templates/types.js";
import type { ParamValue } from "../vocabulary.js";
import { Stopped, throwIfStopped } from "../util/abort.js";
import { capDetail } from "../util/detail.js";
import { EddyError, oneLine } from "../util/errors.js";
import { aptInstallCommand } from "../util/systemPackages.js";
import { inputSeed, paramTuple } from "../templates/instanceTuple.js";
import { MemoryVerdictCache, verdictKey } from "./cache.js";
import { environmentHash } from "./environment.js";
import type { IsolationReport, JudgeEnvironment, JudgeRequest, Verdict, VerdictCache } from "./types.js";
import { PythonWorker, startFailure, WorkerFailure, type WorkerReply } from "./worker/PythonWorker.js";
import { parseHelloReply, parseJudgeReply, parseMutantsReply, parseProfileReply, parseSourceReply, type JudgeReply, type VerdictProfile } from "./worker/replies.js";
import { judgeVersion, pythonCommand, workerArgs } from "./workerScript.js";

/** Options of JudgePool.start. */
export interface JudgePoolOptions {
    /** Worker processes (default: one per core). */
    workers?: number;
    /** Python interpreter (default: workerScript.ts pythonCommand(): EDDY_PYTHON, else Debian's /usr/bin/python3, else `python3`). */
    python?: string;
    /** Verdict cache (default: in memory). */
    cache?: VerdictCache;
    /**
     * Judge even where no sandbox can be made (no namespaces: answers could read the user's files,
     * oracles included). Default false: start() refuses. EDDY_ALLOW_UNSANDBOXED=1 also allows it.
     */
    allowUnsandboxed?: boolean;
    /** The language answers will be in: start() refuses when its runtime is not installed. */
    language?: Language;
    /** Stops starting (Ctrl-C): the workers still starting are killed, and start() rejects with Stopped (src/util/abort.ts). */
    signal?: AbortSignal;
}

// Oracle work (trusted) gets its own allowance on top of the candidate's budget before the
// pool declares a worker hung and replaces it.
const ORACLE_ALLOWANCE_MS = 60_000;
// The worker's own backstops reach about 15× the budget (budget.py): this waits longer still.
const WORKER_TIMEOUT_FACTOR = 20;
const CONTROL_TIMEOUT_MS = 30_000;

interface Slot {
    worker: PythonWorker;
    busy: boolean;
    /** Instances this slot's worker has prepared (instanceKey), as its own cache holds them (prepare.py). */
    prepared: Set<string>;
}

/** A request waiting for a worker: the instance it is for (undefined: any worker will do). */
interface Waiter {
    instance: string | undefined;
    resolve: (slot: Slot) => void;
    /** How many times a later request went first. */
    passed: number;
}

// prepare.py keeps up to 512 prepared instances and then starts afresh: the pool's record does the same.
const PREPARED_CAP = 512;
// How far into the queue a free worker looks for one of its instances, and how often the request at
// the head may be passed over before it goes first whatever it is for.
const LOOK_AHEAD = 64;
const MAX_PASSED = 8;

/**
 * Long-lived Python judge workers. Each request goes to an idle worker; a worker that dies or
 * hangs is replaced, and a harness failure is retried once on a fresh worker before it becomes
 * a `judge_error` verdict (never a model failure).
 */
export class JudgePool {
    private readonly slots: Slot[] = [];
    private readonly waiting: Waiter[] = [];
    private closed = false;
    private readonly version: string;
    private aloneChain: Promise<void> = Promise.resolve();

    private constructor(
        private readonly python: string,
        private readonly script: string[],
        private readonly cache: VerdictCache,
        /** What contains candidate code on this machine (as the first worker found it). */
        readonly isolation: IsolationReport,
        /** Other languages' runtimes the judge found (language → path, null when not installed). */
        readonly runtimes: Record<string, string | null>,
        /** Largest code the judge accepts, as the worker reports it (verdicts.py MAX_CODE_BYTES): more is a static_error without a worker. */
        readonly maxCodeBytes: number,
        /** The judge's interpreter and the third-party packages it offers answers (environment.ts). */
        readonly environment: JudgeEnvironment
    ) {
        // The environment decides verdicts too (an answer that imports numpy): a verdict is reused only where it is the same.
        this.version = `${judgeVersion()}|py=${environmentHash(environment)}`;
    }

    /** Starts the workers and checks that Python runs; a clear EddyError when it does not. */
    static async start(opts: JudgePoolOptions = {}): Promise<JudgePool> {
        const python = pythonCommand(opts.python);
        const script = workerArgs();
        const n = Math.max(1, opts.workers ?? availableParallelism());
        throwIfStopped(opts.signal, "stopped before the judge started");
        const started = await Promise.allSettled(Array.from({ length: n }, () => startWorker(python, script, opts.signal)));
        const workers = started.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
        if (opts.signal?.aborted) {
            await Promise.all(workers.map((w) => w.worker.close()));
            throw new Stopped("stopped while the judge started");
        }
        const failed = started.find((r): r is PromiseRejectedResult => r.status === "rejected");
        if (failed) {
            // Stop the ones that did start: a half-started pool would keep the process alive.
            await Promise.all(workers.map((w) => w.worker.close()));
            throw failed.reason;
        }
        const isolation = workers[0]!.isolation;
        const missing = opts.language ? missingRuntime(opts.language, workers[0]!.runtimes) : null;
        if (missing) {
            await Promise.all(workers.map((w) => w.worker.close()));
            throw new EddyError(missing);
        }
        if (!isolation.sandboxed && !opts.allowUnsandboxed && process.env.EDDY_ALLOW_UNSANDBOXED !== "1") {
            await Promise.all(workers.map((w) => w.worker.close()));
            // The judge's own reason (a missing bwrap is the usual one on a fresh machine, and has a one-command fix).
            const why = isolation.notes[0] ?? "no user, PID or mount namespaces";
            const anyway = "pass --allow-unsandboxed (or set EDDY_ALLOW_UNSANDBOXED=1) to judge anyway, and answers run WITHOUT a sandbox and can read your files, oracles included ('eddy doctor' shows more)";
            if (/not installed/.test(why) && /bwrap/.test(why))
                throw new EddyError(`no sandbox is possible here: bubblewrap (bwrap) is not installed; ${anyway}; install bubblewrap (what scripts/setup.sh does) with`, 1, { next: aptInstallCommand(["bubblewrap"]) });
            throw new EddyError(`no sandbox is possible here: ${why}; ${anyway}`);
        }
        const pool = new JudgePool(python, script, opts.cache ?? new MemoryVerdictCache(), workers[0]!.isolation, workers[0]!.runtimes, workers[0]!.maxCodeBytes, workers[0]!.environment);
        for (const w of workers) pool.slots.push({ worker: w.worker, busy: false, prepared: new Set() });
        return pool;
    }

    /** Judges one answer; never throws for a bad answer or a failing harness (→ verdict). */
    async judge(req: JudgeRequest): Promise<Verdict> {
        const t = req.template;
        if (req.code === null || req.code.trim() === "") return { category: "no_function", detail: "no code could be extracted from the response", ms: 0 };
        const size = Buffer.byteLength(req.code, "utf8");
        if (size > this.maxCodeBytes)
            return { category: "static_error", detail: `the code is ${Math.floor(size / 1024)} KB, more than the judge accepts (${Math.floor(this.maxCodeBytes / 1024)} KB)`, ms: 0 };
        const tuple = paramTuple(t, req.bindings);
        // A verdict earned under a weaker isolation is never reused under a stronger one.
        const language = req.language ?? DEFAULT_LANGUAGE;
        // The default language's keys stay as they were; another language's answers are keyed by it too.
        const key = verdictKey(req.code, t, tuple, `${this.version}|${this.isolation.level}${language === DEFAULT_LANGUAGE ? "" : `|${language}`}`);
        const hit = this.cache.get(key);
        if (hit) return { ...hit, cached: true };
        const message = judgeMessage(req, req.code);
        // The keeper enforces the CPU budget and its backstops; this only catches a hung worker.
        const timeout = t.budget.timeMs * WORKER_TIMEOUT_FACTOR * Math.max(1, this.isolation.cpuFactor ?? 1) + ORACLE_ALLOWANCE_MS;
        const attempt = await this.attempt(message, timeout);
        const failure = attempt.failure;
        let { reply, ms } = attempt;
        let rejudged = false;
        if (reply && reply.borderline === true) {
            // Over budget by less than the margin: judged once more with nothing else judging,
            // and that run decides (issue #20: the same answer, the same verdict, under any load).
            const again = await this.alone(() => this.attempt({ ...message, rejudge: true }, timeout));
            ms += again.ms;
            if (again.reply) {
                reply = again.reply;
                rejudged = true;
            }
        }
        if (!reply) return { category: "judge_error", detail: capDetail(failure || "judge failed"), ms };
        const first = rejudged ? " [re-judged alone: the first run went over its CPU budget by less than the margin]" : "";
        const verdict: Verdict = { category: reply.category, detail: capDetail(reply.detail + first), ms };
        if (reply.limit !== null) verdict.limit = reply.limit;
        if (reply.cpuMs !== null) verdict.cpuMs = reply.cpuMs;
        verdict.budgetMs = reply.budgetMs;
        if (rejudged) verdict.rejudged = true;
        if (reply.shrunk) verdict.shrunk = reply.shrunk;
        // CPU-time verdicts do not depend on load; sleeping and wall-clock backstops might.
        if (verdict.limit !== "blocked" && verdict.limit !== "wall") this.cache.set(key, verdict);
        return verdict;
    }

    /**
     * Judges one answer without the verdict cache and returns what each phase of its verdict cost
     * (eddy_judge/profile.py: wall and CPU milliseconds per phase, from the request to the worker's
     * keeper to the comparison). For `npm run bench:judge`; the verdict itself is the one judge() would give.
     */
    async profile(req: JudgeRequest & { code: string }): Promise<VerdictProfile> {
        const r = await this.send({ ...judgeMessage(req, req.code), profile: true }, CONTROL_TIMEOUT_MS, false);
        if (typeof r.error === "string") throw new EddyError(r.error);
        return parseProfileReply(r);
    }

    /** One request, retried once on a fresh worker when the harness failed. */
    private async attempt(message: Record<string, unknown>, timeout: number): Promise<{ reply?: JudgeReply; failure: string; ms: number }> {
        let reply: JudgeReply | undefined;
        let failure = "";
        // Time spent judging, not waiting for a free worker.
        let ms = 0;
        for (let attempt = 0; attempt < 2 && !reply; attempt++) {
            const timing = { ms: 0 };
            try {
                const r = await this.send(message, timeout, attempt > 0, timing);
                if (typeof r.error === "string") failure = r.error;
                else reply = parseJudgeReply(r);
            } catch (err) {
                // A dead or hung worker, one that could not be replaced, or a malformed reply: a harness failure.
                failure = oneLine(err);
            }
            ms += timing.ms;
        }
        return reply ? { reply, failure, ms } : { failure, ms };
    }

    /** Runs `fn` while this pool judges nothing else: every slot is held, one `alone` at a time. */
    private alone<T>(fn: () => Promise<T>): Promise<T> {
        const run = this.aloneChain.then(async () => {
            const held = await Promise.all(this.slots.map(() => this.acquire()));
            // Hand one slot back for fn's own request; the others stay held until it is done.
            this.release(held.pop()!);
            try {
                return await fn();
            } finally {
                for (const s of held) this.release(s);
            }
        });
        this.aloneChain = run.then(
            () => undefined,
            () => undefined
        );
        return run;
    }

    /** `solution` (default) or a `mutant_*` of the template's oracle, rendered as an answer for these bindings. */
    async answerSource(t: Template, bindings: Record<string, ParamValue>, which = "solution", language: Language = DEFAULT_LANGUAGE): Promise<string> {
        return this.controlParsed({ op: "source", oracle: t.oracleFile, oracleHash: t.oracleHash, function: t.function, arity: t.arity, bindings, which, language }, parseSourceReply);
    }

    /** Names of the oracle's `mutant_*` functions, in source order. */
    async mutants(t: Template): Promise<string[]> {
        return this.controlParsed({ op: "mutants", oracle: t.oracleFile, oracleHash: t.oracleHash }, parseMutantsReply);
    }

    /** Stops every worker (their temp dirs go with them). */
    async close(): Promise<void> {
        this.closed = true;
        await Promise.all(this.slots.map((s) => s.worker.close()));
    }

    /** Oracle-side requests: an oracle error is the caller's problem (EddyError), not a verdict. */
    private async control(message: Record<string, unknown>): Promise<WorkerReply> {
        let r: WorkerReply;
        try {
            r = await this.send(message, CONTROL_TIMEOUT_MS, false);
        } catch (err) {
            throw new EddyError(oneLine(err));
        }
        if (typeof r.error === "string") throw new EddyError(r.error);
        return r;
    }

    /** The parsed reply, or the malformed one's line as an EddyError (the caller's problem, as an oracle error is). */
    private async controlParsed<T>(message: Record<string, unknown>, parse: (r: WorkerReply) => T): Promise<T> {
        const r = await this.control(message);
        try {
            return parse(r);
        } catch (err) {
            throw new EddyError(oneLine(err));
        }
    }

    private async send(message: Record<string, unknown>, timeoutMs: number, fresh: boolean, timing?: { ms: number }): Promise<WorkerReply> {
        const instance = instanceKey(message);
        const slot = await this.acquire(instance);
        const started = performance.now();
        try {
            // A waiter handed a slot after close() must not start a worker nobody will stop.
            if (this.closed) throw new EddyError("the judge pool is closed");
            if (fresh || slot.worker.dead) await this.replace(slot);
            // After any replacement (which forgets the old worker's instances): this worker prepares it now.
            if (instance !== undefined) {
                if (slot.prepared.size >= PREPARED_CAP) slot.prepared.clear();
                slot.prepared.add(instance);
            }
            return await slot.worker.request(message, timeoutMs);
        } finally {
            if (timing) timing.ms = performance.now() - started;
            if (slot.worker.dead && !this.closed) await this.replace(slot).catch(() => undefined);
            this.release(slot);
        }
    }

    private async replace(slot: Slot): Promise<void> {
        slot.worker.kill();
        const fresh = (await startWorker(this.python, this.script)).worker;
        // close() may have run while it started: it has already stopped the workers it saw.
        if (this.closed) {
            fresh.kill();
            throw new EddyError("the judge pool is closed");
        }
        slot.worker = fresh;
        slot.prepared.clear();
    }

    /**
     * A free slot, preferring one whose worker has prepared this instance: a worker prepares each
     * instance it meets (oracle loaded, expected outputs computed), so an instance's answers judged
     * by one worker are prepared once, not once per worker. A free worker never waits for another's.
     */
    private acquire(instance?: string): Promise<Slot> {
        if (this.closed) return Promise.reject(new EddyError("the judge pool is closed"));
        const free = this.slots.filter((s) => !s.busy);
        const idle = free.find((s) => instance !== undefined && s.prepared.has(instance)) ?? free[0];
        if (idle) {
            idle.busy = true;
            return Promise.resolve(idle);
        }
        return new Promise((resolve) => this.waiting.push({ instance, resolve, passed: 0 }));
    }

    private release(slot: Slot): void {
        const i = nextWaiter(this.waiting, slot, this.slots);
        if (i < 0) {
            slot.busy = false;
            return;
        }
        if (i > 0) this.waiting[0]!.passed++;
        this.waiting.splice(i, 1)[0]!.resolve(slot);
    }
}

/**
 * Which waiting request a freed slot takes (an index into `waiting`, -1 when none waits): within the
 * first LOOK_AHEAD, the first for an instance this slot's worker has prepared; else the first that
 * no other worker has prepared (so that it is prepared once); else the head. The head goes first
 * once it has been passed over MAX_PASSED times, so that no request waits for ever.
 */
export function nextWaiter(waiting: readonly Pick<Waiter, "instance" | "passed">[], slot: Pick<Slot, "prepared">, slots: readonly Pick<Slot, "prepared">[]): number {
    if (waiting.length === 0) return -1;
    if (waiting[0]!.passed >= MAX_PASSED) return 0;
    const ahead = waiting.slice(0, LOOK_AHEAD);
    const mine = ahead.findIndex((w) => w.instance !== undefined && slot.prepared.has(w.instance));
    if (mine >= 0) return mine;
    const others = slots.filter((s) => s !== slot);
    const unclaimed = ahead.findIndex((w) => w.instance === undefined || !others.some((s) => s.prepared.has(w.instance!)));
    return Math.max(0, unclaimed);
}

/** The instance a worker request prepares (its oracle, seed and inputs), or undefined for one that prepares none. */
function instanceKey(message: Record<string, unknown>): string | undefined {
    if (message.op !== "judge") return undefined;
    return JSON.stringify([message.oracle, message.oracleHash, message.bindings, message.seed, message.randomInputs, message.comparator ?? null]);
}

/** The worker's judge request for one answer. */
function judgeMessage(req: JudgeRequest, code: string): Record<string, unknown> {
    const t = req.template;
    const language = req.language ?? DEFAULT_LANGUAGE;
    return {
        op: "judge",
        oracle: t.oracleFile,
        oracleHash: t.oracleHash,
        function: t.function,
        arity: t.arity,
        bindings: req.bindings,
        comparator: t.comparator,
        randomInputs: t.randomInputs,
        seed: inputSeed(t.id, paramTuple(t, req.bindings)),
        budget: t.budget,
        code,
        // A fuzzing failure's input is shrunk only where someone reads it (a study's answers, eddy judge): not for mutants or validation.
        ...(req.shrink ? { shrink: true } : {}),
        // The worker's default is the registry's too (eddy_judge/languages.py).
        ...(language === DEFAULT_LANGUAGE ? {} : { language })
    };
}

/** The one-line error for a language whose runtime the judge did not find, or null. */
export function missingRuntime(language: Language, runtimes: Record<string, string | null>): string | null {
    const info = languageInfo(language);
    if (info.runtime === null || runtimes[language]) return null;
    return `${info.display} answers need ${info.runtime.binary}, which is not installed: install Debian's ${info.runtime.package} package ('eddy doctor' lists the languages)`;
}

async function startWorker(
    python: string,
    script: string[],
    signal?: AbortSignal
): Promise<{ worker: PythonWorker; isolation: IsolationReport; runtimes: Record<string, string | null>; maxCodeBytes: number; environment: JudgeEnvironment }> {
    const worker = await PythonWorker.spawn(python, script);
    // Ctrl-C while the worker starts (its sandbox, Python, the environment it reports): killed, not waited for.
    const onAbort = (): void => worker.kill();
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) worker.kill();
    try {
        const raw = await worker.request({ op: "hello" }, CONTROL_TIMEOUT_MS);
        if (typeof raw.error === "string") throw new WorkerFailure(raw.error);
        const hello = parseHelloReply(raw);
        return { worker, isolation: hello.isolation, runtimes: hello.runtimes, maxCodeBytes: hello.limits.maxCodeBytes, environment: hello.environment };
    } catch (err) {
        worker.kill();
        await worker.ended;
        if (signal?.aborted) throw new Stopped("stopped while the judge started");
        throw startFailure(python, worker.exitReason ?? oneLine(err));
    } finally {
        signal?.removeEventListener("abort", onAbort);
    }
}
