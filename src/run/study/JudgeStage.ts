import { availableParallelism } from "node:os";
import type { Language } from "../../languages/languages.js";
import { isStopped, unlessStopped } from "../../util/abort.js";
import { oneLine } from "../../util/errors.js";
import { JudgePool, type JudgePoolOptions } from "../../judge/JudgePool.js";
import type { Verdict, VerdictCache } from "../../judge/types.js";
import type { StopReason } from "../../inference/types.js";
import type { Store } from "../../store/Store.js";
import type { Template } from "../../templates/types.js";
import type { Category, ParamValue } from "../../vocabulary.js";
import { Channel } from "../channel.js";
import type { BatchWriter } from "../writer.js";
import type { StudyCounters } from "./counters.js";
import type { JudgeItem } from "./types.js";

const TRUNCATING: ReadonlySet<StopReason> = new Set(["max_tokens", "context_full"]);

/**
 * The truncation rule: a response cut off by max tokens or the context that fails the judge is
 * `truncated` (the harness's limit, not the model's failure) unless it had already closed a
 * fenced code block, in which case the cut came after the code and the verdict stands.
 * Passing code still passes, and `judge_error` stays what it is.
 */
export function finalCategory(judged: Category, stop: StopReason, fences = 0): Category {
    if (TRUNCATING.has(stop) && fences < 2 && judged !== "passed" && judged !== "judge_error") return "truncated";
    return judged;
}

/** How many ``` fences a response has (the same count the store computes in SQL for re-judging). */
export function countFences(text: string): number {
    return text.split("```").length - 1;
}

/** One response of a batch handed to {@link JudgeStage.judgeBatch}. */
export interface BatchJudgeItem {
    template: Template;
    bindings: Record<string, ParamValue>;
    code: string | null;
    /** The answer's language when not the stage's (a translation loop's step). */
    language?: Language | undefined;
    stopReason: StopReason;
    /** ``` fences in the response (the truncation rule). */
    fences: number;
}

/** A verdict after the truncation rule (`category`), with the judge's own (`judgeCategory`). */
export type FinalVerdict = Verdict & { judgeCategory: Category };

/** What the judge stage needs from the study around it. */
export interface JudgeStageOptions {
    workers?: number | undefined;
    /** The answers' language (absent: python). */
    language?: Language | undefined;
    /** false: no verdicts (the pool may still start, for the reference backend). */
    judging: boolean;
    /** Start the pool even without judging (the reference backend answers through it). */
    needPool: boolean;
    allowUnsandboxed?: boolean | undefined;
    /** The run's verdict cache (the store's); a caller that only judges batches may bring its own. */
    cache: VerdictCache;
    /** Where queued verdicts go, and what they count: needed when `judging` (the queue's consumers use them). */
    writer?: BatchWriter;
    counters?: StudyCounters;
    log: (line: string) => void;
    /** Called once the pool is up (the run records the isolation level). */
    onPool: (pool: JudgePool) => void;
    /** A failure that must stop the study. */
    onFatal: (err: unknown) => void;
    signal: AbortSignal;
}

/**
 * The judging stage: the Python judge pool and a bounded queue that generation feeds; a few
 * consumers keep every judge worker busy. Verdicts go to the batch writer.
 */
export class JudgeStage {
    readonly pool: Promise<JudgePool | undefined>;
    /** The pool has started, or failed to. */
    private started = false;
    private readonly queue: Channel<JudgeItem>;
    private readonly consumers: Promise<void>[];

    constructor(private readonly o: JudgeStageOptions) {
        if (o.judging && (!o.writer || !o.counters)) throw new Error("JudgeStage: judging needs a writer and counters");
        const workers = Math.max(1, o.workers ?? availableParallelism());
        this.queue = new Channel<JudgeItem>(Math.max(16, workers * 8));
        // The judge's Python workers start while the model loads: neither waits for the other.
        const poolOptions: JudgePoolOptions = {
            workers,
            cache: o.cache,
            ...(o.language ? { language: o.language } : {}),
            ...(o.allowUnsandboxed !== undefined ? { allowUnsandboxed: o.allowUnsandboxed } : {}),
            // Ctrl-C while the workers start: they are killed, and nothing waits for them (issue #47).
            signal: o.signal
        };
        this.pool = o.needPool
            ? JudgePool.start(poolOptions).then(async (p) => {
                  try {
                      o.onPool(p);
                  } catch (err) {
                      // The run's record of the pool failed (a full disk): the pool is nobody's to close but ours.
                      await p.close().catch(() => {});
                      throw err;
                  }
                  return p;
              })
            : Promise.resolve(undefined);
        this.pool.then(
            () => (this.started = true),
            (err: unknown) => {
                this.started = true;
                // Stopped while it started: that is the interruption, not a failure of the judge.
                if (!o.signal.aborted && !isStopped(err)) o.onFatal(err);
            }
        );
        this.consumers = o.judging
            ? Array.from({ length: workers * 2 }, async () => {
                  if (!(await unlessStopped(this.pool.catch(() => undefined), o.signal))) return;
                  for (;;) {
                      const item = await this.queue.shift();
                      if (item === undefined || o.signal.aborted) return;
                      await this.judgeOne(item);
                  }
              })
            : [];
    }

    /** Queue one response for its verdict (waits while the queue is full). */
    async submit(item: JudgeItem): Promise<void> {
        if (!this.o.judging) return;
        this.o.counters!.toJudge++;
        await this.queue.push(item);
    }

    /** Responses a resumed run generated but never judged (its judge died with it), judged beside generation. */
    async rejudge(store: Store, runId: string, find: (templateId: string, instance: number, configId: number) => Omit<JudgeItem, "key" | "code" | "stopReason" | "fences"> | undefined): Promise<void> {
        if (!this.o.judging) return;
        for (const g of store.unjudged(runId)) {
            const found = find(g.template_id, g.instance_idx, g.config_id);
            if (!found) continue;
            if (this.o.signal.aborted) break;
            await this.submit({ ...found, key: { configId: g.config_id, templateId: g.template_id, instance: g.instance_idx, round: g.round }, code: g.code, stopReason: g.stop_reason, fences: g.fences });
        }
    }

    /** Drop what is queued (the responses are stored: a resume judges them). */
    abort(): void {
        this.queue.close();
        this.queue.clear();
    }

    /** No more input: let the consumers finish what is queued, then close the pool. */
    async finish(): Promise<void> {
        this.queue.close();
        await Promise.all(this.consumers);
    }

    /** Close the pool; one still starting after Ctrl-C is not waited for (it closes itself once started). */
    async close(): Promise<void> {
        const closing = this.pool.then((p) => p?.close()).catch(() => {});
        if (this.o.signal.aborted && !this.started) return;
        await closing;
    }

    /**
     * Verdicts of a batch of responses, in order, for a caller that stores them itself (the loop's
     * steps): judged on this stage's pool (in parallel across its workers), the truncation rule applied
     * as for a run's. Nothing is written; a judge failure rejects the batch.
     */
    async judgeBatch(items: readonly BatchJudgeItem[]): Promise<FinalVerdict[]> {
        const pool = await this.pool;
        if (!pool) throw new Error("JudgeStage: judgeBatch needs the pool (needPool)");
        return Promise.all(items.map((item) => this.verdict(pool, item)));
    }

    /** One response's verdict: the judge's, then the truncation rule. */
    private async verdict(pool: JudgePool, item: BatchJudgeItem): Promise<FinalVerdict> {
        const language = item.language ?? this.o.language;
        const v = await pool.judge({ template: item.template, bindings: item.bindings, code: item.code, shrink: true, ...(language ? { language } : {}) });
        return { ...v, judgeCategory: v.category, category: finalCategory(v.category, item.stopReason, item.fences) };
    }

    private async judgeOne(item: JudgeItem): Promise<void> {
        const s = this.o.counters!;
        if (!s.judgeStart) s.judgeStart = performance.now();
        let v: FinalVerdict;
        try {
            v = await this.verdict((await this.pool)!, { ...item, bindings: item.instance.bindings });
        } catch (err) {
            // The judge itself failed: leave the generation without a verdict, so a resume judges it again.
            s.errors++;
            this.o.log(`judge failed on ${item.template.id} #${item.key.instance} round ${item.key.round}: ${oneLine(err)}`);
            return;
        }
        if (v.judgeCategory === "judge_error") this.o.log(`judge_error on ${item.template.id} #${item.key.instance} round ${item.key.round}: ${v.detail}`);
        this.o.writer!.addVerdict({ ...item.key, category: v.category, judgeCategory: v.judgeCategory, detail: v.detail, ms: v.ms, cached: v.cached ?? false, shrunk: v.shrunk ? JSON.stringify(v.shrunk) : null });
        s.judged++;
        s.judgeMs += v.ms;
        if (v.cached) s.judgeCached++;
        if (v.category === "passed") s.passed++;
        else if (v.category === "truncated" || v.category === "judge_error") s.harness++;
        s.judgeEnd = performance.now();
    }
}
