import { Job, Queue, QueueEvents } from "bullmq";
import { sha256File } from "../inference/gguf/sha256File.js";
import type { StudyConfig } from "../run/config.js";
import { openRun } from "../run/study/openRun.js";
import { openStore, type Store } from "../store/Store.js";
import type { NewGeneration, NewVerdict } from "../store/types.js";
import { EddyError, oneLine } from "../util/errors.js";
import { defaultDbPath, eddyVersion } from "../util/paths.js";
import { checkRedis } from "./connect.js";
import type { QueueTarget } from "./queueUrl.js";
import { QUEUE_NAME, shardJobId, shardResultSchema, type Shard, type ShardJob, type ShardResult } from "./shardJob.js";

export interface QueuedProgress {
    runId: string;
    shards: number;
    done: number;
    /** Answers stored per worker node, and that node's answers per second of shard time. */
    nodes: Record<string, { shards: number; answers: number; perS: number }>;
}

export interface QueuedResult {
    runId: string;
    shards: number;
    /** Shards already in the store when this session began (a restarted coordinator). */
    skipped: number;
    nodes: QueuedProgress["nodes"];
}

/**
 * Coordinate a study over a BullMQ queue: create (or find) the run in the local store, enqueue every
 * shard not yet stored (model × template × temperature × wrapper, with a job id fixed by run and shard,
 * so a restarted coordinator re-enqueues nothing), and store each shard's rows as it finishes.
 */
export async function runQueued(config: StudyConfig, t: QueueTarget, hooks: { onProgress?: (p: QueuedProgress) => void; log?: (line: string) => void } = {}): Promise<QueuedResult> {
    await checkRedis(t);
    const store = openStore(config.db ?? defaultDbPath());
    const queue = new Queue(QUEUE_NAME, { connection: t.options });
    const events = new QueueEvents(QUEUE_NAME, { connection: t.options });
    let runId = "";
    try {
        const { run, plan, replay } = openRun(store, config);
        runId = run.id;
        const study = JSON.parse(run.config_json) as Record<string, unknown>;
        const perShard = config.instances * config.rounds;
        const shards: Shard[] = [];
        const shas = new Map<string, string | null>();
        for (const m of plan.models) {
            shas.set(m.label, m.path ? await sha256File(m.path) : (replay?.sha256 ?? null));
            for (const tmpl of plan.templates)
                for (const temperature of config.temperatures)
                    plan.wrappers.forEach((w, i) =>
                        shards.push({ model: m.label, modelPath: m.path ?? null, template: tmpl.id, temperature, wrapper: w.id, wrapperSource: config.wrappers[i]! })
                    );
        }
        const pending = shards.filter((s) => !shardStored(store, run.id, s, perShard));
        const progress: QueuedProgress = { runId, shards: shards.length, done: shards.length - pending.length, nodes: {} };
        const nodeMs = new Map<string, number>();
        hooks.onProgress?.(progress);
        await events.waitUntilReady();

        const waits = pending.map(async (s) => {
            const data: ShardJob = { v: 1, runId: run.id, eddyVersion: eddyVersion(), modelSha256: shas.get(s.model) ?? null, study, shard: s };
            const jobId = shardJobId(run.id, s);
            const old = await Job.fromId(queue, jobId);
            // A shard refused or failed in an earlier session is tried again: the cause may have been fixed since.
            if (old && (await old.isFailed())) await old.remove();
            const job = await queue.add("shard", data, { jobId, attempts: 1, removeOnComplete: false, removeOnFail: false });
            try {
                await job.waitUntilFinished(events);
            } catch (err) {
                throw new EddyError(`shard ${label(s)} failed: ${oneLine(err)} (run ${run.id} kept every finished shard; run the same command again to continue)`);
            }
            const done = await Job.fromId(queue, jobId);
            const parsed = shardResultSchema.safeParse(done?.returnvalue);
            if (!parsed.success) throw new EddyError(`shard ${label(s)} came back malformed: ${parsed.error.issues[0]?.message ?? "invalid"}`);
            if (parsed.data.configuration.model_sha256 !== data.modelSha256) throw new EddyError(`shard ${label(s)} was answered by another model file (sha256 differs)`);
            storeShard(store, run.id, s, parsed.data);
            await done?.remove(); // stored: the queue need not keep it
            progress.done++;
            const n = (progress.nodes[parsed.data.node] ??= { shards: 0, answers: 0, perS: 0 });
            const ms = (nodeMs.get(parsed.data.node) ?? 0) + parsed.data.ms;
            nodeMs.set(parsed.data.node, ms);
            n.shards++;
            n.answers += parsed.data.generations.length;
            n.perS = n.answers / Math.max(1e-3, ms / 1000);
            hooks.onProgress?.(progress);
        });
        const settled = await Promise.allSettled(waits);
        const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
        if (failed) throw failed.reason;
        store.setRunStatus(run.id, "complete");
        return { runId, shards: shards.length, skipped: shards.length - pending.length, nodes: progress.nodes };
    } catch (err) {
        if (runId) store.setRunStatus(runId, "interrupted", { error: oneLine(err) });
        throw err;
    } finally {
        await events.close();
        await queue.close();
        store.close();
    }
}

const label = (s: Shard): string => `${s.model}/${s.template}/T=${s.temperature}/${s.wrapper}`;

/** A shard is stored when every answer of its template is there and judged (missing replay answers need no verdict). */
function shardStored(store: Store, runId: string, s: Shard, perShard: number): boolean {
    const r = store.db
        .prepare(
            `SELECT COUNT(*) AS n, SUM(CASE WHEN g.missing = 0 AND (v.generation_id IS NULL OR v.category = 'judge_error') THEN 1 ELSE 0 END) AS unjudged
             FROM generations g JOIN configurations c ON c.id = g.config_id LEFT JOIN verdicts v ON v.generation_id = g.id
             WHERE c.run_id = ? AND c.model = ? AND c.temperature = ? AND c.wrapper = ? AND g.template_id = ?`
        )
        .get(runId, s.model, s.temperature, s.wrapper, s.template) as { n: number; unjudged: number | null };
    return r.n >= perShard && !r.unjudged;
}

/** Write a shard's rows into the run (INSERT OR IGNORE on natural keys: a shard stored twice adds nothing). */
function storeShard(store: Store, runId: string, s: Shard, r: ShardResult): void {
    const conf = store.upsertConfiguration({
        runId, model: s.model, modelPath: s.modelPath, modelSha256: r.configuration.model_sha256, quantization: r.configuration.quantization,
        temperature: s.temperature, wrapper: s.wrapper, decoding: JSON.parse(r.configuration.decoding_json),
        metadata: r.configuration.metadata_json === null ? undefined : { ...JSON.parse(r.configuration.metadata_json), node: r.node }
    });
    const generations: NewGeneration[] = [];
    const verdicts: NewVerdict[] = [];
    for (const g of r.generations) {
        const key = { configId: conf.id, templateId: g.template_id, instance: g.instance_idx, round: g.round };
        generations.push({
            ...key, seed: g.seed, prompt: g.prompt_json, response: g.response, code: g.code, stopReason: g.stop_reason as NewGeneration["stopReason"],
            promptTokens: g.prompt_tokens, generatedTokens: g.generated_tokens, ttftMs: g.ttft_ms, genMs: g.gen_ms, cached: g.cached === 1, missing: g.missing === 1
        });
        if (g.verdict)
            verdicts.push({
                ...key, category: g.verdict.category as NewVerdict["category"], judgeCategory: g.verdict.judge_category as NewVerdict["category"],
                detail: g.verdict.detail, ms: g.verdict.ms, cached: g.verdict.cached === 1
            });
    }
    store.writeBatch({ generations, verdicts, responses: [], verdictCache: [] });
}
