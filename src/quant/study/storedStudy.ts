import type { Store } from "../../store/Store.js";
import { loadOutcomes } from "../../store/outcomes.js";
import { generationSpeeds, readQuantStudy, recordQuantStudy } from "../../store/quantStudy.js";
import type { DriftReport } from "../drift/types.js";
import type { QuantFile } from "../models/checkSameModel.js";
import { buildQuantReport } from "./buildQuantReport.js";
import type { QuantReport } from "./types.js";

/**
 * What `eddy quant` measured beside its run and stores with it (quant_studies): the files and how the run labels
 * each (per KV-cache type on that axis), bits per weight, and the token drift. The answers, verdicts, speeds and
 * CPU time are the run's own rows. The report is built from the two by {@link quantReportFromStore}, for the
 * command and the viewer alike.
 */
export interface StoredQuantStudy {
    /** The shape of this record (a later eddy reads older ones by it). */
    version: 1;
    study: QuantReport["study"];
    /** The reference file and its KV-cache type (null: llama.cpp's default). */
    reference: string;
    referenceKvCache: string | null;
    /** Every configuration compared, in the report's order: the file, its cache type and the run's label for it. */
    files: (QuantFile & { kvCache: string | null; label: string })[];
    /** Bits per weight per file path, where read. */
    bitsPerWeight: Record<string, number>;
    /** What the drift was measured on, and the drift per cache type (against the reference configuration). */
    drift: {
        source: QuantReport["drift"]["source"];
        texts: number;
        /** `job`: a digest of what it was measured on (runQuantStudy.ts driftJobKey); the same command again reuses it. */
        reports: { kvCache: string | null; report: DriftReport; job?: string }[];
    };
    /** Seed of the bootstrap intervals. */
    bootstrapSeed: number;
}

/** Record the study of a run (again: the latest measurement replaces the last). */
export function recordStoredStudy(store: Store, runId: string, s: StoredQuantStudy): void {
    recordQuantStudy(store, runId, s.reference, s);
}

/** The stored study of a run, or undefined when the run is not a quantisation study. */
export function readStoredStudy(store: Store, runId: string): StoredQuantStudy | undefined {
    const r = readQuantStudy<StoredQuantStudy>(store, runId);
    return r && r.inputs.version === 1 ? r.inputs : undefined;
}

/**
 * The quantisation report of a run, from the store alone: its judged answers, each configuration's speeds and
 * tokens per CPU-second, and what the study recorded beside the run. `eddy quant` prints this, and the viewer
 * draws it: one data path.
 */
export function quantReportFromStore(store: Store, runId: string, stored: StoredQuantStudy = readStoredStudy(store, runId)!): QuantReport {
    const byLabel = new Map(store.configurations(runId).map((c) => [c.model, c]));
    const speeds = new Map(generationSpeeds(store, runId).map((s) => [s.configId, s]));
    const configurations = stored.files.map((entry) => {
        const c = byLabel.get(entry.label);
        const sp = c ? speeds.get(c.id) : undefined;
        return {
            label: entry.label,
            modelPath: entry.path,
            kvCache: entry.kvCache,
            quantization: c?.quantization ?? null,
            promptTokensPerS: sp?.promptTokensPerS ?? null,
            generationTokensPerS: sp?.generationTokensPerS ?? null,
            tokensPerCpuSecond: sp?.tokensPerCpuSecond ?? null
        };
    });
    const drifts = stored.drift.reports;
    return buildQuantReport({
        runId,
        db: store.path,
        study: stored.study,
        files: stored.files,
        reference: stored.reference,
        referenceKvCache: stored.referenceKvCache,
        outcomes: loadOutcomes(store, [runId]),
        ...(drifts.length > 0 ? { drift: drifts[0]!.report, drifts } : {}),
        driftSource: stored.drift.source,
        driftTexts: stored.drift.texts,
        configurations,
        bootstrapSeed: stored.bootstrapSeed,
        bitsPerWeight: stored.bitsPerWeight
    });
}
