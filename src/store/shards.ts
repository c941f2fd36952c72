import { connection } from "./connection.js";
import { openStore, type Store } from "./Store.js";

/** One shard of a queued study: a model, temperature and wrapper on one template. */
export interface ShardKey {
    model: string;
    temperature: number;
    wrapper: string;
    template: string;
}

/** A shard's rows in a run: its stored answers, and how many of them still wait for a verdict (missing replay answers need none). */
export function shardProgress(store: Store, runId: string, s: ShardKey): { n: number; unjudged: number | null } {
    return connection(store)
        .prepare(
            `SELECT COUNT(*) AS n, SUM(CASE WHEN g.missing = 0 AND (v.generation_id IS NULL OR v.category = 'judge_error') THEN 1 ELSE 0 END) AS unjudged
             FROM generations g JOIN configurations c ON c.id = g.config_id LEFT JOIN verdicts v ON v.generation_id = g.id
             WHERE c.run_id = ? AND c.model = ? AND c.temperature = ? AND c.wrapper = ? AND g.template_id = ?`
        )
        .get(runId, s.model, s.temperature, s.wrapper, s.template) as { n: number; unjudged: number | null };
}

/** A configuration of a shard's scratch run, as it goes back to the coordinator. */
export interface ScratchConfiguration {
    id: number;
    model_sha256: string | null;
    quantization: string | null;
    decoding_json: string;
    metadata_json: string | null;
}

/**
 * Everything a worker's scratch database holds about the one shard it ran: its configurations, the run's
 * version and judge isolation, its templates' oracle hashes, and every generation (in id order) with its
 * verdict's columns (category null: no verdict). `G` is the row shape the queue sends on.
 */
export function readScratchRun<G>(file: string): { configurations: ScratchConfiguration[]; run: { eddy_version: string; isolation_json: string | null }; oracleHashes: string[]; generations: G[] } {
    const store = openStore(file, { readonly: true });
    try {
        const db = connection(store);
        return {
            configurations: db.prepare("SELECT id, model_sha256, quantization, decoding_json, metadata_json FROM configurations").all() as ScratchConfiguration[],
            run: db.prepare("SELECT eddy_version, isolation_json FROM runs").get() as { eddy_version: string; isolation_json: string | null },
            oracleHashes: (db.prepare("SELECT oracle_hash FROM run_templates").all() as { oracle_hash: string }[]).map((t) => t.oracle_hash),
            generations: db
                .prepare(
                    `SELECT g.template_id, g.instance_idx, g.round, g.seed, g.prompt_json, g.response, g.code, g.stop_reason, g.prompt_tokens,
                            g.generated_tokens, g.ttft_ms, g.gen_ms, g.cached, g.missing,
                            v.category, v.judge_category, v.detail, v.ms AS v_ms, v.cached AS v_cached, v.shrunk_json AS v_shrunk
                     FROM generations g LEFT JOIN verdicts v ON v.generation_id = g.id ORDER BY g.id`
                )
                .all() as G[]
        };
    } finally {
        store.close();
    }
}
