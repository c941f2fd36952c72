/**
 * Lockstep groups: reproducible and batched. A group's members share one context (a sequence each)
 * and are decoded together, one token per member per step, so the GPU sees batches of G while every
 * batch's content stays a function of the group alone:
 *  - the group starts from a clean state (every sequence empty);
 *  - the prompts are evaluated one member at a time, in member order, all but their last token, in
 *    chunks of the batch size;
 *  - each decode step is one batch: every member still generating, in member order (sequence i is
 *    member i), each sampling with its own seed. A member that has stopped keeps its place with
 *    the token it sampled until no member before or after it is generating: llama.cpp splits a
 *    batch whose sequence ids are not consecutive into several micro-batches, which would both
 *    cost a pass over the weights each and change the arithmetic.
 * node-llama-cpp's batch scheduler is kept from forming batches of its own: a step's items are all
 * queued within one turn of the event loop (its dispatch waits for the next turn) after the previous
 * dispatch has wound down, and the slot's prioritization strategy checks every batch it is handed
 * against the one the driver expects, failing the group loudly rather than decoding another batch.
 */
import { performance } from "node:perf_hooks";
import type { BatchItem, LlamaContext, LlamaContextSequence, LlamaModel, PrioritizedBatchItem, Token } from "node-llama-cpp";
import type { GenerationRequest, GenerationResult, StopReason } from "../types.js";
import { answerText, errorLine, failed, preparePrompt, samplingOptions, type PreparedPrompt } from "./prepare.js";
import type { PromptRenderer } from "./promptFormat.js";
import { StopTriggers } from "./stopTriggers.js";
import { kvCacheContextOptions } from "./kvCache.js";

/** What a slot is made of: G sequences of `contextSize` tokens, prompt chunks of `batchSize`, `threads` CPU threads. */
export interface LockstepSlotOptions {
    groupSize: number;
    contextSize: number;
    batchSize: number;
    /** KV-cache type (keys and values); default llama.cpp's. */
    kvCache?: string;
    threads: number;
}

/** One member being decoded. */
interface Member {
    index: number;
    req: GenerationRequest;
    p: PreparedPrompt;
    seq: LlamaContextSequence;
    triggers: StopTriggers;
    it?: AsyncGenerator<Token, void, void | Token | Token[]>;
    /** The token this member decodes at the next step. */
    pending: Token;
    tokens: Token[];
    live: boolean;
    inBatch: boolean;
}

/** Every microtask pending now has run: node-llama-cpp queues a batch's items in microtasks. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** One context that decodes one group at a time (several slots run groups at once). */
export class LockstepSlot {
    /** The batch the driver is about to decode: per item, its single token (a decode step) or null (a prompt, any length). */
    private expected: (Token | null)[] | undefined;

    private constructor(
        readonly context: LlamaContext,
        private readonly sequences: LlamaContextSequence[]
    ) {}

    static async create(model: LlamaModel, o: LockstepSlotOptions): Promise<LockstepSlot> {
        const holder: { slot?: LockstepSlot } = {};
        const context = await model.createContext({
            contextSize: o.contextSize,
            sequences: o.groupSize,
            threads: { ideal: o.threads, min: o.threads },
            batchSize: Math.max(o.batchSize, o.groupSize),
            batching: { dispatchSchedule: "nextCycle", itemPrioritizationStrategy: (x) => holder.slot!.prioritize(x) },
            ...kvCacheContextOptions(o.kvCache)
        });
        // Taken in order from a fresh context: sequence i has id i. No interval checkpoints: taking
        // one would make a dispatch outlast the turn the driver waits for.
        const sequences = Array.from({ length: o.groupSize }, () => context.getSequence({ checkpoints: { interval: false } }));
        return (holder.slot = new LockstepSlot(context, sequences));
    }

    get groupSize(): number {
        return this.sequences.length;
    }

    /**
     * Decode one group (at most G requests, in member order). Each member's result goes to `emit` as
     * soon as it stops; a failure fails the members still running.
     */
    async run(model: LlamaModel, renderer: PromptRenderer, requests: readonly GenerationRequest[], emit: (member: number, r: GenerationResult) => void): Promise<void> {
        const t0 = performance.now();
        const members: Member[] = [];
        requests.forEach((req, index) => {
            let p: PreparedPrompt | GenerationResult;
            try {
                p = preparePrompt(model, renderer, this.context.contextSize, req);
            } catch (err) {
                p = failed(req.id, `cannot render the prompt: ${errorLine(err)}`);
            }
            if (!("full" in p)) emit(index, p);
            else members.push({ index, req, p, seq: this.sequences[index]!, triggers: new StopTriggers(model, p.prompt.stopTriggers), pending: p.full.at(-1)!, tokens: [], live: true, inBatch: true });
        });
        let firstAt = 0;
        const finish = (m: Member, stopReason: StopReason, response: string): void => {
            m.live = false;
            const at = performance.now();
            emit(m.index, {
                id: m.req.id, text: answerText(m.p.prompt, response, stopReason), stopReason, promptTokens: m.p.promptTokens,
                generatedTokens: m.tokens.length, ttftMs: (firstAt || at) - t0, genMs: at - t0, cachedPromptTokens: 0
            });
        };
        try {
            for (const m of members) if (m.seq.nextTokenIndex > 0) await m.seq.clearHistory();
            for (const m of members) if (m.p.full.length > 1) await this.batch([null], () => [m.seq.evaluateWithoutGeneratingNewTokens(m.p.full.slice(0, -1))]);
            for (const m of members) m.it = m.seq.evaluate([m.pending], { ...samplingOptions(m.req.decoding, m.req.seed), ...penalty(model, m), yieldEogToken: true });
            while (members.some((m) => m.live)) {
                const batch = members.filter((m) => m.inBatch);
                const out = await this.batch(
                    batch.map((m) => m.pending),
                    () => batch.map((m) => m.it!.next())
                );
                firstAt ||= performance.now();
                out.forEach((r, k) => {
                    const m = batch[k]!;
                    if (r.done) throw new Error(`member ${m.index}'s evaluation ended before it stopped`);
                    m.pending = r.value;
                    if (m.live) this.accept(model, m, r.value, finish);
                });
                const live = members.filter((m) => m.live).map((m) => m.index);
                const lo = Math.min(...live);
                const hi = Math.max(...live);
                for (const m of members) m.inBatch = m.live || (m.index > lo && m.index < hi && m.seq.nextTokenIndex < this.context.contextSize - 1);
            }
        } catch (err) {
            for (const m of members) if (m.live) {
                m.live = false;
                emit(m.index, failed(m.req.id, `generation failed: ${errorLine(err)}`));
            }
        } finally {
            for (const m of members) await m.it?.return().catch(() => {});
            // The next group starts from a clean state.
            for (const s of this.sequences) if (s.nextTokenIndex > 0) await s.clearHistory().catch(() => {});
        }
    }

    async dispose(): Promise<void> {
        await this.context.dispose();
    }

    /** A member's new token: the end of its answer (end of generation, a stop trigger, its token budget) or one more token. */
    private accept(model: LlamaModel, m: Member, token: Token, finish: (m: Member, why: StopReason, response: string) => void): void {
        if (model.isEogToken(token)) return finish(m, "eos", model.detokenize(m.tokens));
        m.tokens.push(token);
        const before = m.triggers.find(m.tokens);
        if (before !== undefined) return finish(m, "stop_trigger", before);
        if (m.tokens.length >= m.p.maxTokens) finish(m, m.p.contextBound ? "context_full" : "max_tokens", model.detokenize(m.tokens));
    }

    /**
     * Queue one batch (`queue` starts the evaluations, in order, synchronously) and let node-llama-cpp
     * decode it. The wait before queueing lets the previous dispatch finish, so it cannot take part
     * of this batch; the prioritization strategy then sees exactly `expected`.
     */
    private async batch<T>(expected: (Token | null)[], queue: () => Promise<T>[]): Promise<T[]> {
        await settle();
        this.expected = expected;
        try {
            return await Promise.all(queue());
        } finally {
            this.expected = undefined;
        }
    }

    /** node-llama-cpp's batch, checked against the one expected: everything, in order, nothing split or added. */
    private prioritize({ items, size }: { items: readonly BatchItem[]; size: number }): PrioritizedBatchItem[] {
        const e = this.expected;
        const fits = e !== undefined && items.length === e.length && items.every((item, i) => e[i] === null || (item.tokens.length === 1 && item.tokens[0] === e[i]));
        if (!fits) throw new Error(`lockstep batch broken: expected ${describe(e ?? [])}, node-llama-cpp queued ${describe(items.map((i) => (i.tokens.length === 1 ? i.tokens[0]! : null)))}`);
        // A decode step (one token per member, at most G <= the batch size) goes whole; a prompt, the only item, in chunks.
        let left = size;
        return items.map((item) => {
            const processAmount = Math.min(item.tokens.length, left);
            left -= processAmount;
            return { item, processAmount };
        });
    }
}

/** The repeat penalty, when asked for: as LlamaCompletion applies it (the last 64 tokens of the answer, newlines exempt). */
function penalty(model: LlamaModel, m: Member): { repeatPenalty?: { punishTokens: () => Token[]; penalty: number; maxPunishTokens: number } } {
    const p = m.req.decoding.repeatPenalty;
    if (p === undefined || p === 1) return {};
    const nl = model.tokens.nl;
    return { repeatPenalty: { penalty: p, maxPunishTokens: 64, punishTokens: () => m.tokens.slice(-64).filter((t) => t !== nl) } };
}

function describe(items: readonly (Token | null)[]): string {
    return `[${items.map((t) => (t === null ? "prompt" : String(t))).join(", ")}]`;
}
