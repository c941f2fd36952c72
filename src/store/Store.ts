import { accessSync, constants as fsConstants, existsSync, statSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { commandLine, dbWords, sameCommand } from "../util/commandLine.js";
import { EddyError, isEddyError, oneLine } from "../util/errors.js";
import { capDetail } from "../util/detail.js";
import { createPrivateFile, ensurePrivateDir, tightenIfExposed } from "../util/privateFiles.js";

// One cap for every stored detail, defined beside the judge's (src/util/detail.ts).
export { capDetail, MAX_DETAIL_CHARS } from "../util/detail.js";
import type { ShrunkInput, Verdict, VerdictCache } from "../judge/types.js";
import { attachConnection } from "./connection.js";
import { AuditRepository } from "./audits.js";
import { LoopRepository } from "./loops.js";
import { ensureNodeId } from "./nodeId.js";
import { openReadonlyDatabase, rollbackImage, storeFileKind } from "./readonlyOpen.js";
import { MIGRATIONS } from "./schema.js";
import { ViewRepository } from "./viewQueries.js";
import type {
    ConfigurationRow,
    GenerationRow,
    NewConfiguration,
    NewGeneration,
    NewRun,
    NewVerdict,
    CachedResponse,
    RunRow,
    RunStatus,
    StoredInstance
} from "./types.js";

/** How long a writer waits for another process's lock before giving up (ms); `EDDY_BUSY_TIMEOUT_MS` overrides. */
const DEFAULT_BUSY_TIMEOUT_MS = 15_000;

const now = (): string => new Date().toISOString();

/** The database file and its WAL-mode side files. */
const sideFiles = (db: string): string[] => [db, `${db}-wal`, `${db}-shm`];

/** Turn SQLite's failure codes into one-line errors a user can act on; anything else passes through. */
export function storeError(err: unknown, dbPath: string): unknown {
    const code = (err as { code?: string } | null)?.code ?? "";
    if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))
        return new EddyError(`database ${dbPath} is locked by another process (nothing was lost); once it is free, run again`, 75, { cause: err, next: sameCommand() });
    if (code.startsWith("SQLITE_FULL"))
        return new EddyError(`database ${dbPath} is full (disk full?); everything committed before is kept: free space, then run again`, 74, { cause: err, next: sameCommand() });
    if (code.startsWith("SQLITE_READONLY")) return new EddyError(`database ${dbPath} is read-only`, 74, { cause: err });
    if (code.startsWith("SQLITE_CORRUPT") || code.startsWith("SQLITE_NOTADB"))
        return new EddyError(`${dbPath} is not an eddy database or is damaged: ${oneLine(err)}`, 65, { cause: err });
    if (code.startsWith("SQLITE_CANTOPEN")) return new EddyError(`cannot open database ${dbPath}: ${whyCannotOpen(dbPath, err)}`, 66, { cause: err });
    if (code.startsWith("SQLITE_IOERR")) return new EddyError(`I/O error on database ${dbPath}: ${oneLine(err)}`, 74, { cause: err });
    return err;
}

/** Why SQLite could not open a database file, in the words a user can act on. */
function whyCannotOpen(dbPath: string, err: unknown): string {
    const dir = path.dirname(dbPath);
    try {
        if (existsSync(dbPath) && statSync(dbPath).isDirectory()) return "it is a folder, not a file (name a file, e.g. --db study.db)";
        if (!existsSync(dir)) return `the folder ${dir} does not exist`;
        if (!statSync(dir).isDirectory()) return `${dir} is a file, not a folder`;
        if (existsSync(dbPath)) {
            try {
                accessSync(dbPath, fsConstants.R_OK | fsConstants.W_OK);
            } catch {
                return "no permission to read and write it";
            }
        }
        try {
            accessSync(dir, fsConstants.W_OK);
        } catch {
            return `the folder ${dir} is not writable (SQLite needs to create its side files there)`;
        }
    } catch {
        // fall through to SQLite's own words
    }
    return oneLine(err);
}

/** Open (creating if needed) the eddy database at `dbPath`, applying pending migrations. */
export function openStore(dbPath: string, opts: { readonly?: boolean } = {}): Store {
    return new Store(dbPath, opts);
}

/**
 * eddy's SQLite database: runs, their configurations, instances, generations and verdicts,
 * plus the response and verdict caches. WAL mode so readers never block the writer and
 * several eddy processes can share one file; every batch of writes is one transaction.
 */
export class Store {
    /** The connection: private to the store; repositories in this folder reach it through connection.ts. */
    private readonly db: Database.Database;
    /** Absolute path of the database file. */
    readonly path: string;

    constructor(dbPath: string, opts: { readonly?: boolean } = {}) {
        this.path = path.resolve(dbPath);
        try {
            // Verdict details quote hidden oracles' expected values: the file is private to its owner (0600 in a
            // 0700 folder when eddy makes them), created so before SQLite opens it, since SQLite gives the -wal and
            // -shm files the database's mode. An older database of ours that others can read is tightened, quietly.
            // eddy writes only into an empty file or an eddy store, and reads only an eddy store: a foreign or
            // damaged file is named in one line before anything is opened for writing, changed or created.
            this.refuseUnlessStore(opts.readonly === true);
            if (!opts.readonly) {
                ensurePrivateDir(path.dirname(this.path));
                try {
                    createPrivateFile(this.path);
                } catch {
                    // Not creatable (a read-only folder, a path that is a folder…): SQLite fails on it too, with its own message.
                }
            }
            // -wal/-shm files SQLite makes from now on take the database's mode; ones an older eddy left (another
            // process may still hold them) are tightened with it.
            for (const f of sideFiles(this.path)) tightenIfExposed(f);
            // Read-only: never a write to the file, and read-only media work too (see openReadonlyDatabase).
            this.db = opts.readonly ? atThisSchema(openReadonlyDatabase(this.path, busyTimeout())) : new Database(this.path, { timeout: busyTimeout() });
            attachConnection(this, this.db);
            this.db.pragma(`busy_timeout = ${busyTimeout()}`);
            if (!opts.readonly) {
                this.db.pragma("journal_mode = WAL");
                // NORMAL is durable across process crashes (SIGKILL) in WAL mode; only an OS crash can lose the last commits.
                this.db.pragma("synchronous = NORMAL");
            }
            this.db.pragma("foreign_keys = ON");
            // A size cap in pages (EDDY_DB_MAX_PAGES): lets a user bound the file, and tests simulate a full disk.
            const maxPages = Number(process.env.EDDY_DB_MAX_PAGES);
            if (process.env.EDDY_DB_MAX_PAGES && Number.isInteger(maxPages) && maxPages > 0) this.db.pragma(`max_page_count = ${maxPages}`);
            if (!opts.readonly) {
                this.migrate();
                // Named from its first writable open, so a merge never has to write an id into a source.
                ensureNodeId(this.db);
            } else this.checkVersion();
            Store.lastOpened = this.path;
        } catch (err) {
            // A file that opened but cannot be used (newer schema, damaged) must not keep its handle.
            (this as unknown as { db?: Database.Database }).db?.close();
            throw storeError(err, this.path);
        }
    }

    /** The path of the store opened last: names the file when a read fails below any store method (src/cli/main.ts). */
    static lastOpened: string | undefined;

    /**
     * Refuse a file that is not an eddy store, before anything is written, created or chmod-ed: a file that is not
     * SQLite at all (damaged, or another program's), another program's SQLite database, and, for reading, an empty
     * one. Writing accepts a missing or empty file, an empty SQLite database and an eddy store.
     */
    private refuseUnlessStore(readonly: boolean): void {
        const { kind } = storeFileKind(this.path);
        const demo = commandLine(["demo", ...dbWords(this.path)]);
        if (kind === "folder") throw new EddyError(`${this.path} is a folder, not a database file (name a file, e.g. --db study.db)`, 66);
        if (kind === "missing") {
            if (readonly) throw new EddyError(`no database at ${this.path} (give --db to read another); this makes one there with a first study`, 66, { next: demo });
            return;
        }
        if (kind === "empty") {
            if (readonly) throw new EddyError(`${this.path} is empty, not an eddy store yet (give --db to read another); this makes one there with a first study`, 66, { next: demo });
            return;
        }
        if (kind === "not-sqlite")
            throw new EddyError(`${this.path} is not an eddy store: it is not a SQLite database (a damaged store, or another program's file); eddy leaves it as it is: give --db an eddy store${readonly ? "" : " or a new file"}`, 65);
        let probe: Database.Database | undefined;
        let state: StoreState;
        try {
            probe = openReadonlyDatabase(this.path, busyTimeout());
            state = storeState(probe);
        } catch (err) {
            if (isEddyError(err)) throw err;
            const code = String((err as { code?: unknown } | null)?.code ?? "");
            if (code.startsWith("SQLITE_CORRUPT") || code.startsWith("SQLITE_NOTADB"))
                throw new EddyError(`${this.path} is damaged (${oneLine(err)}); eddy leaves it as it is: restore it from a copy, or give --db another store`, 65, { cause: err });
            throw err;
        } finally {
            probe?.close();
        }
        if (state.kind === "foreign")
            throw new EddyError(
                `${this.path} is not an eddy store: it is another program's SQLite database (${describeTables(state.tables)}); eddy leaves it as it is: give --db an eddy store${readonly ? "" : " or a new file"}`,
                65
            );
        if (state.kind === "blank" && readonly) throw new EddyError(`${this.path} is an empty database, not an eddy store yet (give --db to read another); this makes one there with a first study`, 66, { next: demo });
    }

    private checkVersion(): void {
        const v = this.db.pragma("user_version", { simple: true }) as number;
        if (v > MIGRATIONS.length) throw new EddyError(`database ${this.path} was written by a newer eddy (schema ${v} > ${MIGRATIONS.length})`, 65);
    }

    private migrate(): void {
        this.checkVersion();
        applyMigrations(this.db);
    }

    /** Schema version of this file. */
    schemaVersion(): number {
        return this.db.pragma("user_version", { simple: true }) as number;
    }

    /** Run `fn` in one write transaction, translating lock/full errors. */
    write<T>(fn: () => T): T {
        try {
            return this.db.transaction(fn).immediate();
        } catch (err) {
            throw storeError(err, this.path);
        }
    }

    private loopRepository?: LoopRepository;
    /** The loop runs, their tasks and steps. */
    get loops(): LoopRepository {
        return (this.loopRepository ??= new LoopRepository(this));
    }

    private auditRepository?: AuditRepository;
    /** Determinism audits, and the generations an audit reads and removes. */
    get audits(): AuditRepository {
        return (this.auditRepository ??= new AuditRepository(this));
    }

    private viewRepository?: ViewRepository;
    /** The read-only, paged queries of `eddy view`. */
    get view(): ViewRepository {
        return (this.viewRepository ??= new ViewRepository(this));
    }

    /** Close the connection (idempotent). */
    close(): void {
        if (this.db.open) this.db.close();
    }

    // ---- runs -------------------------------------------------------------------------

    /** The most recent run with this config hash, if any. */
    findRunByConfigHash(hash: string): RunRow | undefined {
        return this.db.prepare("SELECT * FROM runs WHERE config_hash = ? ORDER BY created DESC LIMIT 1").get(hash) as RunRow | undefined;
    }

    /** Create the run unless one with the same config hash exists (checked in the same transaction); returns the run. */
    createOrFindRun(run: NewRun, reuse: boolean): { run: RunRow; created: boolean } {
        return this.write(() => {
            const found = reuse ? this.findRunByConfigHash(run.configHash) : undefined;
            if (found) return { run: found, created: false };
            const t = now();
            this.db
                .prepare(
                    `INSERT INTO runs (id, created, updated, status, config_hash, config_json, eddy_version, backend, seed, isolation_level, isolation_json)
                     VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?)`
                )
                .run(run.id, t, t, run.configHash, JSON.stringify(run.config), run.eddyVersion, run.backend, run.seed, run.isolationLevel ?? null, run.isolation ? JSON.stringify(run.isolation) : null);
            return { run: this.getRun(run.id)!, created: true };
        });
    }

    /** One run by id (a unique prefix of at least 4 characters also works; `latest`, `latest~1`… count back from the newest). */
    getRun(id: string): RunRow | undefined {
        // `latest` (and `latest~N`, N runs before it) names recent runs without copying their ids.
        const recent = /^latest(?:~(\d+))?$/.exec(id);
        if (recent) return this.db.prepare("SELECT * FROM runs ORDER BY created DESC, rowid DESC LIMIT 1 OFFSET ?").get(Number(recent[1] ?? 0)) as RunRow | undefined;
        const exact = this.db.prepare("SELECT * FROM runs WHERE id = ?").get(id) as RunRow | undefined;
        if (exact || id.length < 4) return exact;
        const rows = this.db.prepare("SELECT * FROM runs WHERE id LIKE ? || '%' LIMIT 2").all(id) as RunRow[];
        return rows.length === 1 ? rows[0] : undefined;
    }

    /** Every run, newest first. */
    listRuns(): RunRow[] {
        return this.db.prepare("SELECT * FROM runs ORDER BY created DESC").all() as RunRow[];
    }

    /** Set a run's status (and error / stats / isolation when given). */
    /**
     * Remove a run that holds nothing yet (no response, missing answer or verdict): one whose first session
     * failed before its first answer (a corrupt GGUF, no python3) would otherwise stay as a `failed` run with
     * 0 responses. True when removed; a run with anything in it, or with rows this method does not know of
     * (a foreign key refuses), is kept.
     */
    dropEmptyRun(id: string): boolean {
        try {
            return this.write(() => {
                const stored = (this.db.prepare("SELECT COUNT(*) AS n FROM generations g JOIN configurations c ON c.id = g.config_id WHERE c.run_id = ?").get(id) as { n: number }).n;
                if (stored > 0) return false;
                for (const table of ["configurations", "instances", "run_templates", "run_leases", "mutate_studies", "generation_usage", "quant_studies"])
                    this.db.prepare(`DELETE FROM ${table} WHERE run_id = ?`).run(id);
                return this.db.prepare("DELETE FROM runs WHERE id = ?").run(id).changes === 1;
            });
        } catch {
            return false;
        }
    }

    setRunStatus(id: string, status: RunStatus, extra: { error?: string | null; stats?: unknown; isolationLevel?: string; isolation?: unknown } = {}): void {
        this.write(() => {
            this.db
                .prepare(
                    `UPDATE runs SET status = ?, updated = ?, error = ?,
                       stats_json = COALESCE(?, stats_json),
                       isolation_level = COALESCE(?, isolation_level),
                       isolation_json = COALESCE(?, isolation_json)
                     WHERE id = ?`
                )
                .run(
                    status,
                    now(),
                    extra.error ?? null,
                    extra.stats === undefined ? null : JSON.stringify(extra.stats),
                    extra.isolationLevel ?? null,
                    extra.isolation === undefined ? null : JSON.stringify(extra.isolation),
                    id
                );
        });
    }

    // ---- configurations, templates, instances ------------------------------------------

    /** Insert the configuration if new (metadata refreshed either way); returns its row. */
    upsertConfiguration(c: NewConfiguration): ConfigurationRow {
        return this.write(() => {
            this.db
                .prepare(
                    `INSERT INTO configurations (run_id, model, model_path, model_sha256, quantization, temperature, wrapper, decoding_json, metadata_json)
                     VALUES (@runId, @model, @modelPath, @modelSha256, @quantization, @temperature, @wrapper, @decoding, @metadata)
                     ON CONFLICT (run_id, model, temperature, wrapper) DO UPDATE SET
                       metadata_json = excluded.metadata_json,
                       model_path = excluded.model_path,
                       quantization = COALESCE(excluded.quantization, configurations.quantization)`
                )
                .run({
                    runId: c.runId,
                    model: c.model,
                    modelPath: c.modelPath ?? null,
                    modelSha256: c.modelSha256 ?? null,
                    quantization: c.quantization ?? null,
                    temperature: c.temperature,
                    wrapper: c.wrapper,
                    decoding: JSON.stringify(c.decoding),
                    metadata: c.metadata === undefined ? null : JSON.stringify(c.metadata)
                });
            return this.db
                .prepare("SELECT * FROM configurations WHERE run_id = ? AND model = ? AND temperature = ? AND wrapper = ?")
                .get(c.runId, c.model, c.temperature, c.wrapper) as ConfigurationRow;
        });
    }

    /** Configurations of a run, in insertion order. */
    configurations(runId: string): ConfigurationRow[] {
        return this.db.prepare("SELECT * FROM configurations WHERE run_id = ? ORDER BY id").all(runId) as ConfigurationRow[];
    }

    /** Record the templates of a run with their oracle hashes (first record wins). */
    recordTemplates(runId: string, templates: { id: string; oracleHash: string; group: string; subgroups: string[]; function: string }[]): void {
        this.write(() => {
            const ins = this.db.prepare(
                "INSERT OR IGNORE INTO run_templates (run_id, template_id, oracle_hash, grp, subgroups_json, function) VALUES (?, ?, ?, ?, ?, ?)"
            );
            for (const t of templates) ins.run(runId, t.id, t.oracleHash, t.group, JSON.stringify(t.subgroups), t.function);
        });
    }

    /** Templates recorded for a run. */
    runTemplates(runId: string): { template_id: string; oracle_hash: string; grp: string; subgroups_json: string; function: string }[] {
        return this.db.prepare("SELECT * FROM run_templates WHERE run_id = ? ORDER BY template_id").all(runId) as never;
    }

    /** Store a template's instances for the run (idempotent). */
    insertInstances(runId: string, instances: StoredInstance[]): void {
        this.write(() => {
            const ins = this.db.prepare(
                "INSERT OR IGNORE INTO instances (run_id, template_id, idx, params_json, bindings_json, question) VALUES (?, ?, ?, ?, ?, ?)"
            );
            for (const i of instances) ins.run(runId, i.templateId, i.index, JSON.stringify(i.params), JSON.stringify(i.bindings), i.question);
        });
    }

    /** The stored instances of one template of a run, by index. */
    instances(runId: string, templateId: string): StoredInstance[] {
        const rows = this.db
            .prepare("SELECT template_id, idx, params_json, bindings_json, question FROM instances WHERE run_id = ? AND template_id = ? ORDER BY idx")
            .all(runId, templateId) as { template_id: string; idx: number; params_json: string; bindings_json: string; question: string }[];
        return rows.map((r) => ({ templateId: r.template_id, index: r.idx, params: JSON.parse(r.params_json), bindings: JSON.parse(r.bindings_json), question: r.question }));
    }

    /** How many instances each template of a run has (its planned neighbourhood sizes). */
    instanceCounts(runId: string): { template_id: string; n: number }[] {
        return this.db.prepare("SELECT template_id, COUNT(*) AS n FROM instances WHERE run_id = ? GROUP BY template_id").all(runId) as { template_id: string; n: number }[];
    }

    // ---- generations and verdicts ----------------------------------------------------------

    /** Keys `template|instance|round` of every generation stored for a configuration. */
    generatedKeys(configId: number): Set<string> {
        const rows = this.db.prepare("SELECT template_id, instance_idx, round FROM generations WHERE config_id = ?").all(configId) as {
            template_id: string;
            instance_idx: number;
            round: number;
        }[];
        return new Set(rows.map((r) => `${r.template_id}|${r.instance_idx}|${r.round}`));
    }

    /** The stored response of one query of a configuration, if any. */
    storedResponse(k: { configId: number; templateId: string; instance: number; round: number }): string | undefined {
        const r = this.prep("SELECT response FROM generations WHERE config_id = ? AND template_id = ? AND instance_idx = ? AND round = ?").get(k.configId, k.templateId, k.instance, k.round) as
            | { response: string }
            | undefined;
        return r?.response;
    }

    /**
     * Generations of a run to judge (again) on resume: those without a verdict (the process died
     * before it was written) and those whose judge failed (`judge_error`). Missing replay answers never.
     */
    unjudged(runId: string): (Pick<GenerationRow, "id" | "config_id" | "template_id" | "instance_idx" | "round" | "code" | "stop_reason"> & { fences: number })[] {
        // Only what judging needs: a large resumed study must not pull every response text into memory.
        return this.db
            .prepare(
                `SELECT g.id, g.config_id, g.template_id, g.instance_idx, g.round, g.code, g.stop_reason,
                        (length(g.response) - length(replace(g.response, '\`\`\`', ''))) / 3 AS fences FROM generations g JOIN configurations c ON c.id = g.config_id
                 LEFT JOIN verdicts v ON v.generation_id = g.id
                 WHERE c.run_id = ? AND (v.generation_id IS NULL OR v.category = 'judge_error') AND g.missing = 0 ORDER BY g.id`
            )
            .all(runId) as never;
    }

    /**
     * Write a batch in one transaction: generations first (INSERT OR IGNORE on their unique key,
     * so a repeat is harmless), then verdicts, found through that same key, then cache entries.
     */
    writeBatch(batch: { generations: NewGeneration[]; verdicts: NewVerdict[]; responses: { key: string; modelSha256: string; g: NewGeneration }[]; verdictCache: [string, Verdict][] }): void {
        if (!batch.generations.length && !batch.verdicts.length && !batch.responses.length && !batch.verdictCache.length) return;
        const t = now();
        this.write(() => {
            const gen = this.prep(
                `INSERT OR IGNORE INTO generations (config_id, template_id, instance_idx, round, seed, prompt_json, response, code, stop_reason,
                   prompt_tokens, generated_tokens, ttft_ms, gen_ms, cached, missing, created)
                 VALUES (@configId, @templateId, @instance, @round, @seed, @prompt, @response, @code, @stopReason,
                   @promptTokens, @generatedTokens, @ttftMs, @genMs, @cached, @missing, @created)`
            );
            for (const g of batch.generations)
                gen.run({ ...g, prompt: g.prompt, code: g.code ?? null, cached: g.cached ? 1 : 0, missing: g.missing ? 1 : 0, created: t });
            // First verdict wins, except that a harness failure (judge_error) is replaced by a real verdict.
            const ver = this.prep(
                `INSERT INTO verdicts (generation_id, category, judge_category, detail, ms, cached, created, shrunk_json)
                 SELECT id, @category, @judgeCategory, @detail, @ms, @cached, @created, @shrunk FROM generations
                 WHERE config_id = @configId AND template_id = @templateId AND instance_idx = @instance AND round = @round
                 ON CONFLICT (generation_id) DO UPDATE SET
                   category = excluded.category, judge_category = excluded.judge_category, detail = excluded.detail,
                   ms = excluded.ms, cached = excluded.cached, created = excluded.created, shrunk_json = excluded.shrunk_json
                 WHERE verdicts.category = 'judge_error'`
            );
            for (const v of batch.verdicts) ver.run({ ...v, detail: capDetail(v.detail), cached: v.cached ? 1 : 0, created: t, shrunk: v.shrunk ?? null });
            const resp = this.prep(
                `INSERT OR REPLACE INTO response_cache (key, model_sha256, response, stop_reason, prompt_tokens, generated_tokens, ttft_ms, gen_ms, created)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
            );
            for (const r of batch.responses)
                resp.run(r.key, r.modelSha256, r.g.response, r.g.stopReason, r.g.promptTokens, r.g.generatedTokens, r.g.ttftMs, r.g.genMs, t);
            const vc = this.prep("INSERT OR REPLACE INTO verdict_cache (key, category, detail, ms, created, shrunk_json) VALUES (?, ?, ?, ?, ?, ?)");
            for (const [key, v] of batch.verdictCache) vc.run(key, v.category, capDetail(v.detail), v.ms, t, v.shrunk ? JSON.stringify(v.shrunk) : null);
        });
    }

    private stmts = new Map<string, Database.Statement>();
    private prep(sql: string): Database.Statement {
        let s = this.stmts.get(sql);
        if (!s) this.stmts.set(sql, (s = this.db.prepare(sql)));
        return s;
    }

    /** A stored response for this cache key, if any. */
    cachedResponse(key: string): CachedResponse | undefined {
        return this.prep("SELECT * FROM response_cache WHERE key = ?").get(key) as CachedResponse | undefined;
    }

    /** A stored verdict for this judge cache key, if any. */
    cachedVerdict(key: string): Verdict | undefined {
        const r = this.prep("SELECT category, detail, ms, shrunk_json FROM verdict_cache WHERE key = ?").get(key) as (Verdict & { shrunk_json: string | null }) | undefined;
        return r ? { category: r.category, detail: r.detail, ms: r.ms, cached: true, ...(r.shrunk_json ? { shrunk: JSON.parse(r.shrunk_json) as ShrunkInput } : {}) } : undefined;
    }

    /** Per-run counts: configurations, instances, generations, verdicts, missing, by category. */
    counts(runId: string): { configurations: number; instances: number; generations: number; verdicts: number; missing: number; cached: number; categories: Record<string, number> } {
        const one = (sql: string): number => (this.db.prepare(sql).get(runId) as { n: number }).n;
        const cats = this.db
            .prepare(
                `SELECT v.category AS category, COUNT(*) AS n FROM verdicts v JOIN generations g ON g.id = v.generation_id
                 JOIN configurations c ON c.id = g.config_id WHERE c.run_id = ? GROUP BY v.category ORDER BY v.category`
            )
            .all(runId) as { category: string; n: number }[];
        return {
            configurations: one("SELECT COUNT(*) AS n FROM configurations WHERE run_id = ?"),
            instances: one("SELECT COUNT(*) AS n FROM instances WHERE run_id = ?"),
            generations: one("SELECT COUNT(*) AS n FROM generations g JOIN configurations c ON c.id = g.config_id WHERE c.run_id = ? AND g.missing = 0"),
            verdicts: one("SELECT COUNT(*) AS n FROM verdicts v JOIN generations g ON g.id = v.generation_id JOIN configurations c ON c.id = g.config_id WHERE c.run_id = ?"),
            missing: one("SELECT COUNT(*) AS n FROM generations g JOIN configurations c ON c.id = g.config_id WHERE c.run_id = ? AND g.missing = 1"),
            cached: one("SELECT COUNT(*) AS n FROM generations g JOIN configurations c ON c.id = g.config_id WHERE c.run_id = ? AND g.cached = 1"),
            categories: Object.fromEntries(cats.map((c) => [c.category, c.n]))
        };
    }

    /** A cached oracle validation (see run/study/validateOracles.ts), or undefined. */
    oracleValidation(key: string): { ok: boolean; result: unknown } | undefined {
        const r = this.db.prepare("SELECT ok, result_json FROM oracle_validations WHERE key = ?").get(key) as { ok: number; result_json: string } | undefined;
        return r && { ok: r.ok === 1, result: JSON.parse(r.result_json) };
    }

    /** Cache the outcome of an oracle validation. */
    recordOracleValidation(v: { key: string; templateId: string; oracleHash: string; instances: number; ok: boolean; result: unknown }): void {
        this.write(() =>
            this.db
                .prepare("INSERT OR REPLACE INTO oracle_validations (key, template_id, oracle_hash, instances, ok, result_json, created) VALUES (?, ?, ?, ?, ?, ?, ?)")
                .run(v.key, v.templateId, v.oracleHash, v.instances, v.ok ? 1 : 0, JSON.stringify(v.result), new Date().toISOString())
        );
    }
}

/**
 * A store opened read-only, at this eddy's schema: one an older eddy wrote (never written to here: read-only
 * media, a read-only folder, another user's file) is read from a private in-memory copy brought up to date,
 * so every reading query finds the columns and tables it names. The file itself is left as it is.
 */
function atThisSchema(db: Database.Database): Database.Database {
    const v = db.pragma("user_version", { simple: true }) as number;
    // Migrations that only add indexes change no query's answer, only its speed: the file is read as it is (and a
    // viewer on it sees a running study's writes, which a copy would not).
    if (v === 0 || MIGRATIONS.slice(v).every(onlyIndexes)) return db;
    const copy = new Database(rollbackImage(db.serialize()));
    db.close();
    applyMigrations(copy);
    return copy;
}

/** Whether a migration only creates indexes (every statement a CREATE INDEX). */
function onlyIndexes(sql: string): boolean {
    const statements = sql.split(";").map((x) => x.replace(/--.*$/gm, "").trim()).filter(Boolean);
    return statements.every((x) => /^CREATE\s+(UNIQUE\s+)?INDEX\b/i.test(x));
}

/** Bring a database up to this eddy's schema (pending migrations, in one transaction). */
export function applyMigrations(db: Database.Database): void {
    if ((db.pragma("user_version", { simple: true }) as number) === MIGRATIONS.length) return; // no write lock needed
    // IMMEDIATE: two processes opening a fresh file at once must not both create the tables.
    db.transaction(() => {
        const v = db.pragma("user_version", { simple: true }) as number;
        for (let i = v; i < MIGRATIONS.length; i++) {
            db.exec(MIGRATIONS[i]!);
            db.pragma(`user_version = ${i + 1}`);
        }
    }).immediate();
}

/** What an open SQLite file holds: nothing yet, eddy's tables, or another program's. */
type StoreState = { kind: "blank" } | { kind: "eddy" } | { kind: "foreign"; tables: string[] };

/** Classify an open database by its tables and `user_version` (read only). */
export function storeState(db: Database.Database): StoreState {
    const v = db.pragma("user_version", { simple: true }) as number;
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
    if (v === 0 && tables.length === 0) return { kind: "blank" };
    // A schema version beyond ours is a newer eddy's (checkVersion says so).
    if ((v > 0 && tables.includes("runs")) || v > MIGRATIONS.length) return { kind: "eddy" };
    return { kind: "foreign", tables };
}

/** A foreign database's tables, the first few by name. */
function describeTables(tables: string[]): string {
    if (tables.length === 0) return "no tables, but a schema version eddy never writes";
    const shown = tables.slice(0, 3).join(", ");
    return `${tables.length === 1 ? "table" : "tables"} ${shown}${tables.length > 3 ? ` and ${tables.length - 3} more` : ""}`;
}

function busyTimeout(): number {
    const env = Number(process.env.EDDY_BUSY_TIMEOUT_MS);
    return Number.isFinite(env) && env >= 0 && process.env.EDDY_BUSY_TIMEOUT_MS !== undefined ? env : DEFAULT_BUSY_TIMEOUT_MS;
}

/**
 * B's `VerdictCache` over the store: reads hit the table (and the not-yet-written entries),
 * writes are buffered and land with the next batch, so judging never waits on a disk write.
 */
export class StoreVerdictCache implements VerdictCache {
    private pending = new Map<string, Verdict>();
    constructor(private readonly store: Store) {}
    /** A cached verdict, if any. */
    get(key: string): Verdict | undefined {
        const p = this.pending.get(key);
        if (p) return { ...p, cached: true };
        return this.store.cachedVerdict(key);
    }
    /** Remember a verdict (written with the next batch). */
    set(key: string, v: Verdict): void {
        if (v.category === "judge_error") return; // a harness failure must be retried, never remembered
        this.pending.set(key, { category: v.category, detail: capDetail(v.detail), ms: v.ms, ...(v.shrunk ? { shrunk: v.shrunk } : {}) });
    }
    /** Entries waiting to be written; clears the buffer. */
    drain(): [string, Verdict][] {
        const out = [...this.pending.entries()];
        this.pending.clear();
        return out;
    }
}
