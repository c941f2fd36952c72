/**
 * The database schema as numbered migrations. `PRAGMA user_version` holds how many have
 * been applied; a migration is never edited once released, only followed by a new one.
 */
export const MIGRATIONS: readonly string[] = [
    // 1: runs, configurations, templates, instances, generations, verdicts, caches.
    `
    CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        created TEXT NOT NULL,
        updated TEXT NOT NULL,
        status TEXT NOT NULL,              -- running | interrupted | failed | complete
        config_hash TEXT NOT NULL,         -- identity of the study: same config, same run
        config_json TEXT NOT NULL,
        eddy_version TEXT NOT NULL,
        backend TEXT NOT NULL,
        seed INTEGER NOT NULL,
        isolation_level TEXT,
        isolation_json TEXT,
        error TEXT,
        stats_json TEXT
    );
    CREATE INDEX runs_config_hash ON runs(config_hash);

    CREATE TABLE configurations (
        id INTEGER PRIMARY KEY,
        run_id TEXT NOT NULL REFERENCES runs(id),
        model TEXT NOT NULL,               -- model file stem (or backend name)
        model_path TEXT,
        model_sha256 TEXT,
        quantization TEXT,
        temperature REAL NOT NULL,
        wrapper TEXT NOT NULL,
        decoding_json TEXT NOT NULL,
        metadata_json TEXT,                -- BackendMetadata: llama.cpp release, threads, sequences, mode...
        UNIQUE (run_id, model, temperature, wrapper)
    );

    CREATE TABLE run_templates (
        run_id TEXT NOT NULL REFERENCES runs(id),
        template_id TEXT NOT NULL,
        oracle_hash TEXT NOT NULL,
        grp TEXT NOT NULL,
        subgroups_json TEXT NOT NULL,
        function TEXT NOT NULL,
        PRIMARY KEY (run_id, template_id)
    );

    CREATE TABLE instances (
        run_id TEXT NOT NULL,
        template_id TEXT NOT NULL,
        idx INTEGER NOT NULL,
        params_json TEXT NOT NULL,
        bindings_json TEXT NOT NULL,
        question TEXT NOT NULL,
        PRIMARY KEY (run_id, template_id, idx),
        FOREIGN KEY (run_id, template_id) REFERENCES run_templates(run_id, template_id)
    );

    CREATE TABLE generations (
        id INTEGER PRIMARY KEY,
        config_id INTEGER NOT NULL REFERENCES configurations(id),
        template_id TEXT NOT NULL,
        instance_idx INTEGER NOT NULL,
        round INTEGER NOT NULL,
        seed INTEGER NOT NULL,
        prompt_json TEXT NOT NULL,
        response TEXT NOT NULL,
        code TEXT,
        stop_reason TEXT NOT NULL,
        prompt_tokens INTEGER NOT NULL,
        generated_tokens INTEGER NOT NULL,
        ttft_ms REAL NOT NULL,
        gen_ms REAL NOT NULL,
        cached INTEGER NOT NULL DEFAULT 0, -- answered from the response cache
        missing INTEGER NOT NULL DEFAULT 0,-- replay file had no answer: never judged, excluded from scores
        created TEXT NOT NULL,
        UNIQUE (config_id, template_id, instance_idx, round)
    );

    CREATE TABLE verdicts (
        generation_id INTEGER PRIMARY KEY REFERENCES generations(id),
        category TEXT NOT NULL,
        judge_category TEXT NOT NULL,      -- what the judge said before the truncation rule
        detail TEXT NOT NULL,
        ms REAL NOT NULL,
        cached INTEGER NOT NULL DEFAULT 0,
        created TEXT NOT NULL
    );

    CREATE TABLE response_cache (
        key TEXT PRIMARY KEY,              -- sha256(model sha256, prompt, decoding, seed, max tokens)
        model_sha256 TEXT NOT NULL,
        response TEXT NOT NULL,
        stop_reason TEXT NOT NULL,
        prompt_tokens INTEGER NOT NULL,
        generated_tokens INTEGER NOT NULL,
        ttft_ms REAL NOT NULL,
        gen_ms REAL NOT NULL,
        created TEXT NOT NULL
    );

    CREATE TABLE verdict_cache (
        key TEXT PRIMARY KEY,
        category TEXT NOT NULL,
        detail TEXT NOT NULL,
        ms REAL NOT NULL,
        created TEXT NOT NULL
    );
    `
];
