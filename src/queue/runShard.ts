import path from "node:path";
import { normalizeStudyConfig, type StudyConfig } from "../run/config.js";
import { runStudy } from "../run/runStudy.js";
import { readScratchRun } from "../store/shards.js";
import type { TemplateLibrary } from "../templates/library.js";
import { EddyError, oneLine } from "../util/errors.js";
import { questionsHash } from "./identity.js";
import { judgeRuntime } from "./judgeRuntime.js";
import { environmentIdentity, recordedEnvironment } from "../judge/environment.js";
import { makeScratch, removeScratch } from "./scratch.js";
import type { JudgeMode, ShardGeneration, ShardJob, ShardResult } from "./shardJob.js";

/** A worker's operational settings: how fast, never what. */
export interface WorkerSettings {
    node: string;
    judgeWorkers?: number | undefined;
    threads?: number | undefined;
    /** This node's own operational settings of the backends, by key (--gpu, --base-url, …: how fast and where, never what). */
    backendSettings?: Readonly<Record<string, unknown>> | undefined;
    allowUnsandboxed?: boolean | undefined;
    /** This node's templates and oracles (a shard whose questions differ here is refused). */
    library?: TemplateLibrary | undefined;
}

/**
 * The shard as a study of its own (one model, template, temperature and wrapper), with this node's
 * operational settings. An unsandboxed judge is allowed only where both the study and this worker allow it.
 */
export function shardConfig(job: ShardJob, w: WorkerSettings, db?: string, resume = false): StudyConfig {
    const { models: _m, templates: _t, temperatures: _T, wrappers: _w, ...study } = job.study;
    const loose = w.allowUnsandboxed && job.identity.judgeModes.includes("none");
    try {
        return normalizeStudyConfig({
            ...study,
            models: job.shard.modelPath ? [job.shard.modelPath] : job.shard.modelName ? [job.shard.modelName] : [],
            templates: job.shard.template,
            temperatures: [job.shard.temperature],
            wrappers: [job.shard.wrapperSource],
            ...(db ? { db, ...(resume ? {} : { fresh: true }) } : {}),
            ...(w.judgeWorkers ? { judgeWorkers: w.judgeWorkers } : {}),
            ...(w.threads ? { threads: w.threads } : {}),
            ...(job.where ?? {}),
            ...(w.backendSettings ?? {}),
            ...(loose ? { allowUnsandboxed: true } : {})
        });
    } catch (err) {
        throw new EddyError(`the shard's study settings are not valid here: ${oneLine(err)}`);
    }
}

/**
 * Run one shard as a study of its own in a scratch database, and return its rows with the identity
 * read back from that database: what was actually run, and the judge that judged it. Instances and
 * per-request seeds depend only on the run seed, template, instance and round, so these are exactly
 * the rows the whole study would store. `signal` stops it (the caller hands the shard back).
 */
export async function runShard(job: ShardJob, w: WorkerSettings, signal?: AbortSignal): Promise<ShardResult> {
    const dir = makeScratch();
    try {
        return await runShardIn(path.join(dir, "shard.db"), job, w, signal);
    } finally {
        removeScratch(dir);
    }
}

/**
 * runShard in a scratch database the caller keeps: the shard's run there is resumed when it exists (same
 * study, same configuration hash), so a shard taken again after its lock was lost keeps every answer and
 * verdict it already stored and runs only the rest.
 */
export async function runShardIn(db: string, job: ShardJob, w: WorkerSettings, signal?: AbortSignal): Promise<ShardResult> {
    const started = Date.now();
    const r = await runStudy(shardConfig(job, w, db, true), { ...(signal ? { signal } : {}), ...(w.library ? { library: w.library } : {}) });
    if (r.status !== "complete") throw new EddyError(`shard stopped before it finished (${r.status})`);
    const read = readShard(db);
    // The judge's runtime as this node reads it (see judgeRuntime.ts): the coordinator checks it against the study's.
    // Its Python part from the judge that judged the shard, as its scratch run recorded it (environment.ts).
    const runtime = await judgeRuntime(shardConfig(job, w).language).catch(() => undefined);
    const judged = recordedEnvironment(read.identity.isolation);
    const proven = runtime || judged ? { ...runtime, ...(judged ? environmentIdentity(judged) : {}) } : undefined;
    return { node: w.node, ms: Date.now() - started, ...read, identity: { ...read.identity, ...(proven ? { judgeRuntime: proven } : {}) } };
}

/** The scratch run's one configuration, its generations with verdicts, and the identity they prove. */
function readShard(file: string): Pick<ShardResult, "identity" | "configuration" | "generations"> {
    const scratch = readScratchRun<Omit<ShardGeneration, "verdict"> & { category: string | null; judge_category: string; detail: string; v_ms: number; v_cached: number; v_shrunk: string | null }>(file);
    const conf = scratch.configurations;
    if (conf.length !== 1) throw new EddyError(`a shard should make one configuration, it made ${conf.length}`);
    const { id: _id, ...configuration } = conf[0]!;
    const { run, oracleHashes: templates } = scratch;
    if (templates.length !== 1 || !run.isolation_json) throw new EddyError("the shard's run recorded no template or no judge isolation");
    const isolation = JSON.parse(run.isolation_json) as { mode: JudgeMode; level: string };
    const rows = scratch.generations;
    const generations = rows.map(({ category, judge_category, detail, v_ms, v_cached, v_shrunk, ...g }) => ({
        ...g,
        verdict: category === null ? null : { category, judge_category, detail, ms: v_ms, cached: v_cached, shrunk: v_shrunk }
    }));
    // The questions as the model was asked them: each instance's stored prompt, in instance order.
    const prompts = new Map<number, string>();
    for (const g of [...generations].sort((a, b) => a.instance_idx - b.instance_idx || a.round - b.round)) if (!prompts.has(g.instance_idx)) prompts.set(g.instance_idx, g.prompt_json);
    return {
        identity: { eddyVersion: run.eddy_version, modelSha256: configuration.model_sha256, oracleHash: templates[0]!, questionsHash: questionsHash([...prompts.values()]), isolation },
        configuration,
        generations
    };
}
