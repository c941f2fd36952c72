import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { sha256File } from "../inference/gguf/sha256File.js";
import { normalizeStudyConfig } from "../run/config.js";
import { runStudy } from "../run/runStudy.js";
import { EddyError, oneLine } from "../util/errors.js";
import { eddyVersion } from "../util/paths.js";
import type { ShardGeneration, ShardJob, ShardResult } from "./shardJob.js";

/** A worker's operational settings: how fast, never what. */
export interface WorkerSettings {
    node: string;
    judgeWorkers?: number | undefined;
    threads?: number | undefined;
    gpu?: string | undefined;
    allowUnsandboxed?: boolean | undefined;
}

/** Why this node must not run the shard, or undefined when it may. */
export async function refusal(job: ShardJob): Promise<string | undefined> {
    const mine = eddyVersion();
    if (job.eddyVersion !== mine) return `this worker runs eddy ${mine}, the study eddy ${job.eddyVersion}: results would not be comparable (install eddy ${job.eddyVersion} on this node)`;
    const file = job.shard.modelPath ?? (typeof job.study.replay === "string" ? job.study.replay : undefined);
    if (!file) return job.modelSha256 === null ? undefined : "the shard names a model sha256 but no model file";
    if (!existsSync(file)) return `model file ${file} is not on this node`;
    const sha = await sha256File(file);
    if (sha !== job.modelSha256) return `model file ${file} on this node has sha256 ${sha.slice(0, 12)}…, the study's has ${String(job.modelSha256).slice(0, 12)}…: a different file`;
    return undefined;
}

/**
 * Run one shard as a study of its own (one model, template, temperature and wrapper) in a scratch
 * database, and return its rows. Instances and per-request seeds depend only on the run seed,
 * template, instance and round, so these are exactly the rows the whole study would store.
 */
export async function runShard(job: ShardJob, w: WorkerSettings): Promise<ShardResult> {
    const dir = mkdtempSync(path.join(os.tmpdir(), "eddy-shard-"));
    const db = path.join(dir, "shard.db");
    const started = Date.now();
    try {
        const { models: _m, templates: _t, temperatures: _T, wrappers: _w, ...study } = job.study;
        let config;
        try {
            config = normalizeStudyConfig({
                ...study,
                models: job.shard.modelPath ? [job.shard.modelPath] : [],
                templates: job.shard.template,
                temperatures: [job.shard.temperature],
                wrappers: [job.shard.wrapperSource],
                db,
                fresh: true,
                ...(w.judgeWorkers ? { judgeWorkers: w.judgeWorkers } : {}),
                ...(w.threads ? { threads: w.threads } : {}),
                ...(w.gpu ? { gpu: w.gpu } : {}),
                ...(w.allowUnsandboxed ? { allowUnsandboxed: true } : {})
            });
        } catch (err) {
            throw new EddyError(`the shard's study settings are not valid here: ${oneLine(err)}`);
        }
        const r = await runStudy(config);
        if (r.status !== "complete") throw new EddyError(`shard stopped before it finished (${r.status})`);
        const sdb = new Database(db, { readonly: true });
        try {
            const conf = sdb.prepare("SELECT id, model_sha256, quantization, decoding_json, metadata_json FROM configurations").all() as {
                id: number; model_sha256: string | null; quantization: string | null; decoding_json: string; metadata_json: string | null;
            }[];
            if (conf.length !== 1) throw new EddyError(`a shard should make one configuration, it made ${conf.length}`);
            const { id, ...configuration } = conf[0]!;
            const rows = sdb
                .prepare(
                    `SELECT g.template_id, g.instance_idx, g.round, g.seed, g.prompt_json, g.response, g.code, g.stop_reason, g.prompt_tokens,
                            g.generated_tokens, g.ttft_ms, g.gen_ms, g.cached, g.missing,
                            v.category, v.judge_category, v.detail, v.ms AS v_ms, v.cached AS v_cached
                     FROM generations g LEFT JOIN verdicts v ON v.generation_id = g.id WHERE g.config_id = ? ORDER BY g.id`
                )
                .all(id) as (Omit<ShardGeneration, "verdict"> & { category: string | null; judge_category: string; detail: string; v_ms: number; v_cached: number })[];
            const generations = rows.map(({ category, judge_category, detail, v_ms, v_cached, ...g }) => ({
                ...g,
                verdict: category === null ? null : { category, judge_category, detail, ms: v_ms, cached: v_cached }
            }));
            return { node: w.node, ms: Date.now() - started, configuration, generations };
        } finally {
            sdb.close();
        }
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
}
