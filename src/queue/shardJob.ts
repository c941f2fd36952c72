import { createHash } from "node:crypto";
import { z } from "zod";

/** Name of the BullMQ queue shards travel on. */
export const QUEUE_NAME = "eddy-shards";

/** One shard: a model × template × temperature × wrapper of a study. */
export const shardSchema = z
    .object({
        model: z.string().min(1), // the coordinator's label for the model
        modelPath: z.string().min(1).nullable(), // a model file (llama: the GGUF), at the same path on every node
        modelName: z.string().min(1).optional(), // a served model's name, as the study gives it (its identity is what the server reports)
        template: z.string().regex(/^[A-Za-z0-9_.-]+$/),
        temperature: z.number().min(0).max(5),
        wrapper: z.string().min(1), // the wrapper's id, as stored
        wrapperSource: z.string().min(1) // as the study names it: a built-in id or a file (same path on every node)
    })
    .strict();
export type Shard = z.infer<typeof shardSchema>;

/** The job format: a worker puts back a job of another format (another eddy made it) instead of failing it. */
// 3: the judge's runtime (Python, and the answer language's runtime) is part of a shard's identity.
export const SHARD_JOB_VERSION = 3;

/** How the judge contains candidate code: bubblewrap's sandbox, or none (see IsolationReport.mode). */
export const JUDGE_MODES = ["bwrap", "none"] as const;
export type JudgeMode = (typeof JUDGE_MODES)[number];

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * What makes a shard's rows the study's rows: a worker runs only a shard whose identity it reproduces
 * exactly, and the coordinator stores only a result that proves the same identity.
 */
export const shardIdentitySchema = z
    .object({
        eddyVersion: z.string().min(1),
        /** sha256 of the model file (llama) or replay file; null for the reference backend. */
        modelSha256: sha256Hex.nullable(),
        /** The template's hash (its YAML and its oracle), as the run recorded it. */
        oracleHash: sha256Hex,
        /** The shard's rendered questions (wrapper applied), in instance order: see identity.ts. */
        questionsHash: sha256Hex,
        /** The judge modes the study accepts: bwrap, and none only when the coordinator allows an unsandboxed judge. */
        judgeModes: z.array(z.enum(JUDGE_MODES)).min(1),
        /** The judge's runtime versions (python, and another answer language's runtime); null: the coordinator could not read its own, nothing is checked. */
        judgeRuntime: z.record(z.string(), z.string()).nullable()
    })
    .strict();
export type ShardIdentity = z.infer<typeof shardIdentitySchema>;

/** A job as enqueued: validated by the worker before anything runs. */
export const shardJobSchema = z
    .object({
        v: z.literal(SHARD_JOB_VERSION),
        runId: z.string().min(1),
        identity: shardIdentitySchema,
        /** The study's identity settings (what decides the results), as stored with the run. */
        study: z.record(z.string(), z.unknown()),
        /** Where the coordinator's study finds a served model (its --base-url), by setting key; a worker's own flags win. */
        where: z.record(z.string(), z.unknown()).optional(),
        shard: shardSchema,
        /** Workers whose result for this shard the coordinator refused: they leave it to others. */
        refusedBy: z.array(z.string()).default([])
    })
    .strict();
export type ShardJob = z.input<typeof shardJobSchema>;

const generation = z
    .object({
        template_id: z.string(),
        instance_idx: z.number().int().min(0),
        round: z.number().int().min(0),
        seed: z.number().int(),
        prompt_json: z.string(),
        response: z.string(),
        code: z.string().nullable(),
        stop_reason: z.string(),
        prompt_tokens: z.number().int().min(0),
        generated_tokens: z.number().int().min(0),
        ttft_ms: z.number(),
        gen_ms: z.number(),
        cached: z.number().int(),
        missing: z.number().int(),
        verdict: z
            .object({ category: z.string(), judge_category: z.string(), detail: z.string(), ms: z.number(), cached: z.number().int(), shrunk: z.string().nullable().optional() })
            .strict()
            .nullable()
    })
    .strict();

/** What a worker returns for a shard: the identity it ran, its configuration and every generation with its verdict. */
export const shardResultSchema = z
    .object({
        node: z.string(),
        ms: z.number(),
        /** Read back from the worker's scratch run: what it actually ran, and the judge that judged it. */
        identity: z
            .object({
                eddyVersion: z.string(),
                modelSha256: z.string().nullable(),
                oracleHash: z.string(),
                questionsHash: z.string(),
                isolation: z.looseObject({ mode: z.enum(JUDGE_MODES), level: z.string() }),
                judgeRuntime: z.record(z.string(), z.string()).optional()
            })
            .strict(),
        configuration: z
            .object({ model_sha256: z.string().nullable(), quantization: z.string().nullable(), decoding_json: z.string(), metadata_json: z.string().nullable() })
            .strict(),
        generations: z.array(generation)
    })
    .strict();
export type ShardResult = z.infer<typeof shardResultSchema>;
export type ShardGeneration = z.infer<typeof generation>;

/** A job id that is the same every time the coordinator plans this shard: re-enqueuing after a restart is a no-op. */
export function shardJobId(runId: string, s: Shard): string {
    return `${runId}-${createHash("sha256").update(JSON.stringify([s.model, s.template, s.temperature, s.wrapper])).digest("hex").slice(0, 24)}`;
}
