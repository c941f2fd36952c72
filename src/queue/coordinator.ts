import { Job, Queue } from "bullmq";
import { Redis } from "ioredis";
import { sha256File } from "../util/files.js";
import type { StudyConfig } from "../run/config.js";
import { openRun, sessionConfig, type OpenedRun } from "../run/study/openRun.js";
import { builtInLibrary, type TemplateLibrary } from "../templates/library.js";
import { leaseRun, type RunLease } from "../store/runLease.js";
import { shardProgress } from "../store/shards.js";
import { openStore, type Store } from "../store/Store.js";
import type { NewGeneration, NewVerdict, RunRow } from "../store/types.js";
import { needsPassword, PASSWORD_PLACEHOLDER, sameCommand } from "../util/commandLine.js";
import { EddyError, oneLine } from "../util/errors.js";
import { defaultDbPath, eddyVersion } from "../util/paths.js";
import { resultProblem, type ExpectedShard } from "./checkResult.js";
import { checkRedis } from "./connect.js";
import { questionsHash, shardPrompts } from "./identity.js";
import type { QueueTarget } from "./queueUrl.js";
import { RedisState } from "./redisState.js";
import { dropResult, liveWorkers, readRefusals, readResults, readTroubles } from "./refusals.js";
import { judgeRuntime, type JudgeRuntime } from "./judgeRuntime.js";
import { recordedEnvironment } from "../judge/environment.js";
import { readEnvironment } from "../judge/readEnvironment.js";
import type { JudgeEnvironment } from "../judge/types.js";
import { withNode } from "../inference/nodeSettings.js";
import { QUEUE_NAME, SHARD_JOB_VERSION, shardJobId, shardResultSchema, type JudgeMode, type Shard, type ShardJob, type ShardResult } from "./shardJob.js";
import { backendDescriptor, studySources, WHERE_KEYS } from "../inference/backends.js";

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

export interface QueuedHooks {
    onProgress?: (p: QueuedProgress) => void;
    log?: (line: string) => void;
    /** How often the queue is looked at (ms; at least one ms per pending shard). */
    pollMs?: number;
    /** The templates and oracles the study asks (default: eddy's own). */
    library?: TemplateLibrary;
    /** Stops the coordinator (Ctrl-C): it says what it kept and throws an EddyError with exit code 130. */
    signal?: AbortSignal;
    /** How long every live worker may refuse (or no worker be there) before the coordinator says so (ms). */
    idleSayMs?: number;
}

/** A shard as planned: what it is, its job id, and what its result must prove. */
interface PlannedShard extends ExpectedShard {
    shard: Shard;
    jobId: string;
    /** Workers whose result for it was refused: they leave it to others. */
    refusedBy: string[];
}

/** How an older eddy's worker failed a job it would not run (before workers put such jobs back). */
const OLDER_WORKER_REFUSAL = /^(malformed shard job: |refused by )/;
/** BullMQ's reason for a job whose worker lost its lock too often (a busy machine): never the shard's fault. */
const STALLED = /stalled more than allowable limit/;

const label = (s: Shard): string => `${s.model}/${s.template}/T=${s.temperature}/${s.wrapper}`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** Said after "the same command continues it" when that command's queue URL had a password (never printed). */
const again = (): string => (needsPassword(sameCommand()) ? ` (with your queue's password for ${PASSWORD_PLACEHOLDER})` : "");

/**
 * Coordinate a study over a BullMQ queue: create (or find, or resume) the run in the local store, hold it
 * (one process per run), enqueue every shard not yet stored (model × template × temperature × wrapper,
 * job ids fixed by run and shard), and store each result that proves the study's identity as it
 * finishes. The queue is looked at, not listened to: a job that Redis lost (restarted empty, flushed,
 * evicted) is noticed and queued again, and an outage is one line when it starts and one when it ends.
 */
export async function runQueued(input: StudyConfig, t: QueueTarget, hooks: QueuedHooks = {}): Promise<QueuedResult> {
    await checkRedis(t);
    const log = hooks.log ?? (() => {});
    const store = openStore(input.db ?? defaultDbPath());
    const state = new RedisState(t, log);
    const queue = new Queue(QUEUE_NAME, { connection: t.options });
    queue.on("error", state.error);
    const client = new Redis({ ...(t.options as object), maxRetriesPerRequest: null });
    client.on("error", state.error);
    let runId = "";
    let lease: RunLease | undefined;
    try {
        // The same path as a local run: a resumed run's stored study, never the flags' defaults.
        const config = sessionConfig(store, input);
        // A shard is one model file under the study's settings: an axis's values (--kv-cache f16,q8_0) are not shards yet.
        if (studySources(config).some((m) => m.settings))
            throw new EddyError("a study on the queue takes one value of a comparison axis (one --kv-cache type): queue one study per type, or run this one without --queue");
        const opened = openRun(store, config, hooks.library ?? builtInLibrary());
        const { run } = opened;
        lease = await leaseRun(store, run.id, { log });
        runId = run.id;
        const study = JSON.parse(run.config_json) as Record<string, unknown>;
        // Where a served model is (operational, so not stored with the run): told to workers, whose own flags win.
        const where = Object.fromEntries(WHERE_KEYS.filter((k) => (config as Record<string, unknown>)[k] !== undefined).map((k) => [k, (config as Record<string, unknown>)[k]]));
        const judges = new WorkerJudges(store, run);
        // The judge's runtime is part of the study's identity: the one recorded with the run, else this machine's.
        const runtime =
            judges.runtime ??
            (await judgeRuntime(config.language).catch((err: unknown) => {
                log(`the judge's runtime cannot be read here (${oneLine(err)}): workers' Python versions are recorded but not checked`);
                return null;
            }));
        judges.runtime = runtime;
        // The interpreter behind it (path, version, packages), as the run shows it: this machine's, read with the runtime.
        if (runtime && !judges.python) judges.python = await readEnvironment().catch(() => null);
        const planned = await planShards(config, opened, runtime);
        const perShard = config.instances * config.rounds;
        const pending = new Map(planned.filter((p) => !shardStored(store, run.id, p.shard, perShard)).map((p) => [p.jobId, p]));
        const skipped = planned.length - pending.size;
        const progress: QueuedProgress = { runId, shards: planned.length, done: skipped, nodes: {} };
        const nodeMs = new Map<string, number>();
        hooks.onProgress?.(progress);

        const enqueue = async (p: PlannedShard): Promise<void> => {
            const data: ShardJob = { v: SHARD_JOB_VERSION, runId: run.id, identity: p.identity, study, ...(Object.keys(where).length ? { where } : {}), shard: p.shard, refusedBy: p.refusedBy };
            const old = await Job.fromId(queue, p.jobId);
            if (old) {
                // Kept when it is this study's job waiting or running, or a result to collect; a failed one, or one of another identity, is replaced.
                const s = await old.getState();
                const same = JSON.stringify((old.data as Partial<ShardJob>).identity) === JSON.stringify(p.identity) && JSON.stringify((old.data as Partial<ShardJob>).refusedBy ?? []) === JSON.stringify(p.refusedBy);
                if (s === "completed" || s === "active" || (s !== "failed" && same)) return;
                await old.remove().catch(() => {});
            }
            await queue.add("shard", data, { jobId: p.jobId, attempts: 1, removeOnComplete: false, removeOnFail: false });
        };
        const stored = (p: PlannedShard, r: ShardResult): void => {
            pending.delete(p.jobId);
            progress.done++;
            const n = (progress.nodes[r.node] ??= { shards: 0, answers: 0, perS: 0 });
            const ms = (nodeMs.get(r.node) ?? 0) + r.ms;
            nodeMs.set(r.node, ms);
            n.shards++;
            n.answers += r.generations.length;
            n.perS = n.answers / Math.max(1e-3, ms / 1000);
            hooks.onProgress?.(progress);
        };
        /**
         * A finished shard (its result saved apart by the worker, or the completed job's return value): stored when
         * it proves this shard of this study, else refused by name and queued again.
         */
        const collect = async (p: PlannedShard, saved?: unknown): Promise<void> => {
            const job = await Job.fromId(queue, p.jobId);
            const value = saved ?? job?.returnvalue;
            if (value === undefined) return; // gone since: the next look finds it lost
            const parsed = shardResultSchema.safeParse(value);
            const rv = value as { node?: unknown } | null;
            const node = parsed.success ? parsed.data.node : typeof rv?.node === "string" ? rv.node : "(unnamed)";
            const why = parsed.success ? resultProblem(p, parsed.data) : `its result is malformed (${parsed.error.issues[0]?.path.join(".") ?? ""}: ${parsed.error.issues[0]?.message ?? "invalid"})`;
            if (why || !parsed.success) {
                log(`refused shard ${label(p.shard)} from worker ${node}: ${why}; stored nothing, the shard is queued again`);
                p.refusedBy = [...new Set([...p.refusedBy, node])];
                await dropResult(client, p.jobId);
                await job?.remove().catch(() => {});
                await enqueue(p);
                return;
            }
            storeShard(store, run.id, p.shard, parsed.data);
            judges.add(parsed.data.node, parsed.data.identity.isolation, parsed.data.identity.judgeRuntime);
            // Stored: the queue need not keep it (a job another worker holds now is left to finish; its result is not read again).
            await dropResult(client, p.jobId);
            await job?.remove().catch(() => {});
            stored(p, parsed.data);
        };

        for (const p of pending.values()) await enqueue(p);
        /** Refusals already reported (workers' names, older workers' reasons): each once. */
        const told = new Set<string>();
        const troubles = new Map<string, string>();
        const idle = new IdleWatch(hooks.idleSayMs ?? 20_000, t.where, log);
        while (pending.size) {
            await sleep(Math.max(hooks.pollMs ?? 500, pending.size));
            if (hooks.signal?.aborted) throw new EddyError(`stopped: run ${run.id} kept ${progress.done} of ${planned.length} shards; the same command continues it${again()}`, 130, { next: sameCommand() });
            if (!state.reachable) continue; // said once; asked again when Redis is back
            const ids = [...pending.keys()];
            const saved = await readResults(client, ids);
            const states = await Promise.all(ids.map((id) => queue.getJobState(id)));
            const lost: PlannedShard[] = [];
            let active = 0;
            for (let i = 0; i < ids.length; i++) {
                const p = pending.get(ids[i]!)!;
                if (saved[i] !== undefined) await collect(p, saved[i]);
                else if (states[i] === "completed") await collect(p);
                else if (states[i] === "unknown") lost.push(p);
                else if (states[i] === "active") active++;
                else if (states[i] === "failed") {
                    const reason = (await Job.fromId(queue, p.jobId))?.failedReason ?? "no reason recorded";
                    if (STALLED.test(reason)) {
                        // A worker that lost its lock again and again (an older worker's limit): the shard goes back, never the study down.
                        if (!told.has(reason)) log(`shard ${label(p.shard)} was taken from its workers too often (their locks lapsed: busy machines?); queued again`);
                        told.add(reason);
                        await enqueue(p);
                        continue;
                    }
                    // A worker of an older eddy fails a job it cannot read or will not run (it cannot put one back): its refusal, not the shard's failure.
                    if (!OLDER_WORKER_REFUSAL.test(reason))
                        throw new EddyError(`shard ${label(p.shard)} failed: ${reason}; run ${run.id} kept every finished shard: once that is fixed, the same command continues it${again()}`, 1, { next: sameCommand() });
                    if (!told.has(reason)) log(`a worker of another eddy failed shard ${label(p.shard)} instead of leaving it (${reason}); queued again for other workers`);
                    told.add(reason);
                    await enqueue(p);
                }
            }
            // Lost from Redis (a restart without persistence, FLUSHDB, eviction), unless stored meanwhile.
            const gone = lost.filter((p) => !shardStored(store, run.id, p.shard, perShard));
            for (const p of lost)
                if (!gone.includes(p)) {
                    pending.delete(p.jobId);
                    progress.done++;
                }
            if (gone.length) {
                log(`${gone.length} ${gone.length === 1 ? "shard" : "shards"} no longer in Redis (restarted empty, flushed or evicted?): queued again`);
                for (const p of gone) await enqueue(p);
            }
            const refusals = await readRefusals(client, run.id);
            for (const [node, why] of Object.entries(refusals))
                if (!told.has(node)) {
                    told.add(node);
                    log(`worker ${node} refuses this study: ${why} (its shards are left to other workers)`);
                }
            const now = await readTroubles(client, run.id);
            for (const [node, why] of Object.entries(now))
                if (troubles.get(node) !== why && !refusals[node]) log(`worker ${node} cannot run this study's shards for now: ${why} (it tries again)`);
            for (const node of troubles.keys()) if (!(node in now)) log(`worker ${node} runs this study's shards again`);
            troubles.clear();
            for (const [node, why] of Object.entries(now)) troubles.set(node, why);
            if (pending.size) idle.look(active, await liveWorkers(client), refusals, now);
        }
        store.setRunStatus(run.id, "complete");
        await cleanUp(queue, client, planned);
        return { runId, shards: planned.length, skipped, nodes: progress.nodes };
    } catch (err) {
        if (runId) store.setRunStatus(runId, "interrupted", { error: oneLine(err) });
        throw err;
    } finally {
        lease?.release();
        state.close();
        await queue.close();
        client.disconnect();
        store.close();
    }
}

/** Every shard of the study with what its result must prove (model files hashed once each). */
async function planShards(config: StudyConfig, { run, plan, sourceSha256 }: OpenedRun, judgeRuntime: JudgeRuntime | null): Promise<PlannedShard[]> {
    const judgeModes: JudgeMode[] = config.allowUnsandboxed || process.env.EDDY_ALLOW_UNSANDBOXED === "1" ? ["bwrap", "none"] : ["bwrap"];
    const out: PlannedShard[] = [];
    const descriptor = backendDescriptor(config.backend);
    for (const m of plan.models) {
        // A model file's sha256; a served model's identity as its server reports it now (what every worker's answers must carry); else the prepared source's.
        const modelSha256 = m.path ? await sha256File(m.path) : descriptor.modelIdentity ? await descriptor.modelIdentity(config, m) : sourceSha256;
        for (const tmpl of plan.templates)
            plan.wrappers.forEach((w, i) => {
                const prompts = shardPrompts(plan, tmpl.id, i);
                const identity = { eddyVersion: eddyVersion(), modelSha256, oracleHash: tmpl.oracleHash, questionsHash: questionsHash(prompts), judgeModes, judgeRuntime };
                for (const temperature of config.temperatures) {
                    const shard: Shard = { model: m.label, modelPath: m.path ?? null, ...(m.name ? { modelName: m.name } : {}), template: tmpl.id, temperature, wrapper: w.id, wrapperSource: config.wrappers[i]! };
                    out.push({ shard, jobId: shardJobId(run.id, shard), identity, template: tmpl.id, prompts, rounds: config.rounds, refusedBy: [] });
                }
            });
    }
    return out;
}

/**
 * The judges of a queued run: each worker's isolation, recorded on the run as it first stores a shard
 * (runs.isolation_json `workers`; isolation_level lists the distinct levels, unsandboxed ones first, so
 * reports warn about them).
 */
class WorkerJudges {
    private readonly workers: Record<string, { level: string; runtime?: JudgeRuntime }>;
    /** The study's judge runtime (runs.isolation_json `runtime`), recorded with its first stored shard. */
    runtime: JudgeRuntime | null;
    /** The coordinator's judge environment the runtime was read from (runs.isolation_json `python`), recorded with it. */
    python: JudgeEnvironment | null;

    constructor(private readonly store: Store, private readonly run: RunRow) {
        const had = run.isolation_json ? (JSON.parse(run.isolation_json) as { workers?: Record<string, { level: string }>; runtime?: JudgeRuntime; python?: unknown }) : {};
        this.workers = { ...(had.workers ?? {}) };
        this.runtime = had.runtime ?? null;
        this.python = recordedEnvironment(had) ?? null;
    }

    add(node: string, isolation: { level: string }, runtime: JudgeRuntime | undefined): void {
        const w = this.workers[node];
        if (w?.level === isolation.level && JSON.stringify(w.runtime) === JSON.stringify(runtime)) return;
        this.workers[node] = { ...isolation, ...(runtime ? { runtime } : {}) };
        const levels = [...new Set(Object.values(this.workers).map((x) => x.level))].sort((a, b) => Number(!a.startsWith("NO-SANDBOX")) - Number(!b.startsWith("NO-SANDBOX")) || a.localeCompare(b));
        this.store.setRunStatus(this.run.id, "running", { isolationLevel: levels.join(" | "), isolation: { workers: this.workers, ...(this.runtime ? { runtime: this.runtime } : {}), ...(this.python ? { python: this.python } : {}) } });
    }
}

/**
 * Says, once per situation, that no worker can take the study and why: nobody connected, or every live
 * worker refusing it or unable to start its judge. A coordinator never waits in silence.
 */
class IdleWatch {
    private since: number | undefined;
    private said = "";

    constructor(
        private readonly afterMs: number,
        private readonly where: string,
        private readonly log: (line: string) => void
    ) {}

    look(active: number, live: string[], refusals: Record<string, string>, troubles: Record<string, string>): void {
        const able = live.filter((n) => !refusals[n] && !troubles[n]);
        if (active > 0 || able.length > 0) {
            if (this.said) this.log(`a worker takes this study's shards again (${able.join(", ") || "one that was busy"})`);
            this.since = undefined;
            this.said = "";
            return;
        }
        this.since ??= Date.now();
        if (Date.now() - this.since < this.afterMs) return;
        const why = live.length
            ? live.map((n) => (refusals[n] ? `${n} refuses it (${refusals[n]})` : `${n} cannot start its judge for now (${troubles[n]})`)).join("; ")
            : `no worker is connected to ${this.where} (start one: eddy worker --queue <url>)`;
        const line = `no worker can take this study now: ${why}; waiting for one that can (Ctrl-C stops; finished shards are kept)`;
        if (line === this.said) return;
        this.said = line;
        this.log(line);
    }
}

/** The study's jobs and saved results left in Redis once everything is stored (a job another worker still holds is left to it). */
async function cleanUp(queue: Queue, client: Redis, planned: PlannedShard[]): Promise<void> {
    for (const p of planned) {
        await dropResult(client, p.jobId).catch(() => {});
        await (await Job.fromId(queue, p.jobId).catch(() => undefined))?.remove().catch(() => {});
    }
}

/** A shard is stored when every answer of its template is there and judged (missing replay answers need no verdict). */
function shardStored(store: Store, runId: string, s: Shard, perShard: number): boolean {
    const r = shardProgress(store, runId, s);
    return r.n >= perShard && !r.unjudged;
}

/** The configuration's metadata as stored so far (null before its first shard). */
function storedMetadata(store: Store, runId: string, s: Shard): Record<string, unknown> | null {
    const c = store.configurations(runId).find((x) => x.model === s.model && x.temperature === s.temperature && x.wrapper === s.wrapper);
    return c?.metadata_json ? (JSON.parse(c.metadata_json) as Record<string, unknown>) : null;
}

/** Write a shard's rows into the run (INSERT OR IGNORE on natural keys: a shard stored twice adds nothing). */
function storeShard(store: Store, runId: string, s: Shard, r: ShardResult): void {
    const conf = store.upsertConfiguration({
        runId, model: s.model, modelPath: s.modelPath, modelSha256: r.configuration.model_sha256, quantization: r.configuration.quantization,
        temperature: s.temperature, wrapper: s.wrapper, decoding: JSON.parse(r.configuration.decoding_json),
        metadata: r.configuration.metadata_json === null ? undefined : withNode(storedMetadata(store, runId, s), JSON.parse(r.configuration.metadata_json) as Record<string, unknown>, r.node)
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
                detail: g.verdict.detail, ms: g.verdict.ms, cached: g.verdict.cached === 1, shrunk: g.verdict.shrunk ?? null
            });
    }
    store.writeBatch({ generations, verdicts, responses: [], verdictCache: [] });
}
