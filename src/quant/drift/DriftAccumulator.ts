import { quantileSorted } from "../../stats/bootstrap.js";
import type { DriftSummary } from "./types.js";

/**
 * Streams per-position comparisons into summary statistics. Memory is one float per
 * position (for the percentiles), never a distribution: a 150k-token vocabulary costs nothing here.
 */
export class DriftAccumulator {
    private kls = new Float64Array(1024);
    private count = 0;
    private agree = 0;
    private sum = 0;

    /** Records one position: its KL(ref ‖ candidate) and whether both argmax tokens are the same. */
    add(kl: number, top1Agrees: boolean): void {
        if (this.count === this.kls.length) {
            const grown = new Float64Array(this.kls.length * 2);
            grown.set(this.kls);
            this.kls = grown;
        }
        this.kls[this.count++] = kl;
        this.sum += kl;
        if (top1Agrees) this.agree++;
    }

    /** Number of positions recorded so far. */
    get positions(): number {
        return this.count;
    }

    /** Top-1 agreement rate and KL mean / p50 / p90 / p99 / max over every position recorded. */
    summary(): DriftSummary {
        const n = this.count;
        if (n === 0) return { positions: 0, top1_agreement: null, kl_mean: null, kl_p50: null, kl_p90: null, kl_p99: null, kl_max: null };
        const sorted = this.kls.slice(0, n).sort();
        return {
            positions: n,
            top1_agreement: this.agree / n,
            kl_mean: this.sum / n,
            kl_p50: quantileSorted(sorted, 0.5),
            kl_p90: quantileSorted(sorted, 0.9),
            kl_p99: quantileSorted(sorted, 0.99),
            kl_max: sorted[n - 1] as number
        };
    }
}
