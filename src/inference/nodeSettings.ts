/**
 * A queued configuration is generated shard by shard, possibly on machines with other llama.cpp
 * builds or GPUs. The configuration's backend metadata records every node that generated part of it
 * and which result-changing settings differ between them, instead of whichever shard came last.
 */

/** Backend settings that can change a response (numerics, batching, scheduling), compared across nodes. */
export const RESULT_SETTINGS = ["llamaCppRelease", "nodeLlamaCppVersion", "gpu", "devices", "threads", "batchSize", "contextSize", "sequences", "mode", "scheduling", "groupSize"] as const;

export type NodeSettings = Partial<Record<(typeof RESULT_SETTINGS)[number], unknown>>;

/** The configuration's metadata once `node`'s shard (with backend metadata `shard`) is stored beside what `stored` says. */
export function withNode(stored: Record<string, unknown> | null | undefined, shard: Record<string, unknown>, node: string): Record<string, unknown> {
    const nodes: Record<string, NodeSettings> = { ...((stored?.nodes as Record<string, NodeSettings> | undefined) ?? {}) };
    const mine: NodeSettings = {};
    for (const k of RESULT_SETTINGS) {
        // How many sequences decode at once changes a batch's contents only in fast mode; reproducible
        // mode's answers do not depend on it (lockstep groups are fixed by G, `eddy audit determinism` checks).
        if (k === "sequences" && shard.mode !== "fast") continue;
        if (shard[k] !== undefined) mine[k] = shard[k];
    }
    nodes[node] = mine;
    const differ = RESULT_SETTINGS.filter((k) => new Set(Object.values(nodes).map((s) => JSON.stringify(s[k] ?? null))).size > 1);
    // The first shard's description stays the configuration's (stable whatever the order shards arrive in).
    const { node: _last, nodes: _n, differ: _d, ...base } = stored ?? shard;
    return { ...base, nodes, ...(differ.length ? { differ } : {}) };
}

/**
 * One line when a configuration's answers came from nodes whose result-changing settings differ
 * (then reproducible mode's bit-for-bit claim holds per node, not for the configuration), else null.
 */
export function mixedNodesNote(metadata: Record<string, unknown> | null | undefined): string | null {
    const differ = metadata?.differ as string[] | undefined;
    const nodes = metadata?.nodes as Record<string, NodeSettings> | undefined;
    if (!differ?.length || !nodes) return null;
    const shown = (v: unknown): string => (v === undefined || v === null ? "unset" : Array.isArray(v) ? v.join("+") : String(v));
    const parts = differ.map((k) => `${k} ${Object.entries(nodes).map(([n, s]) => `${shown(s[k as keyof NodeSettings])} on ${n}`).join(", ")}`);
    return `generated on ${Object.keys(nodes).length} nodes whose settings differ (${parts.join("; ")}): answers are reproducible per node, not across them`;
}
