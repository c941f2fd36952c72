import type { Verdict } from "../judge/types.js";
import type { Store, StoreVerdictCache } from "../store/Store.js";
import type { NewGeneration, NewVerdict } from "../store/types.js";

/**
 * Collects rows from the pipeline and writes them in batches, one transaction each: when a
 * batch is full or a short timer fires. A crash loses at most the last unwritten batch,
 * which a resume regenerates. A write failure (database locked, disk full) is kept and
 * reported through `onError`, so the run can stop with the data written so far intact.
 */
export class BatchWriter {
    private generations: NewGeneration[] = [];
    private verdicts: NewVerdict[] = [];
    private responses: { key: string; modelSha256: string; g: NewGeneration }[] = [];
    private timer: NodeJS.Timeout | undefined;
    /** The first write error; nothing more is written after it. */
    error: unknown;
    /** Rows written, transactions, and milliseconds spent inside them. */
    readonly stats = { rows: 0, transactions: 0, ms: 0 };

    constructor(
        private readonly store: Store,
        private readonly verdictCache: StoreVerdictCache | undefined,
        private readonly onError: (err: unknown) => void,
        private readonly maxRows = 64,
        private readonly maxDelayMs = 250
    ) {}

    /** Queue a generation (and, for a fresh llama response, its response-cache entry). */
    addGeneration(g: NewGeneration, cache?: { key: string; modelSha256: string }): void {
        this.generations.push(g);
        if (cache) this.responses.push({ ...cache, g });
        this.schedule();
    }

    /** Queue a verdict; its generation is written first (same or earlier batch). */
    addVerdict(v: NewVerdict): void {
        this.verdicts.push(v);
        this.schedule();
    }

    private schedule(): void {
        if (this.generations.length + this.verdicts.length >= this.maxRows) this.flush();
        else if (!this.timer) this.timer = setTimeout(() => this.flush(), this.maxDelayMs);
    }

    /** Write everything queued now. */
    flush(): void {
        if (this.timer) clearTimeout(this.timer);
        this.timer = undefined;
        if (this.error) return;
        const batch = {
            generations: this.generations,
            verdicts: this.verdicts,
            responses: this.responses,
            verdictCache: this.verdictCache?.drain() ?? ([] as [string, Verdict][])
        };
        this.generations = [];
        this.verdicts = [];
        this.responses = [];
        const rows = batch.generations.length + batch.verdicts.length;
        const start = performance.now();
        try {
            this.store.writeBatch(batch);
        } catch (err) {
            this.error = err;
            this.onError(err);
            return;
        }
        if (rows) {
            this.stats.rows += rows + batch.responses.length + batch.verdictCache.length;
            this.stats.transactions++;
            this.stats.ms += performance.now() - start;
        }
    }
}
