import { openStore } from "../../src/store/Store.js";
import type { Outcome } from "../../src/vocabulary.js";

/** Writes outcomes into a fresh eddy database through the store's own API, one run per runId. */
export function writeOutcomes(dbPath: string, outcomes: readonly Outcome[], opts: { config?: Record<string, unknown>; modelSha256?: string; metadata?: Record<string, unknown> } = {}): string[] {
    const store = openStore(dbPath);
    try {
        const runIds = [...new Set(outcomes.map((o) => o.runId))];
        for (const runId of runIds) {
            const mine = outcomes.filter((o) => o.runId === runId);
            store.createOrFindRun({ id: runId, configHash: `hash-${runId}`, config: opts.config ?? { templates: "test" }, eddyVersion: "0.1.0", backend: "reference", seed: 1 }, false);
            const templates = new Map(mine.map((o) => [o.template, o]));
            store.recordTemplates(
                runId,
                [...templates.values()].map((o) => ({ id: o.template, oracleHash: "h", group: o.group, subgroups: o.subgroups, function: "f" }))
            );
            for (const t of templates.keys()) {
                const inst = new Map(mine.filter((o) => o.template === t).map((o) => [o.instance, o.params]));
                store.insertInstances(
                    runId,
                    [...inst].map(([index, params]) => ({ templateId: t, index, params, bindings: {}, question: `q${index}` }))
                );
            }
            const configIds = new Map<string, number>();
            for (const o of mine)
                if (!configIds.has(o.config))
                    configIds.set(o.config, store.upsertConfiguration({ runId, model: o.model, quantization: o.quantization, temperature: o.temperature, wrapper: o.wrapper, decoding: { temperature: o.temperature } as never, ...(opts.modelSha256 ? { modelSha256: opts.modelSha256 } : {}), ...(opts.metadata ? { metadata: opts.metadata } : {}) }).id);
            const key = (o: Outcome) => ({ configId: configIds.get(o.config)!, templateId: o.template, instance: o.instance, round: o.round });
            store.writeBatch({
                generations: mine.map((o) => ({ ...key(o), seed: o.seed, prompt: "[]", response: o.response, code: o.code, stopReason: o.category === "truncated" ? "maxTokens" : "eogToken", promptTokens: 1, generatedTokens: 1, ttftMs: 1, genMs: 1 }) as never),
                verdicts: mine.map((o) => ({ ...key(o), category: o.category, judgeCategory: o.category, detail: o.detail, ms: 1 })),
                responses: [],
                verdictCache: []
            });
            store.setRunStatus(runId, "complete");
        }
        return runIds;
    } finally {
        store.close();
    }
}
