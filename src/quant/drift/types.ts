import type { ForcedReport, ForcedResult, ForcedText, TeacherForceJob } from "../../inference/backends.js";

/** One text to teacher-force (only the positions predicting `completion` are compared). */
export type DriftText = ForcedText;

/** Token-drift figures of one model against the reference, as the drift measurement and the quantisation report both state them. */
export interface TokenDrift {
    /** Fraction of compared positions where both models' most likely next token is the same; null with no positions. */
    top1_agreement: number | null;
    /** Mean KL(reference ‖ candidate) of the next-token distributions, nats. */
    kl_mean: number | null;
    /** Median KL, nats. */
    kl_p50: number | null;
    /** 90th percentile KL, nats. */
    kl_p90: number | null;
    /** 99th percentile KL, nats. */
    kl_p99: number | null;
    /** Largest KL at any position, nats. */
    kl_max: number | null;
}

/** Token drift of one candidate against the reference over all compared positions. */
export interface DriftSummary extends TokenDrift {
    /** Positions compared (one per completion token, over all texts). */
    positions: number;
}

/** What the drift worker is asked to do: a teacher-forcing job, and the backend that runs it. */
export interface DriftJob extends TeacherForceJob {
    /** The backend whose teacher forcing runs it (default: the one that evaluates model files itself, teacherForcingBackend). */
    backend?: string;
}

/** Drift of one candidate file against the reference. */
export type DriftResult = ForcedResult<DriftSummary>;

/** Everything the drift worker returns. */
export type DriftReport = ForcedReport<DriftSummary>;

/** Messages the worker sends to its parent. */
export type DriftWorkerMessage =
    | { type: "progress"; file: string; done: number; total: number }
    | { type: "result"; report: DriftReport }
    | { type: "error"; message: string };
