import type Database from "better-sqlite3";
import { connection } from "./connection.js";
import type { Store } from "./Store.js";

/** A determinism audit as stored (determinism_audits). */
export interface StoredAudit {
    model_sha256: string;
    model: string;
    mode: string;
    created: string;
    identical: number;
    result_json: string;
}

/** Reads and writes of determinism audits (eddy audit determinism); `store.audits`. */
export class AuditRepository {
    private readonly db: Database.Database;
    constructor(private readonly store: Store) {
        this.db = connection(store);
    }

    /** Record a determinism audit on a model (eddy audit determinism). */
    record(a: { modelSha256: string; model: string; mode: string; eddyVersion: string; responses: number; differingResponses: number; differingVerdicts: number; identical: boolean; result: unknown }): number {
        const r = this.db
            .prepare(
                `INSERT INTO determinism_audits (model_sha256, model, mode, eddy_version, created, responses, differing_responses, differing_verdicts, identical, result_json)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
            )
            .run(a.modelSha256, a.model, a.mode, a.eddyVersion, new Date().toISOString(), a.responses, a.differingResponses, a.differingVerdicts, a.identical ? 1 : 0, JSON.stringify(a.result));
        return Number(r.lastInsertRowid);
    }

    /** The latest determinism audit of each given model file (by sha256), mode and group size, newest first; all models when none given. */
    latest(modelSha256s?: string[]): StoredAudit[] {
        const rows = this.db
            .prepare(
                `SELECT model_sha256, model, mode, created, identical, result_json FROM determinism_audits a
                 WHERE id = (SELECT MAX(id) FROM determinism_audits b WHERE b.model_sha256 = a.model_sha256 AND b.mode = a.mode
                   AND COALESCE(json_extract(b.result_json, '$.settings.groupSize'), 1) = COALESCE(json_extract(a.result_json, '$.settings.groupSize'), 1))
                 ORDER BY id DESC`
            )
            .all() as StoredAudit[];
        return modelSha256s ? rows.filter((r) => modelSha256s.includes(r.model_sha256)) : rows;
    }

    /** Every response of a run with its final verdict (null: not judged), in study order. */
    responses(runId: string): { template_id: string; instance_idx: number; round: number; response: string; category: string | null }[] {
        return this.db
            .prepare(
                `SELECT g.template_id, g.instance_idx, g.round, g.response, v.category
                 FROM generations g JOIN configurations c ON c.id = g.config_id LEFT JOIN verdicts v ON v.generation_id = g.id
                 WHERE c.run_id = ? ORDER BY g.template_id, g.instance_idx, g.round`
            )
            .all(runId) as never;
    }

    /** The ids of a run's generations, in study order. */
    generationIds(runId: string): number[] {
        const rows = this.db
            .prepare(`SELECT g.id FROM generations g JOIN configurations c ON c.id = g.config_id WHERE c.run_id = ? ORDER BY g.template_id, g.instance_idx, g.round`)
            .all(runId) as { id: number }[];
        return rows.map((r) => r.id);
    }

    /** Remove generations (an audit's interruption: a resume must generate them again), in one transaction. */
    removeGenerations(ids: readonly number[]): void {
        this.store.write(() => {
            const drop = this.db.prepare("DELETE FROM generations WHERE id = ?");
            for (const id of ids) drop.run(id);
        });
    }
}
