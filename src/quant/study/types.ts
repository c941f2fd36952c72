import type { Category } from "../../vocabulary.js";
import type { McNemarResult } from "../../stats/index.js";
import type { TemplateBreakdown } from "../compare/compareWithReference.js";
import type { DeltaScore, ScoreDelta } from "../compare/scoreDeltas.js";
import type { TokenDrift } from "../drift/types.js";
import type { PowerStatement } from "../compare/power.js";
import type { FlipCounts, InstanceFlip, ResponseFlip } from "../flips/flips.js";

/** One GGUF file's line in a quantisation study: quality against the reference, drift (top-1 agreement and KL on the reference's own answers), and cost. */
export interface QuantFileReport extends TokenDrift {
    /** Absolute path of the GGUF file. */
    file: string;
    /** Model label in the store (file name without `.gguf`). */
    model: string;
    /** Quantisation type (e.g. Q4_K_M). */
    quantization: string | null;
    /** KV-cache type of this configuration (the KV-cache axis), null: llama.cpp's default. */
    kv_cache: string | null;
    /** True for the reference file. */
    reference: boolean;
    /** File size, bytes. */
    size_bytes: number;
    /** Bits per weight: tensor data bits over the parameter count (null when the header could not be read). */
    bits_per_weight: number | null;
    /** pass@1 (the share of compared responses that passed) with its 95% Wilson interval. */
    pass_at_1: { value: number; ci: { lo: number; hi: number }; responses: number };
    /** Memory llama.cpp accounts for the loaded weights plus one evaluation context, bytes; null when not measured. */
    memory_bytes: number | null;
    /** Prompt processing speed in the study, tokens/s per sequence; null without fresh generations. */
    prompt_tokens_per_s: number | null;
    /** Generation speed in the study, tokens/s per sequence; null without fresh generations. */
    generation_tokens_per_s: number | null;
    /**
     * Tokens generated per CPU-second of the inference process (user + system CPU of every thread, over the study's
     * generation of this configuration); null where nothing was generated here (every answer from the cache) or
     * the store predates the measurement.
     */
    tokens_per_cpu_second: number | null;
    /** Token positions the drift figures cover. */
    drift_positions: number;
    /** Instances compared with the reference. */
    instances: number;
    /** AS/CPS/CCS/RLPR/PSR of reference and file, delta (file − reference) with 95% paired bootstrap interval. */
    scores: Record<DeltaScore, ScoreDelta>;
    /** Exact McNemar on per-instance "all rounds passed" and per-response correctness (b = lost, c = gained). */
    mcnemar: { instance: McNemarResult; response: McNemarResult };
    /** Paired 2×2 counts per response and per instance. */
    flip_counts: { responses: FlipCounts; instances: FlipCounts };
    /** Flipped responses (drill-down: both verdicts and codes), lost first. */
    response_flips: ResponseFlip[];
    /** Flipped instances. */
    instance_flips: InstanceFlip[];
    /** Per-template scores and flips against the reference. */
    per_template: TemplateBreakdown[];
    /** Verdict categories of this file's responses. */
    categories: Record<Category, number>;
    /** Verdict transitions `"<reference>→<this file>"` → count. */
    transitions: Record<string, number>;
    /**
     * Not significantly worse than the reference (no score interval wholly below 0, no McNemar excess of losses at α = 0.05);
     * null when undecided: no instance could be compared, or too few reference passes for any loss to be significant.
     */
    not_worse: boolean | null;
    /** Reference passes among the compared responses, and how many a decision needs (see compareWithReference's evidence). */
    evidence: { reference_passed: number; needed: number; enough: boolean };
}

/** The study's answer, worded once for every renderer. */
export interface QuantVerdict {
    /** The file the verdict names (the cheapest one not significantly worse), or null. */
    file: string | null;
    /** The configuration it names (its model label in the run: the file, under its KV-cache type on that axis), or null. */
    configuration: string | null;
    /** True when the data can decide; false: too little data, and `text` says what would be enough. */
    decided: boolean;
    /** The verdict in one or two sentences. */
    text: string;
}

/** The result of `eddy quant`. */
export interface QuantReport {
    /** The run holding every file's study: one configuration per file (per file and cache type with a KV-cache axis). */
    runId: string;
    /** Database file. */
    db: string;
    /** The reference file. */
    reference: string;
    /** What was asked: the same for every file. */
    study: { templates: string[]; instances: number; rounds: number; seed: number; temperature: number; wrapper: string; maxTokens: number };
    /** What the token drift was measured on. */
    drift: { source: "reference answers" | "fixed texts" | "skipped"; texts: number; vocabulary: number | null };
    /** Every file, most precise first. */
    files: QuantFileReport[];
    /** The smallest file not significantly worse than the reference (the reference when none smaller is); null when a smaller file is undecided. */
    cheapest_not_worse: string | null;
    /** The verdict every renderer prints (text and HTML say the same). */
    verdict: QuantVerdict;
    /** What this study could have detected: smallest detectable drop, instances for a 2-point drop (from the reference's discordance with the files). */
    power: PowerStatement;
}
