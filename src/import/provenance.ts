import { openStore } from "../store/Store.js";

/**
 * What is known of answers that came from another harness: where they were read, the model as
 * that harness named it, and the temperature when given. Everything else about how they were
 * generated (prompt, system message, token limit, seed, engine, model file) is unknown and is
 * exported as unknown, never as eddy's own settings, which only the replay that re-judged them used.
 */
export interface ImportedProvenance {
    /** The harness whose answers these are (e.g. "EvalPlus"). */
    importedFrom: string;
    /** The file or folder they were read from. */
    source: string;
    /** The model's name as given (`org/name` allowed). */
    model: string;
    /** The sampling temperature when it was given; null: unknown. */
    temperature: number | null;
    /** EvalPlus samples with EvalPlus's results beside them: what is known of the EvalPlus that judged them. */
    evalplus?: EvalPlusJudged;
}

/** What is known of the EvalPlus that judged imported samples, and of the dataset on each side. */
export interface EvalPlusJudged {
    /** Its results file, its `date` and its `hash` (the md5 of the dataset it judged against). */
    results: string;
    date: string | null;
    hash: string | null;
    /** The problems eddy imported: EvalPlus's md5 of them (and the file's own md5), and the file; null where the import predates it. */
    imported: { hash: string | null; fileHash: string | null; source: string | null };
    /** Which EvalPlus judged (its rules explain the disagreements): given, by the results' date, or the current release. */
    version: { id: string; asOf: string; from: "flag" | "date" | "default" };
}

/** The generation settings an import never knows. */
export const UNKNOWN_SETTINGS = ["prompt", "system_message", "max_tokens", "seed", "top_p", "top_k", "inference_engine", "model_sha256"];

/** A model name an import accepts: `name` or `org/name` (Hugging Face's form), letters, digits, '.', '_', '-'. */
export const MODEL_NAME = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)?$/;

/** A model name as a file name (and only there: labels, reports and exports keep the name as given): `org/name` → `org--name`. */
export function modelFileStem(model: string): string {
    return model.replace("/", "--");
}

/** Records the provenance on every configuration of an imported run (the backend's metadata it replaces describes the replay, not the model). */
export function recordProvenance(db: string, runId: string, p: ImportedProvenance): void {
    const store = openStore(db);
    try {
        for (const c of store.configurations(runId))
            store.upsertConfiguration({
                runId,
                model: c.model,
                modelPath: c.model_path,
                modelSha256: c.model_sha256,
                quantization: c.quantization,
                temperature: c.temperature,
                wrapper: c.wrapper,
                decoding: JSON.parse(c.decoding_json),
                metadata: { provenance: { ...p, unknown: UNKNOWN_SETTINGS } }
            });
    } finally {
        store.close();
    }
}

/** The provenance of an imported configuration's answers, from its metadata; undefined for answers eddy generated. */
export function provenanceOf(metadata: Record<string, unknown> | null | undefined): ImportedProvenance | undefined {
    const p = metadata?.provenance as Partial<ImportedProvenance> | undefined;
    if (!p || typeof p.model !== "string" || typeof p.importedFrom !== "string") return undefined;
    return { importedFrom: p.importedFrom, source: String(p.source ?? ""), model: p.model, temperature: typeof p.temperature === "number" ? p.temperature : null };
}

/** What is known of the EvalPlus that judged an imported configuration's samples; undefined where none. */
export function evalPlusJudgedOf(metadata: Record<string, unknown> | null | undefined): EvalPlusJudged | undefined {
    const e = (metadata?.provenance as { evalplus?: EvalPlusJudged } | undefined)?.evalplus;
    return e && typeof e.results === "string" && e.version && typeof e.version.asOf === "string" ? e : undefined;
}
