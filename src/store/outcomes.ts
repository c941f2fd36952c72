import path from "node:path";
import { EddyError } from "../util/errors.js";
import type { ChatMessage } from "../vocabulary.js";
import { countAnswers, type AnswerCounts, type Category } from "../vocabulary.js";
import type { Outcome } from "../vocabulary.js";
import { connection } from "./connection.js";
import type { Store } from "./Store.js";
import type { ConfigurationRow, RunRow } from "./types.js";

/** A run's metadata as reports show it. */
export interface RunInfo {
    id: string;
    created: string;
    updated: string;
    status: string;
    eddyVersion: string;
    backend: string;
    seed: number;
    isolationLevel: string | null;
    isolation: unknown;
    /** The study configuration as given (models, templates, M, R, temperatures, wrappers, …). */
    config: Record<string, unknown>;
    error: string | null;
    /** Throughput and counts of the last session that worked on the run. */
    stats: unknown;
    configurations: ConfigurationInfo[];
    templates: { id: string; oracleHash: string; group: string; subgroups: string[] }[];
    counts: ReturnType<Store["counts"]>;
    /** Its answers: planned, judged, passed, harness outcomes and missing (src/vocabulary.ts), as every command counts them. */
    answers: AnswerCounts;
}

/** One configuration with its backend metadata. */
export interface ConfigurationInfo {
    id: number;
    /** Readable label, unique within the run. */
    label: string;
    model: string;
    modelPath: string | null;
    modelSha256: string | null;
    quantization: string | null;
    temperature: number;
    wrapper: string;
    decoding: unknown;
    metadata: Record<string, unknown> | null;
}

/** Look a run up by id (or unique prefix); EddyError when absent. */
export function requireRun(store: Store, id: string): RunRow {
    const run = store.getRun(id);
    if (!run) throw new EddyError(`no run '${id}' in ${store.path} (see 'eddy runs list')`);
    return run;
}

/** Label of a configuration: `<model> t=<temperature> <wrapper>`. */
export function configLabel(c: Pick<ConfigurationRow, "model" | "temperature" | "wrapper">): string {
    return `${c.model} t=${c.temperature} ${c.wrapper}`;
}

/** Everything reports need about one run. */
export function runInfo(store: Store, id: string): RunInfo {
    const run = requireRun(store, id);
    const confs = store.configurations(run.id);
    const config = JSON.parse(run.config_json) as Record<string, unknown>;
    const counts = store.counts(run.id);
    return {
        id: run.id,
        created: run.created,
        updated: run.updated,
        status: run.status,
        eddyVersion: run.eddy_version,
        backend: run.backend,
        seed: run.seed,
        isolationLevel: run.isolation_level,
        isolation: run.isolation_json ? JSON.parse(run.isolation_json) : null,
        config,
        error: run.error,
        stats: run.stats_json ? JSON.parse(run.stats_json) : null,
        configurations: confs.map((c) => ({
            id: c.id,
            label: configLabel(c),
            model: c.model,
            modelPath: c.model_path,
            modelSha256: c.model_sha256,
            quantization: c.quantization,
            temperature: c.temperature,
            wrapper: c.wrapper,
            decoding: JSON.parse(c.decoding_json),
            metadata: c.metadata_json ? JSON.parse(c.metadata_json) : null
        })),
        templates: store.runTemplates(run.id).map((t) => ({ id: t.template_id, oracleHash: t.oracle_hash, group: t.grp, subgroups: JSON.parse(t.subgroups_json) })),
        counts,
        answers: runAnswers(counts, config, run.status)
    };
}

/**
 * A run's answers (src/vocabulary.ts) from its stored counts: planned = configurations × instances × R
 * (the rounds the study asked for), outcomes by category. A configuration is stored when its model is
 * loaded: until the study has finished, the configurations its settings name count too (models ×
 * temperatures × wrappers), so a run stopped while its model loads plans what it will ask.
 */
export function runAnswers(counts: Pick<ReturnType<Store["counts"]>, "configurations" | "instances" | "categories">, config: Record<string, unknown>, status?: string): AnswerCounts {
    const rounds = typeof config.rounds === "number" ? config.rounds : 0;
    const size = (v: unknown): number => (Array.isArray(v) && v.length > 0 ? v.length : 1);
    const named = size(config.models) * size(config.temperatures) * size(config.wrappers);
    const configurations = status === "complete" ? counts.configurations : Math.max(counts.configurations, named);
    return countAnswers(configurations * counts.instances * rounds, counts.categories);
}

/** Every run's metadata, newest first. */
export function listRunInfos(store: Store): RunInfo[] {
    return store.listRuns().map((r) => runInfo(store, r.id));
}

/** One stored, judged response with everything an export row needs. */
interface JoinedRow {
    run_id: string;
    config_id: number;
    model: string;
    quantization: string | null;
    temperature: number;
    wrapper: string;
    template_id: string;
    grp: string;
    subgroups_json: string;
    instance_idx: number;
    params_json: string;
    round: number;
    seed: number;
    category: Category;
    judge_category: Category;
    detail: string;
    ms: number;
    code: string | null;
    response: string;
    stop_reason: string;
    prompt_tokens: number;
    generated_tokens: number;
    gen_ms: number;
    cached: number;
}

const JOINED_SQL = `
    SELECT c.run_id, c.id AS config_id, c.model, c.quantization, c.temperature, c.wrapper,
           g.template_id, t.grp, t.subgroups_json, g.instance_idx, i.params_json, g.round, g.seed,
           v.category, v.judge_category, v.detail, v.ms, g.code, g.response, g.stop_reason,
           g.prompt_tokens, g.generated_tokens, g.gen_ms, g.cached
    FROM generations g
    JOIN verdicts v ON v.generation_id = g.id
    JOIN configurations c ON c.id = g.config_id
    JOIN run_templates t ON t.run_id = c.run_id AND t.template_id = g.template_id
    JOIN instances i ON i.run_id = c.run_id AND i.template_id = g.template_id AND i.idx = g.instance_idx
    WHERE c.run_id = ? AND g.missing = 0
    ORDER BY c.id, g.template_id, g.instance_idx, g.round`;

/**
 * Judged responses of the given runs as scoring sees them. Missing replay answers and
 * generations still waiting for a verdict are left out. `config` labels are unique across
 * the runs: a label that two runs share gets `@<run id>` appended.
 */
export function loadOutcomes(store: Store, runIds: string[]): Outcome[] {
    const runs = runIds.map((id) => requireRun(store, id));
    const owners = new Map<string, Set<string>>();
    for (const r of runs)
        for (const c of store.configurations(r.id)) {
            const l = configLabel(c);
            if (!owners.has(l)) owners.set(l, new Set());
            owners.get(l)!.add(r.id);
        }
    const out: Outcome[] = [];
    const stmt = connection(store).prepare(JOINED_SQL);
    // Every round of an instance carries the same parameters: parsed once and shared (read-only), so
    // the scores that key instances by their parameters stringify each tuple once, not per answer.
    const parsed = new Map<string, unknown>();
    const once = <T>(json: string): T => {
        let v = parsed.get(json);
        if (v === undefined) parsed.set(json, (v = JSON.parse(json)));
        return v as T;
    };
    for (const r of runs) {
        for (const row of stmt.iterate(r.id) as IterableIterator<JoinedRow>) {
            const base = configLabel(row);
            out.push({
                runId: row.run_id,
                config: owners.get(base)!.size > 1 ? `${base} @${row.run_id}` : base,
                model: row.model,
                quantization: row.quantization,
                temperature: row.temperature,
                wrapper: row.wrapper,
                template: row.template_id,
                group: row.grp,
                subgroups: once(row.subgroups_json),
                instance: row.instance_idx,
                params: once(row.params_json),
                round: row.round,
                seed: row.seed,
                category: row.category,
                detail: row.detail,
                code: row.code,
                response: row.response
            });
        }
    }
    return out;
}

/** One row per stored response of a run (missing ones included, with category `missing`), for `eddy export`. */
export function exportRows(store: Store, runId: string): Record<string, unknown>[] {
    const run = requireRun(store, runId);
    const sql = JOINED_SQL.replace("JOIN verdicts v", "LEFT JOIN verdicts v").replace(" AND g.missing = 0", "");
    const rows = connection(store).prepare(sql.replace("g.cached", "g.cached, g.missing").replace("i.params_json", "i.params_json, i.bindings_json").replace("v.ms,", "v.ms, v.shrunk_json,")).all(run.id) as (JoinedRow & { missing: number; bindings_json: string; shrunk_json: string | null })[];
    return rows.map((r) => ({
        run: r.run_id,
        config: configLabel(r),
        model: r.model,
        quantization: r.quantization,
        temperature: r.temperature,
        wrapper: r.wrapper,
        template: r.template_id,
        group: r.grp,
        instance: r.instance_idx,
        params: JSON.parse(r.params_json),
        // The same values by name (params is their tuple, in the template's order): a row read alone says what each is.
        parameters: JSON.parse(r.bindings_json) as Record<string, unknown>,
        round: r.round,
        seed: r.seed,
        code: r.code,
        category: r.missing ? "missing" : (r.category ?? "unjudged"),
        judge_category: r.judge_category ?? null,
        detail: r.detail ?? (r.missing ? "no answer in the replay file" : ""),
        judge_ms: r.ms ?? null,
        // A fuzzing failure's input shrunk to the smallest on which answer and model solution still differ.
        shrunk_input: r.shrunk_json ? (JSON.parse(r.shrunk_json) as unknown) : null,
        stop_reason: r.stop_reason,
        prompt_tokens: r.prompt_tokens,
        generated_tokens: r.generated_tokens,
        gen_ms: r.gen_ms,
        cached: r.cached === 1,
        response: r.response
    }));
}

/** The chat messages each response of a configuration was asked with, by `template|instance|round`. */
export function askedMessages(store: Store, configId: number): Map<string, ChatMessage[]> {
    const rows = connection(store)
        .prepare("SELECT template_id, instance_idx, round, prompt_json FROM generations WHERE config_id = ?")
        .all(configId) as { template_id: string; instance_idx: number; round: number; prompt_json: string }[];
    return new Map(rows.map((r) => [`${r.template_id}|${r.instance_idx}|${r.round}`, JSON.parse(r.prompt_json) as ChatMessage[]]));
}

/** Model label for a model file: its file name without `.gguf`. */
export function modelStem(file: string): string {
    return path.basename(file).replace(/\.gguf$/i, "");
}
