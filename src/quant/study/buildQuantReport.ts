import path from "node:path";
import type { Outcome } from "../../vocabulary.js";
import { modelStem } from "../../store/outcomes.js";
import { compareWithReference } from "../compare/compareWithReference.js";
import type { DriftReport } from "../drift/types.js";
import type { QuantFile } from "../models/checkSameModel.js";
import { powerStatement } from "../compare/power.js";
import type { FlipCounts } from "../flips/flips.js";
import { wilsonInterval } from "../../stats/wilson.js";
import type { QuantFileReport, QuantReport, QuantVerdict } from "./types.js";
import { KV_CACHE_AXIS } from "../../inference/backends.js";

/** One file's configuration in the study, as the report needs it. */
export interface StudyConfiguration {
    /** The configuration's model label in the run (matched before path and cache type when given). */
    label?: string;
    /** Model file of the configuration. */
    modelPath: string | null;
    /** KV-cache type of its run (the KV-cache axis), null: llama.cpp's default. */
    kvCache?: string | null;
    /** Quantisation type the study recorded (from the backend's metadata). */
    quantization: string | null;
    /** Prompt tokens/s in the study (per sequence), null when unmeasured. */
    promptTokensPerS: number | null;
    /** Generated tokens/s in the study (per sequence), null when unmeasured. */
    generationTokensPerS: number | null;
    /** Tokens generated per CPU-second of the inference process in the study, null when unmeasured. */
    tokensPerCpuSecond?: number | null;
}

/** Everything a quantisation report is computed from. */
export interface QuantReportInput {
    /** Run holding the study: every file (once per KV-cache type on that axis) a configuration of it. */
    runId: string;
    /** Database file. */
    db: string;
    /** What was asked of every file. */
    study: QuantReport["study"];
    /**
     * The files, most precise first (their order in the report); with a KV-cache axis, every file once per cache type.
     * `label`: the configuration's model label in the run, whose outcomes are the file's (default: the file's stem,
     * with `@kv=<type>` on the axis).
     */
    files: (QuantFile & { kvCache?: string | null; label?: string })[];
    /** Path of the reference file (one of `files`). */
    reference: string;
    /** The reference's KV-cache type (with a KV-cache axis). */
    referenceKvCache?: string | null;
    /** Judged outcomes of the run; `model` is the file name without `.gguf`. */
    outcomes: readonly Outcome[];
    /** Token drift measured by the worker, when measured. */
    drift?: DriftReport;
    /** With a KV-cache axis: the drift of every file under each cache type, against the reference configuration. */
    drifts?: { kvCache: string | null; report: DriftReport }[];
    /** What the drift texts were. */
    driftSource: QuantReport["drift"]["source"];
    /** Number of drift texts. */
    driftTexts: number;
    /** The run's configurations, one per file. */
    configurations: StudyConfiguration[];
    /** Seed of the bootstrap intervals. */
    bootstrapSeed: number;
    /** Bits per weight per file path, when read. */
    bitsPerWeight?: Record<string, number>;
}

/**
 * Compares every file's outcomes with the reference's and joins drift and cost: the
 * report `eddy quant` prints. The cheapest file not significantly worse is the smallest
 * whose comparison says so (the reference always qualifies; a file with nothing compared does not).
 */
export function buildQuantReport(input: QuantReportInput): QuantReport {
    const byModel = new Map<string, Outcome[]>();
    for (const o of input.outcomes) {
        if (!byModel.has(o.model)) byModel.set(o.model, []);
        byModel.get(o.model)!.push(o);
    }
    const refKv = input.referenceKvCache ?? null;
    const labelOf = (f: { path: string; kvCache?: string | null; label?: string }): string => f.label ?? configKey(modelStem(f.path), cacheOf(f));
    const refEntry = input.files.find((f) => f.path === input.reference && cacheOf(f) === refKv);
    const refOutcomes = byModel.get(refEntry ? labelOf(refEntry) : configKey(modelStem(input.reference), refKv)) ?? [];
    const files: QuantFileReport[] = input.files.map((f) => {
        const kv = cacheOf(f);
        const label = labelOf(f);
        const isRef = f.path === input.reference && kv === refKv;
        const q = compareWithReference(refOutcomes, byModel.get(label) ?? [], { seed: input.bootstrapSeed });
        const driftOf = input.drifts ? input.drifts.find((d) => d.kvCache === kv)?.report : input.drift;
        const d = driftOf?.results.find((r) => r.file === f.path);
        const conf = input.configurations.find((c) => (c.label !== undefined ? c.label === label : c.modelPath && path.resolve(c.modelPath) === f.path && cacheOf(c) === kv));
        const lostFirst = [...q.flips.responseFlips].sort((a, b) => (a.direction === b.direction ? 0 : a.direction === "lost" ? -1 : 1));
        return {
            file: f.path,
            model: label,
            kv_cache: kv,
            // the header-derived type when the study recorded none (files without general.file_type)
            quantization: conf?.quantization && conf.quantization !== "unknown" ? conf.quantization : f.quantization,
            reference: isRef,
            size_bytes: f.sizeBytes,
            bits_per_weight: input.bitsPerWeight?.[f.path] ?? null,
            pass_at_1: passAt1(q.flips.responses),
            memory_bytes: d ? d.memory.modelRamBytes + d.memory.modelVramBytes + d.memory.contextBytes : null,
            prompt_tokens_per_s: conf?.promptTokensPerS ?? null,
            generation_tokens_per_s: conf?.generationTokensPerS ?? null,
            tokens_per_cpu_second: conf?.tokensPerCpuSecond ?? null,
            top1_agreement: d?.top1_agreement ?? null,
            kl_mean: d?.kl_mean ?? null,
            kl_p50: d?.kl_p50 ?? null,
            kl_p90: d?.kl_p90 ?? null,
            kl_p99: d?.kl_p99 ?? null,
            kl_max: d?.kl_max ?? null,
            drift_positions: d?.positions ?? 0,
            instances: q.instances,
            scores: q.scores,
            mcnemar: q.mcnemar,
            flip_counts: { responses: q.flips.responses, instances: q.flips.instances },
            response_flips: lostFirst,
            instance_flips: q.flips.instanceFlips,
            per_template: q.perTemplate,
            categories: q.categories,
            transitions: q.flips.transitions,
            not_worse: isRef ? true : q.instances === 0 || !q.evidence.enough ? null : q.notWorse,
            evidence: { reference_passed: q.evidence.referencePassed, needed: q.evidence.needed, enough: q.evidence.enough }
        };
    });
    const verdict = quantVerdict(files, input.study);
    const power = powerStatement(
        files.filter((f) => !f.reference).map((f) => ({ instances: f.instances, discordant: f.flip_counts.instances.lost + f.flip_counts.instances.gained })),
        { templates: input.study.templates.length }
    );
    return {
        runId: input.runId,
        db: input.db,
        reference: input.reference,
        study: input.study,
        drift: { source: input.driftSource, texts: input.driftTexts, vocabulary: input.drift?.vocabulary ?? null },
        files,
        cheapest_not_worse: verdict.file,
        verdict,
        power
    };
}

/** pass@1 of a file over the compared responses (the candidate side of the paired counts), with a 95% Wilson interval. */
function passAt1(c: FlipCounts): QuantFileReport["pass_at_1"] {
    const n = c.bothPassed + c.bothFailed + c.lost + c.gained;
    const passed = c.bothPassed + c.gained;
    const value = n > 0 ? passed / n : 0;
    return { value, ci: n > 0 ? wilsonInterval(passed, n) : { lo: 0, hi: 1 }, responses: n };
}

const label = (f: QuantFileReport): string => (f.quantization && f.quantization !== "unknown" ? f.quantization : path.basename(f.file)) + (f.kv_cache ? ` · KV ${f.kv_cache}` : "");

/** The label a configuration's outcomes carry: the file's stem, with `@kv=<type>` on the KV-cache axis (as the run labels it). */
export function configKey(stem: string, kv: string | null | undefined): string {
    return kv ? KV_CACHE_AXIS.label(stem, kv) : stem;
}

/** Bits per element of a KV-cache type (llama.cpp's block sizes), for ordering configurations of one file; default f16. */
export function kvBits(kv: string | null | undefined): number {
    return ({ f32: 32, f16: 16, bf16: 16, q8_0: 8.5, q5_1: 6, q5_0: 5.5, q4_1: 5, q4_0: 4.5, iq4_nl: 4.5 } as Record<string, number>)[kv ?? "f16"] ?? 16;
}

/**
 * The cheapest file not significantly worse than the reference, smallest first: a file that is
 * worse is passed over; one the data cannot decide (nothing compared, or too few reference passes for
 * any loss to be significant) stops the search, and the verdict says so and what would be enough,
 * rather than naming a file on no evidence.
 */
export function quantVerdict(files: readonly QuantFileReport[], study: QuantReport["study"]): QuantVerdict {
    // Smallest first: file size, then (one file under several caches) the smaller cache per element.
    for (const f of [...files].sort((a, b) => a.size_bytes - b.size_bytes || kvBits(a.kv_cache) - kvBits(b.kv_cache))) {
        if (f.not_worse === false) continue;
        if (f.not_worse === true) return { file: f.file, configuration: f.model, decided: true, text: `Cheapest ${f.kv_cache ? "configuration" : "file"} not significantly worse than the reference: ${label(f)} (${f.file})` };
        const e = f.evidence;
        const why =
            f.instances === 0
                ? "no instance could be compared (every pair had a truncated or judge_error answer)"
                : `the reference passed ${e.reference_passed} of the compared answers, and a loss is significant (McNemar, α = 0.05) only when at least ${e.needed} can be lost`;
        // Enough: R rounds on enough instances that the reference would pass `needed` answers at its pass rate.
        const passRate = f.scores.AS.reference;
        const rounds = Math.max(1, study.rounds);
        const instancesNeeded = passRate > 0 ? Math.ceil(e.needed / (passRate * rounds)) : null;
        const enough =
            f.instances === 0
                ? "answers that finish on both sides (raise --max-tokens or --context-size)"
                : instancesNeeded !== null
                ? `at least ${e.needed} reference passes: about ${instancesNeeded} instances per template × ${rounds} round(s) at the reference's AS of ${passRate.toFixed(2)} (e.g. -M ${Math.max(instancesNeeded, study.instances + 1)})`
                : `at least ${e.needed} reference passes: the reference solved nothing here, so ask templates it solves, or more instances (-M) and rounds (-R)`;
        return { file: null, configuration: null, decided: false, text: `Too little data to decide whether ${label(f)} is worse than the reference: ${why}. Enough would be ${enough}.` };
    }
    return { file: null, configuration: null, decided: true, text: "No file is not significantly worse than the reference." };
}

/** The KV-cache type a file or configuration of the comparison was studied with (null: llama.cpp's default). */
function cacheOf(entry: { kvCache?: string | null }): string | null {
    return entry.kvCache ?? null;
}
