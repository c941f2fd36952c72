/** Ranks (1-based) of `values`, ties given the mean of the ranks they span; also the tie group sizes. */
export function averageRanks(values: readonly number[]): { ranks: number[]; ties: number[] } {
    const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
    const ranks = new Array<number>(values.length);
    const ties: number[] = [];
    for (let start = 0; start < order.length; ) {
        let end = start;
        while (end + 1 < order.length && order[end + 1]![0] === order[start]![0]) end++;
        const rank = (start + end) / 2 + 1;
        for (let k = start; k <= end; k++) ranks[order[k]![1]] = rank;
        if (end > start) ties.push(end - start + 1);
        start = end + 1;
    }
    return { ranks, ties };
}
