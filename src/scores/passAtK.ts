/**
 * Unbiased pass@k from n samples of which c are correct: 1 − C(n−c, k)/C(n, k),
 * computed as 1 − Π_{i=n−c+1..n} (1 − k/i) so no binomial coefficient is ever formed.
 */
export function passAtK(n: number, c: number, k: number): number {
    if (k <= 0 || n <= 0) return NaN;
    if (k > n) throw new RangeError(`pass@${k} needs at least ${k} samples, got ${n}`);
    if (n - c < k) return 1;
    let prod = 1;
    for (let i = n - c + 1; i <= n; i++) prod *= 1 - k / i;
    return 1 - prod;
}
