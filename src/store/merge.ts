import { existsSync, realpathSync, rmSync, statfsSync, statSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { EddyError } from "../util/errors.js";
import { sha256FileSync } from "../util/files.js";
import { connection } from "./connection.js";
import { LOCAL_TABLES, MERGED_TABLES, type MergedTable } from "./mergeTables.js";
import { ensureNodeId, readNodeId } from "./nodeId.js";
import { openReadonlyDatabase, rollbackImage } from "./readonlyOpen.js";
import { MIGRATIONS } from "./schema.js";
import { applyMigrations, capDetail, openStore, storeError, type Store } from "./Store.js";

/** Two copies of one row (same natural key) that differ in a column that carries a result. */
export interface MergeConflict {
    source: string;
    table: string;
    key: string;
    column: string;
    target: unknown;
    incoming: unknown;
}

/** What one source database brought. */
export interface SourceSummary {
    path: string;
    sha256: string;
    nodeId: string;
    /** Source run id → the target run it was merged into (differs when matched by config hash). */
    runs: Record<string, string>;
    inserted: Record<string, number>;
    same: Record<string, number>;
}

export interface MergeResult {
    into: string;
    nodeId: string;
    sources: SourceSummary[];
}

/** A merge refused because rows conflict; the target is unchanged. */
export class MergeConflictError extends EddyError {
    constructor(readonly conflicts: MergeConflict[]) {
        super(`refused: ${conflicts.length} conflicting row${conflicts.length === 1 ? "" : "s"} (same key, different content); nothing was merged`, 65);
    }
}

type Row = Record<string, unknown>;

interface Source {
    path: string;
    sha256: string;
    nodeId: string;
    db: Database.Database;
}

const sameValue = (a: unknown, b: unknown): boolean => a === b || (a == null && b == null);

/**
 * The `detail` column (verdicts, verdict_cache, loop_steps, published_verdicts: every table that has one
 * holds a verdict-like detail) as this eddy stores it: capped by {@link capDetail}. Applied to every row
 * read from a source, and to the target's copy before comparing, so a database written before the cap
 * (or by a tool that bypassed it) neither brings megabytes in nor conflicts with its own capped copy.
 */
function capRow(row: Row): Row {
    return typeof row.detail === "string" && row.detail.length > 0 ? { ...row, detail: capDetail(row.detail) } : row;
}

/** A compared column's value as stored by this eddy (see {@link capRow}). */
const stored = (column: string, v: unknown): unknown => (column === "detail" && typeof v === "string" ? capDetail(v) : v);


function tables(db: Database.Database): string[] {
    return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
}

/**
 * Open a source without ever writing to it: read-only (read-only media included), never migrated in place
 * and never given a node id. A file from an older eddy is brought up to this schema in a copy in memory; a
 * source without a node id (an older eddy's) is named by its file's sha256. An empty or foreign file is
 * refused by name.
 */
function openSource(file: string): Source {
    const abs = path.resolve(file);
    let size: number;
    try {
        const st = statSync(abs);
        if (!st.isFile()) throw new Error("not a file");
        size = st.size;
    } catch {
        throw new EddyError(`no database at ${abs}`, 66);
    }
    if (size === 0) throw new EddyError(`${abs} is empty: not an eddy database`, 65);
    let db: Database.Database | undefined;
    try {
        db = openReadonlyDatabase(abs, 5000);
        const v = db.pragma("user_version", { simple: true }) as number;
        if (v > MIGRATIONS.length) throw new EddyError(`database ${abs} was written by a newer eddy (schema ${v} > ${MIGRATIONS.length}); merge it with that version`, 65);
        if (v === 0 || !tables(db).includes("runs")) throw new EddyError(`${abs} is not an eddy database (no eddy tables)`, 65);
        const nodeId = readNodeId(db);
        if (v < MIGRATIONS.length) {
            const copy = new Database(rollbackImage(db.serialize()));
            db.close();
            db = copy;
            applyMigrations(db);
        }
        const sha256 = sha256FileSync(abs);
        return { path: abs, sha256, nodeId: nodeId ?? `sha256:${sha256.slice(0, 26)}`, db };
    } catch (err) {
        db?.close();
        throw storeError(err, abs);
    }
}

/** A source read: a failure there (a damaged page) names the source, never the target being written. */
function fromSource<T>(src: Source, read: () => T): T {
    try {
        return read();
    } catch (err) {
        throw storeError(err, src.path);
    }
}

/** The database file and the side files SQLite makes beside it. */
const databaseFiles = (file: string): string[] => [file, `${file}-wal`, `${file}-shm`];

/**
 * Merge node databases into one: runs (matched by id, or by config hash when each side holds exactly one
 * run of that study), their configurations, templates, instances, generations and verdicts, and every other
 * table eddy writes, all by natural keys, integer ids remapped. One transaction over all sources: a conflict
 * anywhere leaves the target as it was (a target this merge created is removed). Merging the same files
 * again inserts nothing. Sources are only read.
 */
export function mergeStores(sourceFiles: string[], into: string): MergeResult {
    if (!sourceFiles.length) throw new EddyError("nothing to merge: name at least one database", 65);
    const intoAbs = path.resolve(into);
    const seen = new Set<string>();
    const real = (p: string): string => {
        try {
            return realpathSync(p);
        } catch {
            return path.resolve(p);
        }
    };
    for (const f of sourceFiles) {
        const r = real(f);
        if (r === real(intoAbs)) throw new EddyError(`${f} is the target itself (--into ${into}): merge the other sources into it, or name another target`, 65);
        if (seen.has(r)) throw new EddyError(`${f} is named twice: name each source once`, 65);
        seen.add(r);
    }
    const sources: Source[] = [];
    try {
        for (const f of sourceFiles) sources.push(openSource(f));
        for (const s of sources) refuseWhatCannotBeCarried(s);
        const created = !existsSync(intoAbs);
        const sideFilesBefore = new Set(databaseFiles(intoAbs).filter((f) => existsSync(f)));
        let merged = false;
        try {
            const target = openTarget(intoAbs, created);
            try {
                const result = targetWrite(intoAbs, created, () =>
                    target.write(() => {
                        const nodeId = ensureNodeId(connection(target));
                        const merger = new Merger(target, new Date().toISOString());
                        const summaries = sources.map((s) => merger.source(s));
                        if (merger.conflicts.length) throw new MergeConflictError(merger.conflicts);
                        return { into: intoAbs, nodeId, sources: summaries };
                    })
                );
                merged = true;
                return result;
            } finally {
                try {
                    target.close();
                } catch {
                    // Closing after a failed write on a full disk can fail too: the files are seen to below.
                }
            }
        } finally {
            // A refused merge leaves no empty database where there was none, and no side file SQLite could not finish.
            if (!merged && created) for (const f of databaseFiles(intoAbs)) rmSync(f, { force: true });
            if (!merged && !created) removeBrokenSideFiles(intoAbs, sideFilesBefore);
        }
    } finally {
        for (const s of sources) s.db.close();
    }
}

/** The size SQLite gives a -shm file as soon as it uses one: a smaller one was left half made (a full disk), by no live connection. */
const SHM_MIN_BYTES = 32 * 1024;

/**
 * After a failed merge into an existing target: a -shm file SQLite could not finish (smaller than it ever
 * uses, so no live connection has it) keeps every reader out until removed, and an empty -wal the merge made
 * holds nothing; both go. A -wal with content may hold committed work: it stays, for SQLite to recover.
 */
function removeBrokenSideFiles(file: string, before: Set<string>): void {
    const shm = `${file}-shm`;
    const wal = `${file}-wal`;
    const size = (f: string): number | undefined => {
        try {
            return statSync(f).size;
        } catch {
            return undefined;
        }
    };
    const shmSize = size(shm);
    if (shmSize !== undefined && shmSize < SHM_MIN_BYTES) rmSync(shm, { force: true });
    if (!before.has(wal) && size(wal) === 0) rmSync(wal, { force: true });
}

/** Whether a failed write into `file` was for want of space: SQLite's own word, or an I/O error on a filesystem with (almost) no space left. */
function diskFull(err: unknown, file: string): boolean {
    const message = String((err as Error | null)?.message ?? "");
    const codes = [err, (err as { cause?: unknown } | null)?.cause].map((e) => String((e as { code?: unknown } | null)?.code ?? ""));
    if (codes.some((c) => c.startsWith("SQLITE_FULL")) || /ENOSPC|disk is full|no space left/i.test(message)) return true;
    if (!codes.some((c) => c.startsWith("SQLITE_IOERR") || c.startsWith("SQLITE_CANTOPEN")) && !/I\/O error|cannot open/.test(message)) return false;
    try {
        const fs = statfsSync(path.dirname(file));
        return fs.bavail * fs.bsize < 256 * 1024;
    } catch {
        return false;
    }
}

/** The merge's own words for a full disk: what it left and what to do (never "resume the run": a merge is not a run). */
function diskFullError(file: string, created: boolean, err: unknown): EddyError {
    return new EddyError(
        `disk full: no space left on ${path.dirname(file)} to merge into ${file}; nothing was merged (${created ? "no target file is left" : "the target is as it was"}); free space and merge again`,
        74,
        { cause: err }
    );
}

/** Open (or create) the target, naming a full disk as such. */
function openTarget(file: string, created: boolean): Store {
    try {
        return openStore(file);
    } catch (err) {
        if (diskFull(err, file)) throw diskFullError(file, created, err);
        throw err;
    }
}

/** The merge's one transaction, naming a full disk as such. */
function targetWrite<T>(file: string, created: boolean, write: () => T): T {
    try {
        return write();
    } catch (err) {
        if (!(err instanceof MergeConflictError) && diskFull(err, file)) throw diskFullError(file, created, err);
        throw err;
    }
}

/** Each table of this eddy's schema with its columns (built once, in memory, from the migrations). */
let schemaColumns: Map<string, Set<string>> | undefined;
function knownColumns(): Map<string, Set<string>> {
    if (schemaColumns) return schemaColumns;
    const db = new Database(":memory:");
    try {
        applyMigrations(db);
        schemaColumns = new Map(tables(db).map((t) => [t, new Set((db.prepare(`PRAGMA table_info("${t}")`).all() as { name: string }[]).map((c) => c.name))]));
    } finally {
        db.close();
    }
    return schemaColumns;
}

const quoteId = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * Whatever a source holds that merge cannot carry into the target is refused by name rather than dropped:
 * a table this eddy does not know (even an empty one: the eddy that made it expects it), and a column it
 * does not know in a table it does, when any row holds a value there. Nothing is written before this check.
 */
function refuseWhatCannotBeCarried(s: Source): void {
    const known = knownColumns();
    const local = new Set<string>(LOCAL_TABLES);
    for (const t of fromSource(s, () => tables(s.db))) {
        const columns = known.get(t);
        if (!columns || !(t in MERGED_TABLES || local.has(t))) {
            const n = fromSource(s, () => (s.db.prepare(`SELECT COUNT(*) AS n FROM ${quoteId(t)}`).get() as { n: number }).n);
            throw new EddyError(`${s.path} has a table merge does not know ('${t}', ${n ? `${n} rows` : "empty"}); refusing rather than dropping it (merge with the eddy that wrote it)`, 65);
        }
        if (local.has(t)) continue;
        for (const c of fromSource(s, () => s.db.prepare(`PRAGMA table_info(${quoteId(t)})`).all() as { name: string }[])) {
            if (columns.has(c.name)) continue;
            const n = fromSource(s, () => (s.db.prepare(`SELECT COUNT(*) AS n FROM ${quoteId(t)} WHERE ${quoteId(c.name)} IS NOT NULL`).get() as { n: number }).n);
            if (n > 0)
                throw new EddyError(`${s.path}: table ${t} has a column merge does not know ('${c.name}', a value in ${n} row${n === 1 ? "" : "s"}); refusing rather than dropping it (merge with the eddy that wrote it)`, 65);
        }
    }
}

class Merger {
    readonly conflicts: MergeConflict[] = [];
    private readonly t: Database.Database;
    private readonly stmts = new Map<string, Database.Statement>();
    private readonly columns = new Map<string, Set<string>>();

    constructor(target: Store, private readonly mergedAt: string) {
        this.t = connection(target);
    }

    private prep(sql: string): Database.Statement {
        let s = this.stmts.get(sql);
        if (!s) this.stmts.set(sql, (s = this.t.prepare(sql)));
        return s;
    }

    private targetColumns(table: string): Set<string> {
        let c = this.columns.get(table);
        if (!c) this.columns.set(table, (c = new Set((this.t.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((r) => r.name))));
        return c;
    }

    private find(table: MergedTable, row: Row): Row | undefined {
        const key = MERGED_TABLES[table].key;
        return this.prep(`SELECT rowid AS _rowid, * FROM ${table} WHERE ${key.map((k) => `${k} = ?`).join(" AND ")}`).get(...key.map((k) => row[k])) as Row | undefined;
    }

    private insert(table: MergedTable, row: Row): number {
        const cols = Object.keys(row).filter((c) => this.targetColumns(table).has(c));
        const r = this.prep(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`).run(...cols.map((c) => row[c] as never));
        return Number(r.lastInsertRowid);
    }

    /** Insert the row unless its key is there; when it is, every compared column must agree. */
    private merge(src: Source, sum: SourceSummary, table: MergedTable, row: Row, label: () => string): { rowid: number; inserted: boolean } {
        const have = this.find(table, row);
        if (!have) {
            sum.inserted[table] = (sum.inserted[table] ?? 0) + 1;
            return { rowid: this.insert(table, row), inserted: true };
        }
        for (const c of MERGED_TABLES[table].compare) {
            const here = stored(c, have[c]);
            const incoming = stored(c, row[c]);
            if (!sameValue(here, incoming)) this.conflicts.push({ source: src.path, table, key: label(), column: c, target: here, incoming });
        }
        sum.same[table] = (sum.same[table] ?? 0) + 1;
        return { rowid: have._rowid as number, inserted: false };
    }

    /** A source table's rows, details capped on the way in ({@link capRow}). */
    private *rows(src: Source, table: string, order = "rowid"): Iterable<Row> {
        if (!fromSource(src, () => tables(src.db)).includes(table)) return;
        const it = fromSource(src, () => (src.db.prepare(`SELECT * FROM ${table} ORDER BY ${order}`).iterate() as Iterator<Row>));
        for (;;) {
            const next = fromSource(src, () => it.next());
            if (next.done) return;
            yield capRow(next.value);
        }
    }

    /** Map each source run (or loop run) to the target's: same id, else the one run with the same config hash. */
    private mapRuns(src: Source, table: "runs" | "loop_runs", sum: SourceSummary): Map<string, string> {
        const map = new Map<string, string>();
        if (!fromSource(src, () => tables(src.db)).includes(table)) return map;
        const srcRuns = fromSource(src, () => src.db.prepare(`SELECT * FROM ${table} ORDER BY created, id`).all() as Row[]);
        for (const run of srcRuns) {
            const id = run.id as string;
            let to = id;
            if (!this.prep(`SELECT 1 FROM ${table} WHERE id = ?`).get(id)) {
                const inTarget = this.prep(`SELECT id FROM ${table} WHERE config_hash = ?`).all(run.config_hash) as { id: string }[];
                const inSource = srcRuns.filter((r) => r.config_hash === run.config_hash).length;
                // Runs started with --fresh share a hash on purpose: only a one-to-one match is the same study.
                if (inTarget.length === 1 && inSource === 1) to = inTarget[0]!.id;
            }
            map.set(id, to);
            if (table === "runs") sum.runs[id] = to;
            this.merge(src, sum, table, { ...run, id: to }, () => `run ${id}`);
            // A run merged while partial is completed by its complete copy (never the reverse).
            if (run.status === "complete")
                this.prep(`UPDATE ${table} SET status = 'complete', error = NULL, updated = ? WHERE id = ? AND status != 'complete'`).run(run.updated as string, to);
        }
        return map;
    }

    source(src: Source): SourceSummary {
        const sum: SourceSummary = { path: src.path, sha256: src.sha256, nodeId: src.nodeId, runs: {}, inserted: {}, same: {} };
        const runMap = this.mapRuns(src, "runs", sum);
        const run = (id: unknown): string => runMap.get(id as string) ?? (id as string);

        // Configurations: integer ids remapped through their natural key.
        const confMap = new Map<number, { id: number; key: Row }>();
        for (const c of this.rows(src, "configurations", "id")) {
            const { id, ...rest } = c;
            const row: Row = { ...rest, run_id: run(c.run_id) };
            const r = this.merge(src, sum, "configurations", row, () => `configuration ${row.run_id}/${row.model}/T=${row.temperature}/${row.wrapper}`);
            confMap.set(id as number, { id: r.rowid, key: { run_id: row.run_id, model: row.model, temperature: row.temperature, wrapper: row.wrapper } });
        }
        for (const r of this.rows(src, "run_templates"))
            this.merge(src, sum, "run_templates", { ...r, run_id: run(r.run_id) }, () => `template ${run(r.run_id)}/${r.template_id}`);
        for (const r of this.rows(src, "instances"))
            this.merge(src, sum, "instances", { ...r, run_id: run(r.run_id) }, () => `instance ${run(r.run_id)}/${r.template_id}#${r.idx}`);

        // Generations, with provenance for those new here: carried over when the source had merged them itself.
        const provKey = (r: Row): string => JSON.stringify(MERGED_TABLES.provenance.key.map((k) => r[k]));
        const carried = new Map<string, Row>();
        for (const p of this.rows(src, "provenance")) carried.set(provKey({ ...p, run_id: run(p.run_id) }), p);
        const genMap = new Map<number, number>();
        /** Each source generation as a conflict names it (run, configuration, template#instance, round). */
        const genLabel = new Map<number, string>();
        for (const g of this.rows(src, "generations", "id")) {
            const conf = confMap.get(g.config_id as number);
            if (!conf) throw new EddyError(`${src.path}: generation ${String(g.id)} names configuration ${String(g.config_id)}, which is not there (damaged database)`, 65);
            const { id, ...rest } = g;
            const row = { ...rest, config_id: conf.id };
            const k = conf.key;
            const label = (): string => `generation ${k.run_id}/${k.model}/T=${k.temperature}/${k.wrapper}/${g.template_id}#${g.instance_idx} round ${g.round}`;
            const r = this.merge(src, sum, "generations", row, label);
            genMap.set(id as number, r.rowid);
            genLabel.set(id as number, label());
            if (r.inserted) {
                const prov = { ...k, template_id: g.template_id, instance_idx: g.instance_idx, round: g.round };
                const from = carried.get(provKey(prov));
                this.merge(src, sum, "provenance", {
                    ...prov,
                    node_id: from?.node_id ?? src.nodeId,
                    source_path: from?.source_path ?? src.path,
                    source_sha256: from?.source_sha256 ?? src.sha256,
                    merged_at: from?.merged_at ?? this.mergedAt
                }, label);
            }
        }
        for (const v of this.rows(src, "verdicts")) {
            const gid = genMap.get(v.generation_id as number);
            if (gid === undefined) throw new EddyError(`${src.path}: a verdict names generation ${String(v.generation_id)}, which is not there (damaged database)`, 65);
            const row: Row = { ...v, generation_id: gid };
            const have = this.find("verdicts", row);
            // As in a run: a harness failure (judge_error) gives way to a real verdict, never the reverse.
            if (have && have.category === "judge_error" && row.category !== "judge_error") {
                this.prep("UPDATE verdicts SET category = ?, judge_category = ?, detail = ?, ms = ?, cached = ?, created = ? WHERE generation_id = ?").run(
                    row.category as string, row.judge_category as string, row.detail as string, row.ms as number, row.cached as number, row.created as string, gid
                );
                sum.inserted.verdicts = (sum.inserted.verdicts ?? 0) + 1;
                continue;
            }
            if (have && row.category === "judge_error" && have.category !== "judge_error") {
                sum.same.verdicts = (sum.same.verdicts ?? 0) + 1;
                continue;
            }
            this.merge(src, sum, "verdicts", row, () => `verdict of ${genLabel.get(v.generation_id as number) ?? `generation ${String(v.generation_id)}`}`);
        }

        for (const r of this.rows(src, "published_verdicts"))
            this.merge(src, sum, "published_verdicts", { ...r, run_id: run(r.run_id) }, () => `published verdict ${run(r.run_id)}/${r.template_id}#${r.instance_idx} round ${r.round}`);
        for (const r of this.rows(src, "mutate_studies")) this.merge(src, sum, "mutate_studies", { ...r, run_id: run(r.run_id) }, () => `mutation study ${run(r.run_id)}`);
        for (const r of this.rows(src, "generation_usage")) this.merge(src, sum, "generation_usage", { ...r, run_id: run(r.run_id) }, () => `generation usage ${run(r.run_id)}/${r.model}`);
        for (const r of this.rows(src, "quant_studies")) this.merge(src, sum, "quant_studies", { ...r, run_id: run(r.run_id) }, () => `quantisation study ${run(r.run_id)}`);

        const loopMap = this.mapRuns(src, "loop_runs", sum);
        const loop = (id: unknown): string => loopMap.get(id as string) ?? (id as string);
        for (const r of this.rows(src, "loop_tasks"))
            this.merge(src, sum, "loop_tasks", { ...r, run_id: loop(r.run_id) }, () => `loop task ${loop(r.run_id)}/${r.template_id}#${r.instance_idx}`);
        for (const r of this.rows(src, "loop_steps"))
            this.merge(src, sum, "loop_steps", { ...r, run_id: loop(r.run_id) }, () => `loop step ${loop(r.run_id)}/${r.template_id}#${r.instance_idx} loop ${r.loop}`);

        for (const r of this.rows(src, "response_cache")) this.merge(src, sum, "response_cache", r, () => `response cache ${r.key}`);
        for (const r of this.rows(src, "oracle_validations")) this.merge(src, sum, "oracle_validations", r, () => `oracle validation ${r.key}`);
        for (const r of this.rows(src, "verdict_cache")) this.merge(src, sum, "verdict_cache", r, () => `verdict cache ${r.key}`);
        for (const r of this.rows(src, "determinism_audits")) {
            const { id: _id, ...rest } = r;
            this.merge(src, sum, "determinism_audits", rest, () => `determinism audit ${r.model_sha256} ${r.created}`);
        }
        return sum;
    }
}
