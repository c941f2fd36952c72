/**
 * A run's state in words for the terminal (runs list, runs show, the end-of-run line): a run the
 * study finished but with planned answers missing (absent from a replay file) is `incomplete`, never
 * "complete", so a reader does not take its scores for the whole study.
 */
export function runState(status: string, missing: number, opts: { short?: boolean } = {}): string {
    if (missing === 0) return status;
    const words = `${missing} answer${missing === 1 ? "" : "s"} missing`;
    if (status === "complete") return opts.short ? "incomplete" : `incomplete: ${words}`;
    return opts.short ? status : `${status}, ${words}`;
}
