import { randomBytes } from "node:crypto";
import { commandLine, dbWords } from "../util/commandLine.js";
import type Database from "better-sqlite3";
import { capDetail } from "../util/detail.js";
import { EddyError } from "../util/errors.js";
import { connection } from "./connection.js";
import type { Store } from "./Store.js";

/** A loop run as stored (loop_runs). */
export interface LoopRunRow {
    id: string;
    created: string;
    updated: string;
    status: "running" | "interrupted" | "failed" | "complete";
    config_hash: string;
    config_json: string;
    eddy_version: string;
    backend: string;
    model: string;
    model_path: string | null;
    model_sha256: string | null;
    quantization: string | null;
    summariser: string | null;
    metadata_json: string | null;
    isolation_level: string | null;
    error: string | null;
}

export interface LoopTaskRow {
    run_id: string;
    template_id: string;
    instance_idx: number;
    params_json: string;
    bindings_json: string;
    question: string;
    oracle_hash: string;
}

export interface LoopStepRow {
    run_id: string;
    template_id: string;
    instance_idx: number;
    loop: number;
    question: string;
    prompt_json: string;
    response: string;
    code: string | null;
    category: string;
    detail: string;
    stop_reason: string;
    prompt_tokens: number;
    generated_tokens: number;
    gen_ms: number;
    summary_prompt_json: string | null;
    summary_response: string | null;
    summary: string | null;
    similarity: number | null;
    drift: number | null;
    created: string;
}

const now = (): string => new Date().toISOString();

/** `loop-YYYYMMDD-xxxxxx`: sortable by day, distinct from study run ids. */
export function newLoopRunId(): string {
    return `loop-${new Date().toISOString().slice(0, 10).replace(/-/g, "")}-${randomBytes(3).toString("hex")}`;
}

/** Reads and writes of the loop tables (migration "EvaLOOP …" in schema.ts); `store.loops`. */
export class LoopRepository {
    private readonly db: Database.Database;
    constructor(private readonly store: Store) {
        this.db = connection(store);
    }

    /** Whether this database has the loop tables (a read-only older one may not). */
    present(): boolean {
        return this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'loop_runs'").get() !== undefined;
    }

    findByConfigHash(hash: string): LoopRunRow | undefined {
        return this.db.prepare("SELECT * FROM loop_runs WHERE config_hash = ? ORDER BY created DESC LIMIT 1").get(hash) as LoopRunRow | undefined;
    }

    /** A run by id, unique prefix (4+ characters) or `latest`/`latest~N`; a clear error otherwise. */
    requireRun(id: string): LoopRunRow {
        const recent = /^latest(?:~(\d+))?$/.exec(id);
        if (recent) {
            const row = this.db.prepare("SELECT * FROM loop_runs ORDER BY created DESC, rowid DESC LIMIT 1 OFFSET ?").get(Number(recent[1] ?? 0)) as LoopRunRow | undefined;
            if (row) return row;
            throw this.noRun(id);
        }
        const exact = this.db.prepare("SELECT * FROM loop_runs WHERE id = ?").get(id) as LoopRunRow | undefined;
        if (exact) return exact;
        const hits = id.length >= 4 ? (this.db.prepare("SELECT * FROM loop_runs WHERE id LIKE ? || '%'").all(id) as LoopRunRow[]) : [];
        if (hits.length === 1) return hits[0]!;
        if (hits.length > 1) throw new EddyError(`loop run id '${id}' is ambiguous (${hits.map((h) => h.id).join(", ")})`);
        throw this.noRun(id);
    }

    /** No such run: the error names the command that lists the runs there (with its --db), on a line of its own. */
    private noRun(id: string): EddyError {
        return new EddyError(`no loop run '${id}' in ${this.store.path}; the loop runs there are listed by`, 1, { next: commandLine(["loop", "list", ...dbWords(this.store.path)]) });
    }

    listRuns(): LoopRunRow[] {
        return this.db.prepare("SELECT * FROM loop_runs ORDER BY created").all() as LoopRunRow[];
    }

    createRun(r: Omit<LoopRunRow, "created" | "updated" | "status" | "error">): LoopRunRow {
        return this.store.write(() => {
            const t = now();
            this.db
                .prepare(
                    `INSERT INTO loop_runs (id, created, updated, status, config_hash, config_json, eddy_version, backend, model, model_path, model_sha256, quantization, summariser, metadata_json, isolation_level)
                     VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
                )
                .run(r.id, t, t, r.config_hash, r.config_json, r.eddy_version, r.backend, r.model, r.model_path, r.model_sha256, r.quantization, r.summariser, r.metadata_json, r.isolation_level);
            return this.requireRun(r.id);
        });
    }

    /** Resume a run: the model file it now runs on, running again. */
    markRunning(id: string, modelSha256: string | null, quantization: string | null): void {
        this.store.write(() => this.db.prepare("UPDATE loop_runs SET model_sha256 = ?, quantization = ?, status = 'running', error = NULL WHERE id = ?").run(modelSha256, quantization, id));
    }

    setStatus(id: string, status: LoopRunRow["status"], error: string | null = null): void {
        this.store.write(() => this.db.prepare("UPDATE loop_runs SET status = ?, error = ?, updated = ? WHERE id = ?").run(status, error, now(), id));
    }

    setMetadata(id: string, metadata: unknown, isolationLevel: string | null): void {
        this.store.write(() =>
            this.db.prepare("UPDATE loop_runs SET metadata_json = ?, isolation_level = ?, updated = ? WHERE id = ?").run(JSON.stringify(metadata), isolationLevel, now(), id)
        );
    }

    addTasks(tasks: Omit<LoopTaskRow, never>[]): void {
        this.store.write(() => {
            const st = this.db.prepare(
                "INSERT OR IGNORE INTO loop_tasks (run_id, template_id, instance_idx, params_json, bindings_json, question, oracle_hash) VALUES (?, ?, ?, ?, ?, ?, ?)"
            );
            for (const t of tasks) st.run(t.run_id, t.template_id, t.instance_idx, t.params_json, t.bindings_json, t.question, t.oracle_hash);
        });
    }

    tasks(runId: string): LoopTaskRow[] {
        return this.db.prepare("SELECT * FROM loop_tasks WHERE run_id = ? ORDER BY template_id, instance_idx").all(runId) as LoopTaskRow[];
    }

    steps(runId: string): LoopStepRow[] {
        return this.db.prepare("SELECT * FROM loop_steps WHERE run_id = ? ORDER BY template_id, instance_idx, loop").all(runId) as LoopStepRow[];
    }

    /** Record loops' code and verdict (one transaction for the batch); details are capped as the store caps verdicts' ({@link capDetail}). */
    addSteps(steps: Omit<LoopStepRow, "created" | "summary_prompt_json" | "summary_response" | "summary" | "similarity" | "drift">[]): void {
        this.store.write(() => {
            const st = this.db.prepare(
                `INSERT INTO loop_steps (run_id, template_id, instance_idx, loop, question, prompt_json, response, code, category, detail, stop_reason, prompt_tokens, generated_tokens, gen_ms, created)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
            );
            const t = now();
            for (const s of steps)
                st.run(s.run_id, s.template_id, s.instance_idx, s.loop, s.question, s.prompt_json, s.response, s.code, s.category, capDetail(s.detail), s.stop_reason, s.prompt_tokens, s.generated_tokens, s.gen_ms, t);
        });
    }

    /** Record the summaries that become the next loops' questions. */
    setSummaries(rows: { run_id: string; template_id: string; instance_idx: number; loop: number; summary_prompt_json: string; summary_response: string; summary: string; similarity: number | null; drift: number | null }[]): void {
        this.store.write(() => {
            const st = this.db.prepare(
                `UPDATE loop_steps SET summary_prompt_json = ?, summary_response = ?, summary = ?, similarity = ?, drift = ?
                 WHERE run_id = ? AND template_id = ? AND instance_idx = ? AND loop = ?`
            );
            for (const r of rows) st.run(r.summary_prompt_json, r.summary_response, r.summary, r.similarity, r.drift, r.run_id, r.template_id, r.instance_idx, r.loop);
        });
    }
}
