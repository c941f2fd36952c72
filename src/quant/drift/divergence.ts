/**
 * Next-token distribution comparison on raw logits, in float64.
 * Hand-written: these are three short loops, and no maintained library offers a
 * numerically careful log-softmax / KL over plain typed arrays without pulling in a tensor runtime.
 */

/** Natural-log softmax of `logits` (log-sum-exp shifted by the maximum, so large logits cannot overflow). */
export function logSoftmax(logits: ArrayLike<number>): Float64Array {
    const n = logits.length;
    let max = -Infinity;
    for (let i = 0; i < n; i++) if ((logits[i] as number) > max) max = logits[i] as number;
    let sum = 0;
    for (let i = 0; i < n; i++) sum += Math.exp((logits[i] as number) - max);
    const logZ = max + Math.log(sum);
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = (logits[i] as number) - logZ;
    return out;
}

/**
 * KL(P ‖ Q) = Σ_v P(v) (log P(v) − log Q(v)), in nats, from two log-probability vectors
 * over the same vocabulary. Terms with P(v) = 0 contribute 0; a Q(v) = 0 where P(v) > 0 gives Infinity.
 * Clamped at 0: rounding can make an exact-zero divergence come out a hair negative.
 */
export function klDivergence(refLogProbs: Float64Array, candLogProbs: Float64Array): number {
    if (refLogProbs.length !== candLogProbs.length)
        throw new Error(`KL over different vocabularies (${refLogProbs.length} vs ${candLogProbs.length})`);
    let kl = 0;
    for (let i = 0; i < refLogProbs.length; i++) {
        const lp = refLogProbs[i] as number;
        if (lp === -Infinity) continue;
        kl += Math.exp(lp) * (lp - (candLogProbs[i] as number));
    }
    return kl > 0 ? kl : 0;
}

/** Index of the largest value (the first one on ties: the same rule greedy decoding applies to a sorted list). */
export function argmax(values: ArrayLike<number>): number {
    let best = 0;
    for (let i = 1; i < values.length; i++) if ((values[i] as number) > (values[best] as number)) best = i;
    return best;
}
