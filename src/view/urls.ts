/**
 * Every view of `eddy view` has its own URL (a finding is shared as a link, the back button works);
 * pages build their links only through these functions, so a route and its links cannot drift apart.
 */

const seg = (s: string | number): string => encodeURIComponent(String(s));

/** A query string of the values given (empty ones left out), with its "?" when there is one. */
function query(values: Record<string, string | number | undefined>): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(values)) if (v !== undefined && v !== "") q.set(k, String(v));
    const s = q.toString();
    return s ? `?${s}` : "";
}

/** The front page: every configuration ranked, with its filters and sort (empty values left out). */
export const leaderboardUrl = (state: Record<string, string | number | undefined> = {}): string => `/${query(state)}`;

/** The list of runs. */
export const runsUrl = (): string => "/runs";

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
    return `/answers${query(filter)}`;
}

/**
 * Two configurations side by side; `more`: which flips are shown (`flips`: lost or gained, `page`) and how
 * the per-template table is sorted (`sort`, `dir`).
 */
export const compareUrl = (a?: number, b?: number, more: Record<string, string | number | undefined> = {}): string =>
    a !== undefined && b !== undefined ? `/compare${query({ a, b, ...more })}` : "/compare";

/** The quantisation studies (`eddy quant`), and one: the run that holds it. */
export const quantStudiesUrl = (): string => "/quant";
export const quantUrl = (run: string): string => `/run/${seg(run)}/quant`;
