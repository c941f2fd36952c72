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
    ,
    // EvaLOOP self-consistency loops and prompt-mutation studies (#13): loop runs, their tasks and
    // steps (one row per loop: code from a question, its verdict, then the summary that becomes the
    // next question); a mutation study's variants beside the ordinary run that evaluated them.
    `
    CREATE TABLE loop_runs (
        id TEXT PRIMARY KEY,
        created TEXT NOT NULL,
        updated TEXT NOT NULL,
        status TEXT NOT NULL,              -- running | interrupted | failed | complete
        config_hash TEXT NOT NULL,
        config_json TEXT NOT NULL,
        eddy_version TEXT NOT NULL,
        backend TEXT NOT NULL,
        model TEXT NOT NULL,               -- model label (file stem, or the backend name)
        model_path TEXT,
        model_sha256 TEXT,
        quantization TEXT,
        summariser TEXT,                   -- label of the summarising model (the same model unless named)
        metadata_json TEXT,
        isolation_level TEXT,
        error TEXT
    );
    CREATE INDEX loop_runs_config_hash ON loop_runs(config_hash);

    CREATE TABLE loop_tasks (
        run_id TEXT NOT NULL REFERENCES loop_runs(id),
        template_id TEXT NOT NULL,
        instance_idx INTEGER NOT NULL,
        params_json TEXT NOT NULL,
        bindings_json TEXT NOT NULL,
        question TEXT NOT NULL,
        oracle_hash TEXT NOT NULL,
        PRIMARY KEY (run_id, template_id, instance_idx)
    );

    CREATE TABLE loop_steps (
        run_id TEXT NOT NULL,
        template_id TEXT NOT NULL,
        instance_idx INTEGER NOT NULL,
        loop INTEGER NOT NULL,             -- 1-based
        question TEXT NOT NULL,            -- the prompt p^loop the code was generated from
        prompt_json TEXT NOT NULL,
        response TEXT NOT NULL,
        code TEXT,
        category TEXT NOT NULL,
        detail TEXT NOT NULL,
        stop_reason TEXT NOT NULL,
        prompt_tokens INTEGER NOT NULL,
        generated_tokens INTEGER NOT NULL,
        gen_ms REAL NOT NULL,
        summary_prompt_json TEXT,
        summary_response TEXT,
        summary TEXT,                      -- p^(loop+1); null until summarised (never after a failure or the last loop)
        similarity REAL,                   -- cosine(p^loop, p^(loop+1)) when an embedding model was given
        drift REAL,                        -- cosine(p^1, p^(loop+1))
        created TEXT NOT NULL,
        PRIMARY KEY (run_id, template_id, instance_idx, loop),
        FOREIGN KEY (run_id, template_id, instance_idx) REFERENCES loop_tasks(run_id, template_id, instance_idx)
    );

    CREATE TABLE mutate_studies (
        run_id TEXT PRIMARY KEY REFERENCES runs(id),
        created TEXT NOT NULL,
        original TEXT NOT NULL,            -- wrapper id of the original
        embed_model TEXT,
        min_similarity REAL NOT NULL,
        variants_json TEXT NOT NULL        -- [{id, file, operations, similarity, kept}]
    );
    `
    ,
    // Turbulence importer (#11): the verdict another harness published for each imported response,
    // kept beside eddy's own verdict so reports can show where the two agree.
    `
    CREATE TABLE published_verdicts (
        run_id TEXT NOT NULL REFERENCES runs(id),
        template_id TEXT NOT NULL,
        instance_idx INTEGER NOT NULL,
        round INTEGER NOT NULL,
        source TEXT NOT NULL,              -- the harness, e.g. 'turbulence'
        correct INTEGER NOT NULL,          -- 1 when it counted the response correct
        stage TEXT NOT NULL,               -- passed | rejected | fixed_tests | fuzzing | unknown
        fault TEXT,                        -- its own failure: timeout | crash (null when none)
        detail TEXT NOT NULL,
        extracted TEXT,                    -- the code as that harness extracted it, when known
        location TEXT NOT NULL,            -- where it was read from (folder in the results)
        PRIMARY KEY (run_id, template_id, instance_idx, round)
    );
    `
    ,
    // Determinism audit (#10, eddy audit determinism): how far a model's responses depend on the
    // session and the batching, recorded on the model (by its file's sha256) for reports.
    `
    CREATE TABLE determinism_audits (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        model_sha256 TEXT NOT NULL,
        model TEXT NOT NULL,
        mode TEXT NOT NULL,                -- reproducible | fast
        eddy_version TEXT NOT NULL,
        created TEXT NOT NULL,
        responses INTEGER NOT NULL,        -- per session
        differing_responses INTEGER NOT NULL, -- the most any session differed from the baseline
        differing_verdicts INTEGER NOT NULL,
        identical INTEGER NOT NULL,
        result_json TEXT NOT NULL          -- the whole audit (sessions, first divergences, rounds)
    );
    CREATE INDEX determinism_audits_model ON determinism_audits(model_sha256);
    `
    ,
    // eddy merge (#14): this database's node id (a ULID written on first use), and which node produced
    // each generation, keyed by the generation's natural key so it survives id remapping across merges.
    `
    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );

    CREATE TABLE provenance (
        run_id TEXT NOT NULL REFERENCES runs(id),
        model TEXT NOT NULL,
        temperature REAL NOT NULL,
        wrapper TEXT NOT NULL,
        template_id TEXT NOT NULL,
        instance_idx INTEGER NOT NULL,
        round INTEGER NOT NULL,
        node_id TEXT NOT NULL,             -- the node whose store first held the generation
        source_path TEXT NOT NULL,         -- the database file it was merged from
        source_sha256 TEXT NOT NULL,
        merged_at TEXT NOT NULL,
        PRIMARY KEY (run_id, model, temperature, wrapper, template_id, instance_idx, round)
    );
    `
    ,
    // Oracle validation before judging (SPEC §2): a template's model solution checked against its own
    // oracle on a run's instances, cached by the oracle's hash and the instances, so it runs once.
    `
    CREATE TABLE oracle_validations (
        key TEXT PRIMARY KEY,              -- sha256 of the oracle hash and the instances' bindings
        template_id TEXT NOT NULL,
        oracle_hash TEXT NOT NULL,
        instances INTEGER NOT NULL,
        ok INTEGER NOT NULL,               -- 1: the model solution passed on every instance
        result_json TEXT NOT NULL,         -- the model solution's failures, if any
        created TEXT NOT NULL
    );
    `
    ,
    // Turbulence as published (#23): the response file as the harness wrote it (a printed SDK object),
    // the form it was read in, and a sandboxed re-run of the published test where the verdicts differ.
    `
    ALTER TABLE published_verdicts ADD COLUMN raw TEXT;            -- the published response file, as it is
    ALTER TABLE published_verdicts ADD COLUMN form TEXT;           -- openai | anthropic | mistral | cohere | json | text | object:<Name>
    ALTER TABLE published_verdicts ADD COLUMN rerun_json TEXT;     -- {seeds, response: {passed, failedSeeds, detail}, reference: {…}}
    `
    ,
    // One process works on a run at a time (#25): the holder's host and pid, refreshed while it works. A lease
    // whose holder is gone (a dead pid on this host, or no refresh for a while) is taken over. Local to this
    // database: merge never copies it.
    `
    CREATE TABLE run_leases (
        run_id TEXT PRIMARY KEY,
        holder TEXT NOT NULL,              -- host:pid:random, unique per session
        host TEXT NOT NULL,
        pid INTEGER NOT NULL,
        acquired TEXT NOT NULL,
        heartbeat INTEGER NOT NULL         -- ms since the epoch, refreshed while the holder works
    );
    `
    ,
    // Agreement with EvalPlus (#44): what eddy found out about a sample where its verdict and the published
    // one differ (the input that decided, what the answer gives there and at what CPU time, the canonical
    // solution's time), from which the report files the cause, with its evidence.
    `
    ALTER TABLE published_verdicts ADD COLUMN evidence_json TEXT;  -- src/report/peerEvidence.ts PeerEvidence
    `
    ,
    // Quantisation studies (#45): the CPU time the inference process spent generating a model's answers in a run
    // (one row per session that generated: a resume adds one), for tokens per CPU-second; and what `eddy quant`
    // measured beside the run (files, bits per weight, token drift), so the viewer draws the study as the command did.
    `
    CREATE TABLE generation_usage (
        run_id TEXT NOT NULL REFERENCES runs(id),
        model TEXT NOT NULL,               -- the configurations' model label (one backend served them)
        session TEXT NOT NULL,             -- random id of the generating session
        cpu_ms REAL NOT NULL,              -- user + system CPU of the inference process(es) while generating
        wall_ms REAL NOT NULL,
        generated_tokens INTEGER NOT NULL, -- tokens generated in that time (answers from the cache excluded)
        prompt_tokens INTEGER NOT NULL,
        responses INTEGER NOT NULL,
        threads INTEGER,
        created TEXT NOT NULL,
        PRIMARY KEY (run_id, model, session)
    );

    CREATE TABLE quant_studies (
        run_id TEXT PRIMARY KEY REFERENCES runs(id),
        created TEXT NOT NULL,
        updated TEXT NOT NULL,
        reference TEXT NOT NULL,           -- the reference file
        inputs_json TEXT NOT NULL          -- src/store/quantStudy.ts StoredQuantStudy: files, bits per weight, drift
    );
    `,
    // Why an answer failed: a fuzzing failure's input shrunk to the smallest on which the answer and the model
    // solution still differ (src/judge/types.ts ShrunkInput), kept beside the verdict, which it does not change.
    `
    ALTER TABLE verdicts ADD COLUMN shrunk_json TEXT;
    ALTER TABLE verdict_cache ADD COLUMN shrunk_json TEXT;
    `,
    // The shape of a run's answers without their text: what the viewer fingerprints on every look after a write
    // and what every count of a run reads (Store.counts) come from this index alone, never from the rows, whose
    // prompts and responses fill most of the file (100,000 answers: 116 ms to count a run's answers, 4 ms).
    `
    CREATE INDEX generations_shape ON generations(config_id, template_id, missing, cached);
    `
];
