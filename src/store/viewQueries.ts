import type { ShrunkInput } from "../judge/types.js";
import type Database from "better-sqlite3";
import type { AnswerCounts, Category, Outcome } from "../vocabulary.js";
import { connection } from "./connection.js";
import { configLabel, runAnswers } from "./outcomes.js";
import type { Store } from "./Store.js";
import type { GenerationRow } from "./types.js";
import { DEFAULT_LANGUAGE } from "../languages/languages.js";

/**
 * Read-only, paged queries of `eddy view` (issue #33). Every query here is bounded: a page of answers
 * (LIMIT + 1, so "more" needs no count over the whole store), one template of one run, or one answer;
 * the one run-wide read ({@link ViewRepository.scoringOutcomes}) leaves response and code text out.
 * Each query walks the generations' unique index (config_id, template_id, instance_idx, round) or
 * a primary key, so a store of 100,000 answers answers each page in milliseconds (scripts/bench-view.ts).
 */

/** A run in the list of runs. */
export interface ViewRun {
    id: string;
    created: string;
    status: string;
    backend: string;
    seed: number;
    /** The study configuration as stored. */
    config: Record<string, unknown>;
    configurations: number;
    /** Stored answers (generated, not missing from a replay file). */
    answers: number;
    /** Judged answers (src/vocabulary.ts): with a model verdict, harness outcomes left out (= answerCounts.judged). */
    judged: number;
    /** Its answers, planned, judged, passed, harness and missing, as every command counts them (src/store/outcomes.ts runAnswers). */
    answerCounts: AnswerCounts;
}

/** One configuration of a run (its id names it in URLs). */
export interface ViewConfiguration {
    id: number;
    runId: string;
    label: string;
    model: string;
    quantization: string | null;
    temperature: number;
    wrapper: string;
    modelSha256: string | null;
    decoding: Record<string, unknown>;
    metadata: Record<string, unknown> | null;
}

/** Filters of the answers list; every field optional, all given ones must hold. */
export interface AnswerFilter {
    run?: string;
    config?: number;
    template?: string;
    group?: string;
    /** A verdict category, or "failing" (every model category but passed). */
    category?: string;
    model?: string;
    temperature?: number;
    /** The run's answer language (the default language for runs that record none: languages.ts recordedLanguage). */
    language?: string;
    instance?: number;
    /** Text searched (case-insensitively, as a substring) in the response and the verdict detail. */
    q?: string;
}

/** One row of the answers list. */
export interface AnswerRow {
    id: number;
    runId: string;
    configId: number;
    config: string;
    template: string;
    group: string;
    instance: number;
    params: string;
    /** The instance's parameters by name (JSON), as stored. */
    bindings: string;
    round: number;
    category: Category | null;
    /** The first 200 characters of the detail. */
    detail: string;
    missing: boolean;
}

/** One answer with everything the instance page shows. */
export interface AnswerDetail {
    id: number;
    runId: string;
    configId: number;
    template: string;
    instance: number;
    round: number;
    seed: number;
    prompt: unknown;
    response: string;
    code: string | null;
    stopReason: string;
    promptTokens: number;
    generatedTokens: number;
    genMs: number;
    cached: boolean;
    missing: boolean;
    category: Category | null;
    judgeCategory: Category | null;
    detail: string | null;
    judgeMs: number | null;
    /** A fuzzing failure's input shrunk to the smallest on which answer and model solution still differ. */
    shrunk: ShrunkInput | null;
}

/** A stored instance: parameters, bindings and the question as asked. */
export interface ViewInstance {
    template: string;
    index: number;
    params: unknown[];
    bindings: Record<string, unknown>;
    question: string;
}

/** One cell of a template's grid: a (configuration, instance, round) and its verdict. */
export interface GridCell {
    id: number;
    configId: number;
    instance: number;
    round: number;
    category: Category | null;
    missing: boolean;
}

/** Page size cap: a page never asks for more rows than this. */
export const MAX_PAGE = 500;

/** A LIKE pattern matching `text` literally (`%`, `_` and the escape itself escaped with `\`). */
export function likePattern(text: string): string {
    return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** `store.view`: the viewer's queries. */
export class ViewRepository {
    private readonly db: Database.Database;
    constructor(store: Store) {
        this.db = connection(store);
    }

    /** Every run, newest first, with counts of configurations, answers and verdicts. */
    runs(): ViewRun[] {
        const rows = this.db
            .prepare(
                `SELECT r.id, r.created, r.status, r.backend, r.seed, r.config_json,
                        (SELECT COUNT(*) FROM configurations c WHERE c.run_id = r.id) AS configurations,
                        (SELECT COUNT(*) FROM generations g JOIN configurations c ON c.id = g.config_id WHERE c.run_id = r.id AND g.missing = 0) AS answers,
                        (SELECT COUNT(*) FROM instances i WHERE i.run_id = r.id) AS instances
                 FROM runs r ORDER BY r.created DESC, r.rowid DESC`
            )
            .all() as { id: string; created: string; status: string; backend: string; seed: number; config_json: string; configurations: number; answers: number; instances: number }[];
        // Outcomes by run and category, in one pass: the answers' counts (src/vocabulary.ts) come from them.
        const categories = new Map<string, Record<string, number>>();
        for (const c of this.db
            .prepare("SELECT c.run_id, v.category, COUNT(*) AS n FROM verdicts v JOIN generations g ON g.id = v.generation_id JOIN configurations c ON c.id = g.config_id GROUP BY c.run_id, v.category")
            .all() as { run_id: string; category: string; n: number }[]) {
            const m = categories.get(c.run_id) ?? {};
            m[c.category] = c.n;
            categories.set(c.run_id, m);
        }
        return rows.map(({ config_json, instances, ...r }) => {
            const config = parseObject(config_json);
            const answerCounts = runAnswers({ configurations: r.configurations, instances, categories: categories.get(r.id) ?? {} }, config, r.status);
            return { ...r, config, judged: answerCounts.judged, answerCounts };
        });
    }

    /** Configurations of a run (all runs when none is named), in insertion order. */
    configurations(runId?: string): ViewConfiguration[] {
        const rows = (
            runId === undefined
                ? this.db.prepare("SELECT * FROM configurations ORDER BY id").all()
                : this.db.prepare("SELECT * FROM configurations WHERE run_id = ? ORDER BY id").all(runId)
        ) as { id: number; run_id: string; model: string; quantization: string | null; temperature: number; wrapper: string; model_sha256: string | null; decoding_json: string; metadata_json: string | null }[];
        return rows.map((c) => ({
            id: c.id,
            runId: c.run_id,
            label: configLabel(c),
            model: c.model,
            quantization: c.quantization,
            temperature: c.temperature,
            wrapper: c.wrapper,
            modelSha256: c.model_sha256,
            decoding: parseObject(c.decoding_json),
            metadata: c.metadata_json ? parseObject(c.metadata_json) : null
        }));
    }

    /** One configuration by id. */
    configuration(id: number): ViewConfiguration | undefined {
        return this.configurations().find((c) => c.id === id);
    }

    /** Templates of a run with group and subgroups. */
    templates(runId: string): { id: string; group: string; subgroups: string[] }[] {
        const rows = this.db.prepare("SELECT template_id, grp, subgroups_json FROM run_templates WHERE run_id = ? ORDER BY template_id").all(runId) as { template_id: string; grp: string; subgroups_json: string }[];
        return rows.map((r) => ({ id: r.template_id, group: r.grp, subgroups: JSON.parse(r.subgroups_json) as string[] }));
    }

    /** Distinct values the answer filters offer: groups, models, temperatures, categories present. */
    facets(): { templates: string[]; groups: string[]; models: string[]; temperatures: number[]; categories: string[] } {
        const col = <T>(sql: string): T[] => (this.db.prepare(sql).all() as { v: T }[]).map((r) => r.v);
        return {
            templates: col<string>("SELECT DISTINCT template_id AS v FROM run_templates ORDER BY v"),
            groups: col<string>("SELECT DISTINCT grp AS v FROM run_templates ORDER BY v"),
            models: col<string>("SELECT DISTINCT model AS v FROM configurations ORDER BY v"),
            temperatures: col<number>("SELECT DISTINCT temperature AS v FROM configurations ORDER BY v"),
            categories: col<string>("SELECT DISTINCT category AS v FROM verdicts ORDER BY v")
        };
    }

    /**
     * Judged outcomes of one run as scoring reads them, without response and code text (the run page
     * scores 100,000 answers without pulling their text). A detail is kept only where a report reads it:
     * suspected tampering (the judge's `tampering:` prefix). `only`: the answers of one neighbourhood
     * (configuration × template) of the run, through the generations' index.
     */
    scoringOutcomes(runId: string, only?: { configId: number; template: string }): Outcome[] {
        // Answers and verdicts alone (the generations' index by configuration), joined to the run's few
        // configurations, templates and instances here: a fifth of the time of joining them in SQL per row.
        const configs = new Map(
            (this.db.prepare("SELECT id, run_id, model, quantization, temperature, wrapper FROM configurations WHERE run_id = ?").all(runId) as {
                id: number;
                run_id: string;
                model: string;
                quantization: string | null;
                temperature: number;
                wrapper: string;
            }[]).map((c) => [c.id, { ...c, label: configLabel(c) }])
        );
        const templates = new Map(this.templates(runId).map((t) => [t.id, t]));
        const params = new Map<string, Outcome["params"]>();
        const instances = (
            only
                ? this.db.prepare("SELECT template_id, idx, params_json FROM instances WHERE run_id = ? AND template_id = ?").all(runId, only.template)
                : this.db.prepare("SELECT template_id, idx, params_json FROM instances WHERE run_id = ?").all(runId)
        ) as { template_id: string; idx: number; params_json: string }[];
        for (const i of instances)
            params.set(`${i.template_id}\u0000${i.idx}`, JSON.parse(i.params_json) as Outcome["params"]);
        const rows = this.db
            .prepare(
                `SELECT g.config_id, g.template_id, g.instance_idx, g.round, g.seed, v.category,
                        CASE WHEN v.detail LIKE 'tampering:%' THEN v.detail ELSE '' END AS detail
                 FROM generations g JOIN verdicts v ON v.generation_id = g.id
                 WHERE ${only ? "g.config_id = ? AND g.template_id = ?" : "g.config_id IN (SELECT id FROM configurations WHERE run_id = ?)"} AND g.missing = 0
                 ORDER BY g.config_id, g.template_id, g.instance_idx, g.round`
            )
            .raw()
            .all(...(only ? [only.configId, only.template] : [runId])) as [number, string, number, number, number, Category, string][];
        const out: Outcome[] = [];
        for (const [configId, template, instance, round, seed, category, detail] of rows) {
            const c = configs.get(configId)!;
            const t = templates.get(template);
            const p = params.get(`${template}\u0000${instance}`);
            // An answer without its template or instance row is not scored, as the report's join leaves it out.
            if (!t || !p) continue;
            out.push({
                runId: c.run_id,
                config: c.label,
                model: c.model,
                quantization: c.quantization,
                temperature: c.temperature,
                wrapper: c.wrapper,
                template,
                group: t.group,
                subgroups: t.subgroups,
                instance,
                params: p,
                round,
                seed,
                category,
                detail,
                code: null,
                response: ""
            });
        }
        return out;
    }

    /** `PRAGMA data_version`: changes whenever another connection commits to the database (nothing changed: nothing to re-read). */
    dataVersion(): number {
        return this.db.pragma("data_version", { simple: true }) as number;
    }

    /**
     * A fingerprint of each neighbourhood (configuration × template) of a run: it changes whenever one
     * of its answers or verdicts is written. Key: `<configuration id>\u0000<template>`, in the order of
     * {@link scoringOutcomes}. What the viewer
     * rescores after a write is only the neighbourhoods whose fingerprint changed.
     */
    neighbourhoodVersions(runId: string): Map<string, string> {
        const rows = this.db
            .prepare(
                `SELECT g.config_id, g.template_id, COUNT(*) AS n, MAX(g.id) AS g, SUM(g.missing) AS m, COUNT(v.generation_id) AS v, COALESCE(MAX(v.created), '') AS vc
                 FROM generations g LEFT JOIN verdicts v ON v.generation_id = g.id
                 WHERE g.config_id IN (SELECT id FROM configurations WHERE run_id = ?)
                 GROUP BY g.config_id, g.template_id ORDER BY g.config_id, g.template_id`
            )
            .all(runId) as { config_id: number; template_id: string; n: number; g: number; m: number; v: number; vc: string }[];
        return new Map(rows.map((r) => [`${r.config_id}\u0000${r.template_id}`, `${r.n}:${r.g}:${r.m}:${r.v}:${r.vc}`]));
    }

    /**
     * The verdicts of a run's answers by category, per neighbourhood (key as in {@link neighbourhoodVersions}),
     * counted as Store.counts counts them; `only` one neighbourhood (the one a write changed).
     */
    categoryCounts(runId: string, only?: { configId: number; template: string }): Map<string, Record<string, number>> {
        const rows = this.db
            .prepare(
                `SELECT g.config_id, g.template_id, v.category, COUNT(*) AS n
                 FROM generations g JOIN verdicts v ON v.generation_id = g.id
                 WHERE ${only ? "g.config_id = ? AND g.template_id = ?" : "g.config_id IN (SELECT id FROM configurations WHERE run_id = ?)"}
                 GROUP BY g.config_id, g.template_id, v.category`
            )
            .all(...(only ? [only.configId, only.template] : [runId])) as { config_id: number; template_id: string; category: string; n: number }[];
        const out = new Map<string, Record<string, number>>();
        for (const r of rows) {
            const key = `${r.config_id}\u0000${r.template_id}`;
            const counts = out.get(key) ?? {};
            counts[r.category] = r.n;
            out.set(key, counts);
        }
        return out;
    }

    /** A fingerprint of a run: its status and every neighbourhood's (see {@link neighbourhoodVersions}). */
    runVersion(runId: string): string {
        const run = this.db.prepare("SELECT status, updated FROM runs WHERE id = ?").get(runId) as { status: string; updated: string } | undefined;
        return `${run?.status ?? ""}${run?.updated ?? ""}|${[...this.neighbourhoodVersions(runId)].map(([k, v]) => `${k}=${v}`).join("|")}`;
    }

    /** The verdict of every answer of one template of a run, for its grid. */
    grid(runId: string, templateId: string): GridCell[] {
        const rows = this.db
            .prepare(
                `SELECT g.id, g.config_id, g.instance_idx, g.round, v.category, g.missing
                 FROM configurations c JOIN generations g ON g.config_id = c.id AND g.template_id = ?
                 LEFT JOIN verdicts v ON v.generation_id = g.id
                 WHERE c.run_id = ? ORDER BY c.id, g.instance_idx, g.round`
            )
            .all(templateId, runId) as { id: number; config_id: number; instance_idx: number; round: number; category: Category | null; missing: number }[];
        return rows.map((r) => ({ id: r.id, configId: r.config_id, instance: r.instance_idx, round: r.round, category: r.category, missing: r.missing === 1 }));
    }

    /** The stored instances of one template of a run (parameters and question), by index. */
    instances(runId: string, templateId: string): ViewInstance[] {
        const rows = this.db
            .prepare("SELECT template_id, idx, params_json, bindings_json, question FROM instances WHERE run_id = ? AND template_id = ? ORDER BY idx")
            .all(runId, templateId) as { template_id: string; idx: number; params_json: string; bindings_json: string; question: string }[];
        return rows.map(toInstance);
    }

    /** One stored instance. */
    instance(runId: string, templateId: string, idx: number): ViewInstance | undefined {
        const r = this.db.prepare("SELECT template_id, idx, params_json, bindings_json, question FROM instances WHERE run_id = ? AND template_id = ? AND idx = ?").get(runId, templateId, idx) as
            | { template_id: string; idx: number; params_json: string; bindings_json: string; question: string }
            | undefined;
        return r && toInstance(r);
    }

    /** Every round's answer of one instance under one configuration, in round order. */
    instanceAnswers(configId: number, templateId: string, idx: number): AnswerDetail[] {
        const rows = this.db
            .prepare(
                `SELECT g.*, c.run_id, v.category, v.judge_category, v.detail, v.ms AS judge_ms, v.shrunk_json
                 FROM generations g JOIN configurations c ON c.id = g.config_id LEFT JOIN verdicts v ON v.generation_id = g.id
                 WHERE g.config_id = ? AND g.template_id = ? AND g.instance_idx = ? ORDER BY g.round`
            )
            .all(configId, templateId, idx) as DetailRow[];
        return rows.map(toDetail);
    }

    /** One answer by its generation id. */
    answer(id: number): AnswerDetail | undefined {
        const r = this.db
            .prepare(
                `SELECT g.*, c.run_id, v.category, v.judge_category, v.detail, v.ms AS judge_ms, v.shrunk_json
                 FROM generations g JOIN configurations c ON c.id = g.config_id LEFT JOIN verdicts v ON v.generation_id = g.id WHERE g.id = ?`
            )
            .get(id) as DetailRow | undefined;
        return r && toDetail(r);
    }

    /** How many answers match `f` (read only when a page past the end is asked for). */
    countAnswers(f: AnswerFilter): number {
        const { where, args } = answerWhere(f);
        return (
            this.db
                .prepare(
                    `SELECT COUNT(*) AS n FROM generations g
                     JOIN configurations c ON c.id = g.config_id
                     JOIN runs r ON r.id = c.run_id
                     JOIN run_templates t ON t.run_id = c.run_id AND t.template_id = g.template_id
                     LEFT JOIN verdicts v ON v.generation_id = g.id
                     ${where.length ? `WHERE ${where.join(" AND ")}` : ""}`
                )
                .get(...args) as { n: number }
        ).n;
    }

    /**
     * A page of answers matching `f`, in store order (newest last), `limit` rows from `offset`.
     * `more` says whether another page follows (one row more is read, never a count of all).
     */
    answers(f: AnswerFilter, offset: number, limit: number): { rows: AnswerRow[]; more: boolean } {
        const { where, args } = answerWhere(f);
        const n = Math.max(1, Math.min(MAX_PAGE, Math.floor(limit)));
        const rows = this.db
            .prepare(
                `SELECT g.id, c.run_id, c.id AS config_id, c.model, c.temperature, c.wrapper, g.template_id, t.grp, g.instance_idx, i.params_json, i.bindings_json, g.round,
                        v.category, substr(COALESCE(v.detail, ''), 1, 200) AS detail, g.missing
                 FROM generations g
                 JOIN configurations c ON c.id = g.config_id
                 JOIN runs r ON r.id = c.run_id
                 JOIN run_templates t ON t.run_id = c.run_id AND t.template_id = g.template_id
                 JOIN instances i ON i.run_id = c.run_id AND i.template_id = g.template_id AND i.idx = g.instance_idx
                 LEFT JOIN verdicts v ON v.generation_id = g.id
                 ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
                 ORDER BY g.id LIMIT ? OFFSET ?`
            )
            .all(...args, n + 1, Math.max(0, Math.floor(offset))) as {
            id: number;
            run_id: string;
            config_id: number;
            model: string;
            temperature: number;
            wrapper: string;
            template_id: string;
            grp: string;
            instance_idx: number;
            params_json: string;
            bindings_json: string;
            round: number;
            category: Category | null;
            detail: string;
            missing: number;
        }[];
        return {
            more: rows.length > n,
            rows: rows.slice(0, n).map((r) => ({
                id: r.id,
                runId: r.run_id,
                configId: r.config_id,
                config: configLabel(r),
                template: r.template_id,
                group: r.grp,
                instance: r.instance_idx,
                params: r.params_json,
                bindings: r.bindings_json,
                round: r.round,
                category: r.category,
                detail: r.detail,
                missing: r.missing === 1
            }))
        };
    }
}

/** A generation joined with its run and verdict (the answer detail page). */
interface DetailRow extends Omit<GenerationRow, "ttft_ms" | "created"> {
    run_id: string;
    category: Category | null;
    judge_category: Category | null;
    detail: string | null;
    judge_ms: number | null;
    shrunk_json: string | null;
}

function toDetail(r: DetailRow): AnswerDetail {
    let prompt: unknown;
    try {
        prompt = JSON.parse(r.prompt_json);
    } catch {
        prompt = r.prompt_json;
    }
    return {
        id: r.id,
        runId: r.run_id,
        configId: r.config_id,
        template: r.template_id,
        instance: r.instance_idx,
        round: r.round,
        seed: r.seed,
        prompt,
        response: r.response,
        code: r.code,
        stopReason: r.stop_reason,
        promptTokens: r.prompt_tokens,
        generatedTokens: r.generated_tokens,
        genMs: r.gen_ms,
        cached: r.cached === 1,
        missing: r.missing === 1,
        category: r.category,
        judgeCategory: r.judge_category,
        detail: r.detail,
        judgeMs: r.judge_ms,
        shrunk: parseShrunk(r.shrunk_json)
    };
}

/** A stored shrunk input, or null (none, or a value this version cannot read: shown as absent, never as a 500). */
function parseShrunk(json: string | null): ShrunkInput | null {
    if (!json) return null;
    try {
        const v = JSON.parse(json) as Partial<ShrunkInput>;
        return typeof v.call === "string" && typeof v.expected === "string" && typeof v.actual === "string" ? (v as ShrunkInput) : null;
    } catch {
        return null;
    }
}

function toInstance(r: { template_id: string; idx: number; params_json: string; bindings_json: string; question: string }): ViewInstance {
    return { template: r.template_id, index: r.idx, params: JSON.parse(r.params_json) as unknown[], bindings: parseObject(r.bindings_json), question: r.question };
}

function parseObject(s: string): Record<string, unknown> {
    try {
        const v = JSON.parse(s) as unknown;
        return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
    } catch {
        return {};
    }
}

/** The WHERE clause of the answers list and of its count, from the filter. */
function answerWhere(f: AnswerFilter): { where: string[]; args: unknown[] } {
    const where: string[] = [];
    const args: unknown[] = [];
    if (f.run !== undefined) {
        where.push("c.run_id = ?");
        args.push(f.run);
    }
    if (f.config !== undefined) {
        where.push("c.id = ?");
        args.push(f.config);
    }
    if (f.template !== undefined) {
        where.push("g.template_id = ?");
        args.push(f.template);
    }
    if (f.group !== undefined) {
        where.push("t.grp = ?");
        args.push(f.group);
    }
    if (f.model !== undefined) {
        where.push("c.model = ?");
        args.push(f.model);
    }
    if (f.temperature !== undefined) {
        where.push("c.temperature = ?");
        args.push(f.temperature);
    }
    if (f.instance !== undefined) {
        where.push("g.instance_idx = ?");
        args.push(f.instance);
    }
    if (f.language !== undefined) {
        where.push("COALESCE(json_extract(r.config_json, '$.language'), ?) = ?");
        args.push(DEFAULT_LANGUAGE, f.language);
    }
    if (f.category === "failing") where.push("v.category NOT IN ('passed', 'truncated', 'judge_error')");
    else if (f.category === "missing") where.push("g.missing = 1");
    else if (f.category !== undefined) {
        where.push("v.category = ?");
        args.push(f.category);
    }
    if (f.q !== undefined && f.q !== "") {
        where.push("(g.response LIKE ? ESCAPE '\\' OR v.detail LIKE ? ESCAPE '\\')");
        args.push(likePattern(f.q), likePattern(f.q));
    }
    return { where, args };
}
