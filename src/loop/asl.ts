/**
 * Average Sustainable Loops (SPEC §7; EvaLOOP eq. 1–5):
 * ASL = Σ_{i=1..M} n_i · i² · s_i / (M · T)
 * n_i: tasks sustaining exactly i loops; T: all tasks; s_i: mean over those tasks of
 * s̄_τ = (1/l) Σ_{j=1..l} s_τ^j, where s_τ^j = 1 for j < l (and for every j when l = M) and
 * s_τ^l is the similarity at the failure boundary, 1 where it was not measured.
 */

/** One task's loop record, as ASL needs it. */
export interface LoopTaskResult {
    /** l: loops whose code passed, counted from the first (0 when the first code failed). */
    sustained: number;
    /** Similarity of the last passing prompt and the prompt that failed (eq. 3); absent: not measured (1). */
    boundarySimilarity?: number | null;
}

/** Per-task s̄_τ (eq. 4); undefined for a task that sustained no loop (it does not enter ASL). */
export function taskSimilarity(t: LoopTaskResult, maxLoops: number): number | undefined {
    const l = t.sustained;
    if (l <= 0) return undefined;
    const boundary = l < maxLoops && t.boundarySimilarity != null ? t.boundarySimilarity : 1;
    return (l - 1 + boundary) / l;
}

export interface AslResult {
    asl: number;
    /** T */
    tasks: number;
    /** M */
    maxLoops: number;
    /** n_i for i = 0..M (index 0: failed at the first loop). */
    sustainedCounts: number[];
    /** s_i for i = 1..M (index 0 unused, null where n_i = 0). */
    similarity: (number | null)[];
    /** Plain mean of l over tasks (no weighting), beside ASL for reading. */
    meanSustained: number;
}

export function averageSustainableLoops(tasks: readonly LoopTaskResult[], maxLoops: number): AslResult {
    if (!Number.isInteger(maxLoops) || maxLoops < 1) throw new Error("ASL: maxLoops must be a positive integer");
    const counts = new Array<number>(maxLoops + 1).fill(0);
    const simSums = new Array<number>(maxLoops + 1).fill(0);
    for (const t of tasks) {
        if (!Number.isInteger(t.sustained) || t.sustained < 0 || t.sustained > maxLoops) throw new Error(`ASL: sustained loops ${t.sustained} outside 0..${maxLoops}`);
        counts[t.sustained]!++;
        simSums[t.sustained]! += taskSimilarity(t, maxLoops) ?? 0;
    }
    const similarity = counts.map((n, i) => (i === 0 || n === 0 ? null : simSums[i]! / n));
    const T = tasks.length;
    let sum = 0;
    for (let i = 1; i <= maxLoops; i++) if (counts[i]! > 0) sum += counts[i]! * i * i * similarity[i]!;
    return {
        asl: T === 0 ? 0 : sum / (maxLoops * T),
        tasks: T,
        maxLoops,
        sustainedCounts: counts,
        similarity,
        meanSustained: T === 0 ? 0 : tasks.reduce((a, t) => a + t.sustained, 0) / T
    };
}
