import { createHash } from "node:crypto";
import { z } from "zod";

/** Name of the BullMQ queue shards travel on. */
export const QUEUE_NAME = "eddy-shards";

/** One shard: a model × template × temperature × wrapper of a study. */
export const shardSchema = z
    .object({
        model: z.string().min(1), // the coordinator's label for the model
        modelPath: z.string().min(1).nullable(), // llama: the GGUF file, at the same path on every node
        template: z.string().regex(/^[A-Za-z0-9_.-]+$/),
        temperature: z.number().min(0).max(5),
        wrapper: z.string().min(1), // the wrapper's id, as stored
        wrapperSource: z.string().min(1) // as the study names it: a built-in id or a file (same path on every node)
    })
    .strict();
export type Shard = z.infer<typeof shardSchema>;

/** A job as enqueued: validated by the worker before anything runs. */
export const shardJobSchema = z
    .object({
        v: z.literal(1),
        runId: z.string().min(1),
        eddyVersion: z.string().min(1),
        /** sha256 of the model file (llama) or replay file; null for the reference backend. */
        modelSha256: z.string().regex(/^[0-9a-f]{64}$/).nullable(),
        /** The study's identity settings (what decides the results), as stored with the run. */
        study: z.record(z.string(), z.unknown()),
        shard: shardSchema
    })
    .strict();
export type ShardJob = z.infer<typeof shardJobSchema>;

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
            .object({ category: z.string(), judge_category: z.string(), detail: z.string(), ms: z.number(), cached: z.number().int() })
            .strict()
            .nullable()
    })
    .strict();

/** What a worker returns for a shard: its configuration and every generation with its verdict. */
export const shardResultSchema = z
    .object({
        node: z.string(),
        ms: z.number(),
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
