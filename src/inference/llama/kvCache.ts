import { EddyError } from "../../util/errors.js";

/** KV-cache types `--kv-cache` takes (llama.cpp's cache types that its CPU and GPU kernels support). */
export const KV_CACHE_TYPES = ["f32", "f16", "bf16", "q8_0", "q5_1", "q5_0", "q4_1", "q4_0", "iq4_nl"] as const;
export type KvCacheType = (typeof KV_CACHE_TYPES)[number];

/** A valid KV-cache type (lower case), or a one-line error. */
export function kvCacheType(v: unknown): KvCacheType {
    const s = String(v).trim().toLowerCase();
    if (!(KV_CACHE_TYPES as readonly string[]).includes(s)) throw new EddyError(`--kv-cache must be one of ${KV_CACHE_TYPES.join(", ")} (got '${String(v)}')`);
    return s as KvCacheType;
}

/**
 * node-llama-cpp's context options for a KV-cache type: the key and value tensors both in that type. A
 * quantised value cache needs flash attention in llama.cpp, so with any explicit cache type flash attention is
 * on, for f16 too: the cache type is then the only thing that differs between the configurations of a study.
 */
export function kvCacheContextOptions(kv: string | undefined): Record<string, unknown> {
    if (!kv) return {};
    const t = kv.toUpperCase();
    return { experimentalKvCacheKeyType: t, experimentalKvCacheValueType: t, flashAttention: true };
}
