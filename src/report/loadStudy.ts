import { openStore } from "../store/Store.js";
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
        const planned = new Map<string, PlannedNeighbourhood>();
        const count = store.db.prepare("SELECT template_id, COUNT(*) AS n FROM instances WHERE run_id = ? GROUP BY template_id");
        for (const r of runs) {
            // R as the study asked for it (runs of every eddy version record `rounds` in their config).
            const rounds = typeof r.config.rounds === "number" ? r.config.rounds : 0;
            for (const row of count.all(r.id) as { template_id: string; n: number }[]) planned.set(plannedKey(r.id, row.template_id), { instances: row.n, rounds });
        }
        const determinism = new Map<string, DeterminismSummary>();
        const shas = [...new Set(runs.flatMap((r) => r.configurations.map((c) => c.modelSha256)).filter((x): x is string => !!x))];
        let audits: ReturnType<typeof store.determinismAudits> = [];
        try {
            if (shas.length) audits = store.determinismAudits(shas);
        } catch {
            // A database from before audits were recorded (opened read-only, so not migrated): no audit to show.
        }
        for (const a of audits) determinism.set(determinismKey(a.model_sha256, a.mode), summariseAudit(a));
        return { outcomes, runs, planned, determinism };
    } finally {
        store.close();
    }
}
