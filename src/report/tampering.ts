import type { Outcome } from "../vocabulary.js";

/**
 * The judge marks an answer that tampered with its harness (patched the comparison, wrote outside its
 * sandbox, forged the control channel…) by a verdict detail starting with this (category runtime_error).
 * Reports count and list them per configuration: a model that attacks the judge is a finding in itself.
 */
export const TAMPERING_PREFIX = "tampering:";

/** Suspected tampering listed per configuration; the rest are counted ("and N more"). */
export const TAMPERING_LISTED = 20;

/** Characters of each listed detail kept in a report (the store keeps up to 2,048). */
const DETAIL_SHOWN = 300;

/** One answer suspected of tampering with the judge's harness. */
export interface TamperingRow {
    template: string;
    instance: number;
    round: number;
    detail: string;
}

/** Suspected tampering of one configuration: how many, and the first {@link TAMPERING_LISTED}. */
export interface TamperingSummary {
    /** Verdicts whose detail starts with {@link TAMPERING_PREFIX} (0 when none). */
    count: number;
    /** The first of them by template, instance and round; `count - listed.length` more are not listed. */
    listed: TamperingRow[];
}

/** Whether a verdict detail marks suspected tampering. */
export function isTampering(detail: string | null | undefined): boolean {
    return typeof detail === "string" && detail.startsWith(TAMPERING_PREFIX);
}

/** Suspected tampering per configuration label (configurations without any are absent). */
export function tamperingByConfig(outcomes: readonly Outcome[]): Map<string, TamperingSummary> {
    const out = new Map<string, TamperingRow[]>();
    for (const o of outcomes) {
        if (!isTampering(o.detail)) continue;
        let list = out.get(o.config);
        if (!list) out.set(o.config, (list = []));
        list.push({ template: o.template, instance: o.instance, round: o.round, detail: shortDetail(o.detail) });
    }
    const cmp = (a: TamperingRow, b: TamperingRow) => (a.template < b.template ? -1 : a.template > b.template ? 1 : a.instance - b.instance || a.round - b.round);
    return new Map([...out].map(([config, list]) => [config, { count: list.length, listed: list.sort(cmp).slice(0, TAMPERING_LISTED) }]));
}

/** No suspected tampering. */
export function noTampering(): TamperingSummary {
    return { count: 0, listed: [] };
}

/** One listed row in words: `template #instance round r: detail`. */
export function tamperingLine(r: TamperingRow): string {
    return `${r.template} #${r.instance} round ${r.round}: ${r.detail}`;
}

/** "and N more" when a configuration has more than are listed (empty otherwise). */
export function tamperingMore(t: TamperingSummary): string {
    const more = t.count - t.listed.length;
    return more > 0 ? `and ${more} more` : "";
}

/** A detail on one line, cut for a listing. */
function shortDetail(detail: string): string {
    const line = detail.replace(/\s*[\r\n]+\s*/g, " ").trim();
    if (line.length <= DETAIL_SHOWN) return line;
    let keep = DETAIL_SHOWN - 1;
    if (/[\ud800-\udbff]/.test(line.charAt(keep - 1))) keep--; // never half a surrogate pair
    return line.slice(0, keep) + "…";
}
