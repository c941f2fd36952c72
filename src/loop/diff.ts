/**
 * A line diff of two code versions in unified style (" " kept, "-" removed, "+" added), from a
 * longest-common-subsequence table: the codes in a loop are short, so O(n·m) is cheap.
 */
export function lineDiff(before: string, after: string): string[] {
    const a = before.replace(/\s+$/, "").split("\n");
    const b = after.replace(/\s+$/, "").split("\n");
    const n = a.length, m = b.length;
    const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
    for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    const out: string[] = [];
    let i = 0, j = 0;
    while (i < n && j < m) {
        if (a[i] === b[j]) {
            out.push(" " + a[i]);
            i++;
            j++;
        } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) out.push("-" + a[i++]);
        else out.push("+" + b[j++]);
    }
    while (i < n) out.push("-" + a[i++]);
    while (j < m) out.push("+" + b[j++]);
    return out;
}

/** Lines added and removed. */
export function diffStat(lines: string[]): { added: number; removed: number } {
    return { added: lines.filter((l) => l.startsWith("+")).length, removed: lines.filter((l) => l.startsWith("-")).length };
}
