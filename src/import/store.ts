import { capDetail, type Store } from "../store/Store.js";

/** A verdict another harness published for one response of a run. */
export interface PublishedVerdict {
    templateId: string;
    instance: number;
    round: number;
    source: string;
    correct: boolean;
    /** Where that harness stopped: passed | rejected (no usable function) | fixed_tests | fuzzing | unknown. */
    stage: "passed" | "rejected" | "fixed_tests" | "fuzzing" | "unknown";
    /** A failure of that harness itself, not of the response. */
    fault: "timeout" | "crash" | null;
    detail: string;
    /** The code as that harness extracted it from the response, when it can be reproduced. */
    extracted: string | null;
    location: string;
}

/** Stores the published verdicts of a run (a re-import replaces them); details are capped by {@link capDetail}. */
export function writePublishedVerdicts(store: Store, runId: string, rows: PublishedVerdict[]): void {
    store.write(() => {
        const ins = store.db.prepare(
            `INSERT OR REPLACE INTO published_verdicts (run_id, template_id, instance_idx, round, source, correct, stage, fault, detail, extracted, location)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
        );
        for (const r of rows) ins.run(runId, r.templateId, r.instance, r.round, r.source, r.correct ? 1 : 0, r.stage, r.fault, capDetail(r.detail), r.extracted, r.location);
    });
}

/** The published verdicts of a run, or none; an older database without the table has none. */
export function publishedVerdicts(store: Store, runId: string): PublishedVerdict[] {
    const table = store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'published_verdicts'").get();
    if (!table) return [];
    const rows = store.db
        .prepare("SELECT * FROM published_verdicts WHERE run_id = ? ORDER BY template_id, instance_idx, round")
        .all(runId) as { template_id: string; instance_idx: number; round: number; source: string; correct: number; stage: PublishedVerdict["stage"]; fault: PublishedVerdict["fault"]; detail: string; extracted: string | null; location: string }[];
    return rows.map((r) => ({
        templateId: r.template_id,
        instance: r.instance_idx,
        round: r.round,
        source: r.source,
        correct: r.correct === 1,
        stage: r.stage,
        fault: r.fault,
        detail: r.detail,
        extracted: r.extracted,
        location: r.location
    }));
}
