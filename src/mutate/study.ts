import path from "node:path";
import { Embedder } from "../embed/Embedder.js";
import { loadWrapper } from "../prompts/PromptWrapper.js";
import type { StudyConfig } from "../run/config.js";
import { runStudy, type StudyHooks, type StudyResult } from "../run/runStudy.js";
import { recordMutateStudy, type MutateStudyRecord } from "../store/mutateStudies.js";
import { openStore } from "../store/Store.js";
import { EddyError } from "../util/errors.js";
import { defaultDbPath } from "../util/paths.js";
import { generateVariants, writeVariantFiles, type VariantRecord } from "./variants.js";

export interface MutateOptions {
    /** The original wrapper: a built-in id or a YAML file. */
    original: string;
    /** Sentence-embedding model folder that validates the variants. */
    embedModel: string;
    minSimilarity: number;
    /** Kept variants wanted. */
    count: number;
    /** Where variant files go (default: `mutants/` beside the database). */
    variantsDir?: string;
}

/** What a mutation study stores beside its run (mutate_studies). */
export type MutateStudyRow = MutateStudyRecord<Omit<VariantRecord, "wrapper">>;

/**
 * Make the variants of the original wrapper, keep those the embedding model finds close enough,
 * then run one ordinary study over [original, ...kept variants] (same templates, instances,
 * seeds, models), so every variant is judged and stored like any run and can be resumed.
 */
export async function runMutateStudy(config: StudyConfig, opts: MutateOptions, hooks: StudyHooks & { onVariants?: (v: VariantRecord[]) => void } = {}): Promise<{ result: StudyResult; variants: VariantRecord[] }> {
    const original = loadWrapper(opts.original);
    const embedModel = path.resolve(opts.embedModel);
    const embedder = await Embedder.load(embedModel);
    let variants: VariantRecord[];
    try {
        variants = await generateVariants(original, embedder, { count: opts.count, minSimilarity: opts.minSimilarity });
    } finally {
        await embedder.close();
    }
    hooks.onVariants?.(variants);
    const kept = variants.filter((v) => v.kept);
    if (kept.length === 0)
        throw new EddyError(`no variant of '${original.id}' reached cosine similarity ${opts.minSimilarity} with ${embedModel}; lower --min-similarity or use another embedding model`);
    const db = config.db ?? defaultDbPath();
    writeVariantFiles(opts.variantsDir ?? path.join(path.dirname(db), "mutants"), original.id, variants);
    // Recorded as soon as the run exists, so an interrupted or failed study can still be resumed and reported.
    const record = (runId: string): void => {
        const store = openStore(db);
        try {
            recordMutateStudy(store, { runId, original: original.id, embedModel, minSimilarity: opts.minSimilarity, variants: variants.map(({ wrapper: _w, ...v }) => v) });
        } finally {
            store.close();
        }
    };
    const result = await runStudy(
        { ...config, wrappers: [opts.original, ...kept.map((v) => v.file!)] },
        {
            ...hooks,
            onRunId: (id) => {
                record(id);
                hooks.onRunId?.(id);
            }
        }
    );
    return { result, variants };
}
