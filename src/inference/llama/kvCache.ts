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
 * `--kv-cache` as a study setting: one type (a string, as runs before the axis stored it, so their identity is
 * unchanged) or several (comma-separated or a list; duplicates dropped, order kept): the KV-cache axis, each
 * type a configuration of the run.
 */
export function kvCacheSetting(v: unknown): KvCacheType | KvCacheType[] {
    const given = (Array.isArray(v) ? v : [v]).flatMap((x) => String(x).split(",")).map((x) => x.trim()).filter(Boolean);
    if (given.length === 0) throw new EddyError(`--kv-cache must be one of ${KV_CACHE_TYPES.join(", ")} (got '${String(v)}')`);
    const types = [...new Set(given.map(kvCacheType))];
    return types.length === 1 ? types[0]! : types;
}

/** The types a study setting names (none, one, or the axis's). */
export function kvCacheTypes(v: unknown): KvCacheType[] {
    if (v === undefined || v === null) return [];
    const s = kvCacheSetting(v);
    return Array.isArray(s) ? s : [s];
}

/** A configuration's model label on the KV-cache axis: the model's, with `@kv=<type>` (e.g. `model-Q4_K_M@kv=q8_0`). */
export function kvCacheLabel(label: string, kv: string): string {
    return `${label}@kv=${kv}`;
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
