import { connection } from "./connection.js";
import type { Store } from "./Store.js";

/** What a mutation study stores beside its run (mutate_studies); `V` is the variant record (src/mutate owns its shape). */
export interface MutateStudyRecord<V> {
    runId: string;
    original: string;
    embedModel: string | null;
    minSimilarity: number;
    variants: V[];
}

/** Record (or replace) the mutation record of a run. */
export function recordMutateStudy<V>(store: Store, row: MutateStudyRecord<V>): void {
    store.write(() =>
        connection(store)
            .prepare("INSERT OR REPLACE INTO mutate_studies (run_id, created, original, embed_model, min_similarity, variants_json) VALUES (?, ?, ?, ?, ?, ?)")
            .run(row.runId, new Date().toISOString(), row.original, row.embedModel, row.minSimilarity, JSON.stringify(row.variants))
    );
}

/** The mutation record of a run, or undefined when the run is not a mutation study. */
export function readMutateStudy<V>(store: Store, runId: string): MutateStudyRecord<V> | undefined {
    const r = connection(store).prepare("SELECT * FROM mutate_studies WHERE run_id = ?").get(runId) as
        | { run_id: string; original: string; embed_model: string | null; min_similarity: number; variants_json: string }
        | undefined;
    return r && { runId: r.run_id, original: r.original, embedModel: r.embed_model, minSimilarity: r.min_similarity, variants: JSON.parse(r.variants_json) as V[] };
}
