import type { TemplateLibrary } from "../../templates/library.js";
import type { GenerationKey, StoredInstance } from "../../store/types.js";
import type { AnswerCounts, ChatMessage } from "../../vocabulary.js";
import type { Decoding, StopReason } from "../../inference/types.js";
import type { Template } from "../../templates/types.js";

/** A snapshot of a running study, for progress displays. */
export interface StudyProgress {
    runId: string;
    /** Queries this session has to answer (after resume and cache), and how many are done. */
    total: number;
    generated: number;
    /** Answered from the response cache. */
    cached: number;
    /** Verdicts this session has to produce, and how many are done. */
    toJudge: number;
    judged: number;
    passed: number;
    tokens: number;
    errors: number;
    tokensPerS: number;
    verdictsPerS: number;
    /** Seconds left, estimated from the slower stage; undefined until there is a rate. */
    etaS: number | undefined;
    elapsedS: number;
    /** The model now generating. */
    model: string;
    /** True on the last snapshot of a session (the stage summary). */
    final?: boolean;
    /** What is happening while nothing is generated or judged yet ("validating oracles", "loading <model>"), or "". */
    phase?: string;
    /** Harness verdicts (truncated, judge_error) among `judged`. */
    harness?: number;
    /** Queries the whole run plans (0 when unknown), and responses and verdicts stored before this session. */
    planned?: number;
    before?: { generated: number; judged: number; harness?: number };
}

/** Per-stage throughput of one session of a study. */
export interface StudyStats {
    wallMs: number;
    /** regenerated: stored responses generated again with their lockstep group on resume; mismatched: those that differed (kept as stored). */
    generation: {
        responses: number; cached: number; missing: number; errors: number; regenerated: number; mismatched: number; tokens: number; wallMs: number; tokensPerS: number; responsesPerS: number;
    };
    judging: { verdicts: number; cached: number; wallMs: number; judgeMs: number; verdictsPerS: number };
    store: { rows: number; transactions: number; ms: number; rowsPerS: number };
}

/** Callbacks and switches for `runStudy`. */
export interface StudyHooks {
    /** Called about twice a second and at the end (the last call has `final: true`). */
    onProgress?(p: StudyProgress): void;
    /** Informational lines (warnings, missing answers). */
    onLog?(line: string): void;
    /** Called as soon as the run id is known. */
    onRunId?(id: string): void;
    /** Called when a model's generation is finished (tests use it to remove the next model). */
    onModelDone?(model: string): void;
    /** Aborting stops cleanly: queued queries are dropped, results already received are written and judged, run marked interrupted. */
    signal?: AbortSignal;
    /** false: generate and store only (benchmarks measure generation alone this way). */
    judge?: boolean;
    /** Progress interval, ms (default 500). */
    progressMs?: number;
    /** Where the templates and oracles come from (default: eddy's own; the CLI passes what EDDY_TEMPLATES/EDDY_ORACLES name). */
    library?: TemplateLibrary;
}

/** What a study session ends with. */
export interface StudyResult {
    runId: string;
    status: "complete" | "interrupted";
    /** True when this session created the run (false: resumed). */
    created: boolean;
    stats: StudyStats;
    /** Replay answers missing from the file: `template|instance|round`. */
    missing: string[];
    /** The run's answers after this session (planned, judged, passed, harness, missing: src/vocabulary.ts), as `runs list` and reports count them. */
    answers: AnswerCounts;
}

/** One query of the plan. */
export interface Query {
    key: GenerationKey;
    template: Template;
    instance: StoredInstance;
    messages: ChatMessage[];
    decoding: Decoding;
    seed: number;
    prefixKey: string;
    /** Response-cache key (llama backend with a hashed model file only); computed once per query. */
    cacheKey: string | undefined;
}

/** One response waiting for its verdict. */
export interface JudgeItem {
    key: GenerationKey;
    template: Template;
    instance: StoredInstance;
    code: string | null;
    stopReason: StopReason;
    /** Number of ``` fences in the response: two or more mean a code block was closed before any cut. */
    fences: number;
}

export const genKey = (k: { templateId: string; instance: number; round: number }): string => `${k.templateId}|${k.instance}|${k.round}`;
