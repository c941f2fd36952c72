import { openStore, type Store } from "../store/Store.js";
import { loadOutcomes, runInfo, type RunInfo } from "../store/outcomes.js";
import { plannedKey, type PlannedNeighbourhood } from "../scores/neighbourhood.js";
import type { Outcome } from "../vocabulary.js";
import { EddyError } from "../util/errors.js";
import { determinismKey, type DeterminismSummary } from "./types.js";

/** One line about an audit: identical, or the largest share of responses that differed between sessions. */
function summariseAudit(a: { identical: number; created: string; result_json: string }): DeterminismSummary {
    let worst = 0;
    try {
        const r = JSON.parse(a.result_json) as { comparisons?: { responseShare?: number }[] };
        for (const c of r.comparisons ?? []) worst = Math.max(worst, c.responseShare ?? 0);
    } catch {
        // an unreadable result still says whether it was identical
    }
    return { identical: a.identical === 1, differingShare: worst, created: a.created };
}

/** The lockstep group size an audit ran with (absent before lockstep groups, and in fast mode). */
function auditGroupSize(resultJson: string): number | undefined {
    try {
        const g = (JSON.parse(resultJson) as { settings?: { groupSize?: unknown } }).settings?.groupSize;
        return typeof g === "number" ? g : undefined;
    } catch {
        return undefined;
    }
}

/** What a report needs from the database: judged outcomes, run metadata and the planned instance counts. */
export interface LoadedStudy {
    outcomes: Outcome[];
    runs: RunInfo[];
    /** Instances and rounds each run planned per template (key: plannedKey(run, template)); the coverage denominators. */
    planned: Map<string, PlannedNeighbourhood>;
    /** Latest `eddy audit determinism` per model file and mode (key: determinismKey(sha256, mode)). */
    determinism: Map<string, DeterminismSummary>;
}

/** Judged outcomes, run metadata and planned instances of `runIds` (ids or unique prefixes) from the database at `dbPath`. */
export function loadStudy(dbPath: string, runIds: readonly string[]): LoadedStudy {
    if (runIds.length === 0) throw new EddyError("name at least one run (see 'eddy runs list')");
    const store = openStore(dbPath, { readonly: true });
    try {
        const runs = runIds.map((id) => runInfo(store, id));
        const outcomes = loadOutcomes(
            store,
            runs.map((r) => r.id)
        );
        if (outcomes.length === 0) throw new EddyError(`no judged responses in run(s) ${runs.map((r) => r.id).join(", ")} yet`);
        const { planned, determinism } = studyContext(store, runs);
        return { outcomes, runs, planned, determinism };
    } finally {
        store.close();
    }
}

/** What scores need besides outcomes, for runs of an open store: planned instances and rounds, and the latest determinism audits. */
export function studyContext(
    store: Store,
    runs: readonly {
        id: string;
        config: Record<string, unknown>;
        configurations?: readonly { modelSha256?: string | null }[];
        templates?: readonly { id: string; group: string; subgroups: string[] }[];
    }[]
): Pick<LoadedStudy, "planned" | "determinism"> {
    const planned = new Map<string, PlannedNeighbourhood>();
    for (const r of runs) {
        // R as the study asked for it (runs of every eddy version record `rounds` in their config).
        const rounds = typeof r.config.rounds === "number" ? r.config.rounds : 0;
        for (const row of store.instanceCounts(r.id)) {
            const t = r.templates?.find((x) => x.id === row.template_id);
            planned.set(plannedKey(r.id, row.template_id), { instances: row.n, rounds, ...(t ? { group: t.group, subgroups: t.subgroups } : {}) });
        }
    }
    const determinism = new Map<string, DeterminismSummary>();
    const shas = [...new Set(runs.flatMap((r) => (r.configurations ?? []).map((c) => c.modelSha256)).filter((x): x is string => !!x))];
    let audits: ReturnType<typeof store.audits.latest> = [];
    try {
        if (shas.length) audits = store.audits.latest(shas);
    } catch {
        // A database from before audits were recorded (opened read-only, so not migrated): no audit to show.
    }
    for (const a of audits) determinism.set(determinismKey(a.model_sha256, a.mode, auditGroupSize(a.result_json)), summariseAudit(a));
    return { planned, determinism };
}
