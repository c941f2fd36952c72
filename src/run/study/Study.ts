import { EddyError, isEddyError, oneLine } from "../../util/errors.js";
import { StoreVerdictCache, type Store } from "../../store/Store.js";
import type { RunRow } from "../../store/types.js";
import type { StudyConfig } from "../config.js";
import { resumeCommand } from "../../util/commandLine.js";
import { backendDescriptor, resumeFlags } from "../../inference/backends.js";
import { builtInLibrary } from "../../templates/library.js";
import { BatchWriter } from "../writer.js";
import { StudyCounters } from "./counters.js";
import { GenerateStage } from "./GenerateStage.js";
import { JudgeStage } from "./JudgeStage.js";
import { leaseRun } from "../../store/runLease.js";
import { runAnswers } from "../../store/outcomes.js";
import { openRun, sessionConfig, type OpenedRun } from "./openRun.js";
import type { StudyHooks, StudyResult } from "./types.js";
import { validateOracles } from "./validateOracles.js";
import { environmentChange, recordedEnvironment } from "../../judge/environment.js";

/**
 * One session of a study, in the steps of the method: open the run (create or resume), plan it,
 * generate every missing response, extract its code, judge it, store everything, and report
 * progress. Generation and judging overlap through a bounded queue; generation only waits when
 * that queue is full. A failing part stops the whole session at once; Ctrl-C (the hooks' signal)
 * stops it cleanly.
 */
export class Study {
    private readonly wallStart = performance.now();
    private readonly log: (line: string) => void;
    private readonly stopController = new AbortController();
    private fatal: unknown;

    constructor(
        private readonly store: Store,
        private readonly input: StudyConfig,
        private readonly hooks: StudyHooks = {}
    ) {
        this.log = hooks.onLog ?? (() => {});
    }

    /** Stop the session; with an error, the session fails with it. */
    private stop(err?: unknown): void {
        if (err !== undefined && this.fatal === undefined) this.fatal = err;
        this.stopController.abort();
    }

    async run(): Promise<StudyResult> {
        const config = sessionConfig(this.store, this.input);
        const opened = this.open(config);
        // One process per run at a time: a second one on the same run waits, then does what is left.
        const lease = await leaseRun(this.store, opened.run.id, { log: this.log, ...(this.hooks.signal ? { signal: this.hooks.signal } : {}) });
        try {
            return await this.work(config, opened);
        } finally {
            lease.release();
        }
    }

    /** Step 1 and 2: create or resume the run, and plan it. */
    private open(config: StudyConfig): OpenedRun {
        const opened = openRun(this.store, config, this.hooks.library ?? builtInLibrary(), (run: RunRow, created: boolean) => {
            this.hooks.onRunId?.(run.id);
            if (!created) this.log(`continuing run ${run.id} (${run.status})`);
        });
        if (opened.plan.small) this.log(`note: ${opened.plan.small}`);
        return opened;
    }

    /** Steps 3 to 6: generate, extract, judge and store, with progress; then the session's outcome. */
    private async work(config: StudyConfig, { run, created, plan, parts: prepared }: OpenedRun): Promise<StudyResult> {
        const { store, hooks } = this;
        const judging = hooks.judge !== false;
        const counters = new StudyCounters(this.wallStart, judging);
        const verdictCache = new StoreVerdictCache(store);
        const writer = new BatchWriter(store, verdictCache, (err) => this.stop(err));
        const judge = new JudgeStage({
            workers: config.judgeWorkers,
            language: config.language,
            judging,
            needPool: judging || backendDescriptor(config.backend).needsSolutions,
            allowUnsandboxed: config.allowUnsandboxed,
            cache: verdictCache,
            writer,
            counters,
            log: this.log,
            onPool: (p) => {
                // The judge's Python and the packages it offers answers are recorded with the isolation (isolation_json `python`).
                const before = run.isolation_json ? recordedEnvironment(parsedOr(run.isolation_json, null)) : undefined;
                const change = before ? environmentChange(before, p.environment) : undefined;
                if (change) this.log(`note: the judge's Python is not the one that judged this run before (${change}): verdicts judged before and now may differ`);
                store.setRunStatus(run.id, "running", { isolationLevel: p.isolation.level, isolation: { ...p.isolation, python: p.environment } });
            },
            onFatal: (err) => this.stop(err),
            signal: this.stopController.signal
        });
        // Stopping drops the queued verdicts: their responses are stored, a resume judges them.
        this.stopController.signal.addEventListener("abort", () => judge.abort());
        const onAbort = (): void => this.stop();
        hooks.signal?.addEventListener("abort", onAbort);
        if (hooks.signal?.aborted) this.stop();

        // SPEC §2: no answer is judged by an oracle whose model solution fails it on these instances.
        // A resumed run counts from what is stored (32/300, not 4/272).
        const stored = store.counts(run.id);
        counters.planned = plan.queries;
        counters.before = { generated: stored.generations + stored.missing, judged: stored.verdicts, harness: (stored.categories.truncated ?? 0) + (stored.categories.judge_error ?? 0) };
        const early = hooks.onProgress;
        if (judging) {
            counters.phase = "validating oracles";
            early?.(counters.snapshot(run.id));
            try {
                await validateOracles(store, plan.templates, plan.instances, { concurrency: config.judgeWorkers ?? 2, log: this.log, signal: this.stopController.signal });
                counters.phase = "";
            } catch (err) {
                this.stop(err);
                await judge.close();
                hooks.signal?.removeEventListener("abort", onAbort);
                return this.finish(run.id, created, plan.queries, counters, writer, [], resumeFlags(config));
            }
        }
        const generate = new GenerateStage({
            store, config, run, plan, writer, counters,
            // The judge pool is the solution source of a backend that answers with the model solutions.
            parts: async () => ({ ...(backendDescriptor(config.backend).needsSolutions ? { solutions: (await judge.pool)!, templates: plan.templates } : {}), ...prepared }),
            judge: (item) => judge.submit(item),
            log: this.log,
            signal: this.stopController.signal,
            onModelDone: hooks.onModelDone
        });
        const byId = new Map(plan.templates.map((t) => [t.id, t]));
        const configIds = new Set(store.configurations(run.id).map((c) => c.id));
        const ticker = hooks.onProgress ? setInterval(() => hooks.onProgress!(counters.snapshot(run.id)), hooks.progressMs ?? 500) : undefined;

        // A failing part stops the whole session at once (and waits for the other part to wind down).
        const guard = (p: Promise<void>): Promise<void> =>
            p.catch((err) => {
                // After Ctrl-C the inference worker may die of the same SIGINT: that is the interruption, not a failure.
                if (this.stopController.signal.aborted && this.fatal === undefined) this.log(`stopped: ${oneLine(err)}`);
                else this.stop(err);
            });
        try {
            await Promise.all([
                // A resumed run first judges what was generated but never judged, beside generation.
                guard(
                    judge.rejudge(store, run.id, (templateId, instance, configId) => {
                        const template = byId.get(templateId);
                        const inst = plan.instances.get(templateId)?.[instance];
                        return template && inst && configIds.has(configId) ? { template, instance: inst } : undefined;
                    })
                ),
                guard(generate.run())
            ]);
        } finally {
            await judge.finish();
            writer.flush();
            if (ticker) clearInterval(ticker);
            await judge.close();
            hooks.signal?.removeEventListener("abort", onAbort);
        }
        return this.finish(run.id, created, plan.queries, counters, writer, generate.missing, resumeFlags(config));
    }

    /** Step 7: the session's stats, the run's status, and the error that stopped it, if any. */
    private finish(runId: string, created: boolean, expected: number, counters: StudyCounters, writer: BatchWriter, missing: string[], resumeWith: string[]): StudyResult {
        const stats = counters.stats(writer.stats);
        this.hooks.onProgress?.(counters.snapshot(runId, true));
        if (missing.length)
            this.log(`${missing.length} answer(s) missing from the replay file (recorded as missing, never judged): ${missing.slice(0, 20).join(", ")}${missing.length > 20 ? ", …" : ""}`);
        if (this.fatal !== undefined) {
            const err = this.fatal;
            // A run this session created that failed before its first answer (a corrupt GGUF, no python3) is
            // removed, not left in `runs list` as a failed run with 0 responses: the same command makes it again.
            let dropped = false;
            try {
                dropped = created && this.store.dropEmptyRun(runId);
                if (!dropped) this.store.setRunStatus(runId, "failed", { error: oneLine(err), stats });
            } catch {
                // The database may be the very thing that failed (full, locked): the error below says so.
            }
            if (dropped) throw isEddyError(err) ? err : new EddyError(oneLine(err), 1, { cause: err });
            // A kept run says how to go on (a second model's corrupt file stops a run that holds the first's answers).
            const next = resumeCommand(runId, this.store.path, ["run"], resumeWith);
            if (isEddyError(err)) throw err.next ? err : new EddyError(`${oneLine(err)}; run ${runId} kept everything so far: fix that, then resume with`, err.exitCode, { cause: err, next });
            throw new EddyError(`run ${runId} stopped: ${oneLine(err)}; everything stored so far is kept: resume with`, 1, { cause: err, next });
        }
        const c = this.store.counts(runId);
        const complete = c.generations + c.missing >= expected && c.verdicts >= c.generations;
        const aborted = this.stopController.signal.aborted;
        const status = aborted || !complete ? "interrupted" : "complete";
        this.store.setRunStatus(runId, status, {
            stats,
            error: !complete && !aborted ? `${expected - c.generations - c.missing} queries and ${c.generations - c.verdicts} verdicts left (errors: ${counters.errors})` : null
        });
        const run = this.store.getRun(runId);
        return { runId, status, created, stats, missing, answers: runAnswers(c, parsedOr(run?.config_json ?? "{}", {}) as Record<string, unknown>, status) };
    }
}

/** A stored JSON column's value, or `fallback` when it does not parse. */
function parsedOr(text: string, fallback: unknown): unknown {
    try {
        return JSON.parse(text) as unknown;
    } catch {
        return fallback;
    }
}
