/**
 * Every view of `eddy view` has its own URL (a finding is shared as a link, the back button works);
 * pages build their links only through these functions, so a route and its links cannot drift apart.
 */

const seg = (s: string | number): string => encodeURIComponent(String(s));

/** The list of runs. */
export const runsUrl = (): string => "/";

/** One run: its configurations and their scores. */
export const runUrl = (run: string): string => `/run/${seg(run)}`;

/** One template of a run: the grid of instances × rounds per configuration. */
export const templateUrl = (run: string, template: string): string => `/run/${seg(run)}/template/${seg(template)}`;

/** One instance under one configuration: every round's prompt, response, code and verdict (`round` adds its anchor). */
export const instanceUrl = (run: string, config: number, template: string, instance: number, round?: number): string =>
    `/run/${seg(run)}/config/${seg(config)}/template/${seg(template)}/instance/${seg(instance)}${round === undefined ? "" : `#round-${round}`}`;

/** The static HTML report of a run, drawn from the same report data. */
export const reportUrl = (run: string): string => `/run/${seg(run)}/report`;

/** eddy's agreement with a peer's published verdicts for a run. */
export const agreementUrl = (run: string): string => `/run/${seg(run)}/agreement`;

/** The prompt-mutation study of a run. */
export const mutateUrl = (run: string): string => `/run/${seg(run)}/mutate`;

/** Loop runs and one loop run. */
export const loopsUrl = (): string => "/loops";
export const loopUrl = (run: string): string => `/loop/${seg(run)}`;

/** Determinism audits. */
export const auditsUrl = (): string => "/audits";

/** The answers list with filters and search (empty values left out). */
export function answersUrl(filter: Record<string, string | number | undefined>): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(filter)) if (v !== undefined && v !== "") q.set(k, String(v));
    const s = q.toString();
    return s ? `/answers?${s}` : "/answers";
}

/** Two configurations side by side. */
export const compareUrl = (a?: number, b?: number): string => (a !== undefined && b !== undefined ? `/compare?a=${seg(a)}&b=${seg(b)}` : "/compare");
