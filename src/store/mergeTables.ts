/**
 * What `eddy merge` knows about each table: how a row is identified across nodes (its natural key,
 * never a local integer id) and which columns must agree for two copies to be the same row.
 * Columns left out of `compare` are timings, local paths and bookkeeping that differ between
 * machines without changing a result (ttft_ms, model_path, created, …): the target's copy is kept.
 */
export interface TableSpec {
    /** Natural key columns (after run ids and config ids are mapped to the target's). */
    key: readonly string[];
    /** Columns that must be equal when the key matches; otherwise the row is a conflict. */
    compare: readonly string[];
}

/** Tables merged by natural key, in dependency order. */
export const MERGED_TABLES = {
    runs: { key: ["id"], compare: ["config_hash", "backend", "seed", "eddy_version"] },
    configurations: { key: ["run_id", "model", "temperature", "wrapper"], compare: ["model_sha256", "decoding_json"] },
    run_templates: { key: ["run_id", "template_id"], compare: ["oracle_hash", "grp", "subgroups_json", "function"] },
    instances: { key: ["run_id", "template_id", "idx"], compare: ["params_json", "bindings_json", "question"] },
    generations: {
        key: ["config_id", "template_id", "instance_idx", "round"],
        compare: ["seed", "prompt_json", "response", "code", "stop_reason", "prompt_tokens", "generated_tokens", "missing"]
    },
    verdicts: { key: ["generation_id"], compare: ["category", "judge_category", "detail"] },
    published_verdicts: {
        key: ["run_id", "template_id", "instance_idx", "round"],
        compare: ["source", "correct", "stage", "fault", "detail", "extracted"]
    },
    mutate_studies: { key: ["run_id"], compare: ["original", "embed_model", "min_similarity", "variants_json"] },
    // CPU time is the machine's own (like ttft_ms): each session's row is kept, none compared.
    generation_usage: { key: ["run_id", "model", "session"], compare: [] },
    // What eddy quant measured beside a run (paths and drift are the machine's): the target's copy is kept.
    quant_studies: { key: ["run_id"], compare: [] },
    loop_runs: { key: ["id"], compare: ["config_hash", "backend", "model", "model_sha256", "eddy_version"] },
    loop_tasks: { key: ["run_id", "template_id", "instance_idx"], compare: ["params_json", "bindings_json", "question", "oracle_hash"] },
    loop_steps: {
        key: ["run_id", "template_id", "instance_idx", "loop"],
        compare: ["question", "prompt_json", "response", "code", "category", "detail", "stop_reason", "prompt_tokens", "generated_tokens", "summary", "similarity", "drift"]
    },
    // Caches are hints keyed by content hashes: the first copy wins, no conflicts (timings differ by machine).
    response_cache: { key: ["key"], compare: [] },
    verdict_cache: { key: ["key"], compare: [] },
    oracle_validations: { key: ["key"], compare: [] },
    // An audit has no natural id: the same audit is the same model, mode, version, time and result.
    determinism_audits: { key: ["model_sha256", "mode", "eddy_version", "created", "result_json"], compare: [] },
    provenance: { key: ["run_id", "model", "temperature", "wrapper", "template_id", "instance_idx", "round"], compare: [] }
} as const satisfies Record<string, TableSpec>;

export type MergedTable = keyof typeof MERGED_TABLES;

/** Tables a merge reads but never copies: this database's own identity, and which process works on which run here. */
export const LOCAL_TABLES = ["meta", "run_leases"] as const;
