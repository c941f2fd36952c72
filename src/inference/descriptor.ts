import type { z } from "zod";
import type { Language } from "../languages/languages.js";
import type { Template } from "../templates/types.js";
import type { DecodingMode } from "../vocabulary.js";
import type { SolutionSource } from "./reference/ReferenceBackend.js";

export type { SolutionSource };
import type { Backend, BackendMetadata } from "./types.js";

/** The settings a backend is made from (a study's, or a command's own). */
export interface BackendSettings {
    backend: string;
    /** The answers' language (the reference backend answers in it). */
    language?: Language;
    mode?: DecodingMode;
    gpu?: string;
    threads?: number;
    sequences?: number;
    batchSize?: number;
    groupSize?: number;
    groups?: number;
    contextSize?: number;
    promptFormat?: string;
    allowDownload?: boolean;
    /** The settings a backend owns (declared in its descriptor's `settings`), read by that backend alone. */
    readonly [ownSetting: string]: unknown;
}

/** What only some backends need: the model solutions (reference), a file read first (replay), the templates. */
export interface BackendParts {
    solutions?: SolutionSource;
    templates?: Template[];
    /** A backend opened before the run (the replay file, read and validated when the run is opened). */
    prepared?: Backend;
    onWarning?: (line: string) => void;
}

/** Where a backend's answers come from, as the settings name it: models (files or served names), or a replay file. */
export interface AnswerSources {
    models?: readonly string[];
    replay?: string;
}

/** One model of a study on a backend: its label, and the file (model files) or served name. */
export interface ModelSource {
    label: string;
    /** A model file (its presence is checked, its sha256 recorded). */
    path?: string;
    /** A model named to a server. */
    name?: string;
    /** The file the answers come from where it is not a model file (a replay file). */
    source?: string;
}

/**
 * How a backend schedules queries, which decides what a response depends on: "lockstep" (fixed groups
 * of G, each decoded together: reproducible), "free" (whatever runs beside), "remote" (a server's own
 * batching, which eddy cannot see: reproducible only where the server says so), "none" (no decoding).
 */
export type Scheduling = "lockstep" | "free" | "remote" | "none";

/** What makes a response for the response cache: the identity of what produced it and how prompts are made. */
export interface CacheIdentity {
    sha256: string;
    promptFormat?: string | undefined;
    contextSize?: number | undefined;
    mode?: string | undefined;
    /** Lockstep: the prompt chunk size (a member's answer depends on it). */
    batchSize?: number | undefined;
}

/** Settings a backend owns: merged into the study schema (identity: part of the run's hash; operational: taken fresh on resume). */
export interface BackendSettingShapes {
    identity: z.ZodRawShape;
    operational: z.ZodRawShape;
}

/** A CLI flag a backend owns; its value lands under `key` (commander's camel case of the long flag). */
export interface BackendOption {
    flags: string;
    description: string;
    key: string;
    /** The value names a file: made absolute. */
    path?: boolean;
}

/** What a server offers, for `eddy models list --base-url` and `eddy doctor --base-url`. */
export interface Offer {
    /** Where it was asked. */
    source: string;
    /** Who answered ("llama-server", "vllm", …) and facts about the whole server (build, slots, …). */
    engine: string;
    facts: Record<string, string | number>;
    /** Each model: its id and what the server reports about it. */
    models: { id: string; aliases: string[]; contextSize?: number; facts: Record<string, unknown> }[];
    /** Whether the setup is one known to answer reproducibly, and why. */
    reproducible: { known: boolean; why: string };
}

/** A backend's sources, prepared before a run is stored (a replay file read, its identity taken). */
export interface PreparedSources {
    parts: Pick<BackendParts, "prepared">;
    /** sha256 of a file standing for the model, and how to name it: the run refuses a changed one. */
    identity?: { sha256: string; what: string };
}

/**
 * What a backend is, for everyone outside src/inference: callers ask the descriptor instead of
 * comparing backend names, so a backend is added in one folder and one line (backends.ts).
 */
export interface BackendDescriptor {
    readonly name: string;
    /** One line for help texts. */
    readonly summary: string;
    /** What `--model` names: a model file, a model a server serves, or nothing (the backend answers itself). */
    readonly models: "file" | "served" | "none";
    /** Runs a model (a summariser can be asked through it). */
    readonly runsModel: boolean;
    /** Answers from the templates' model solutions: it needs a {@link SolutionSource} (the judge's). */
    readonly needsSolutions: boolean;
    /** Name of the engine that produced the answers, for exports. */
    readonly engine: string;
    /** What it records with a run, in words (README, doctor). */
    readonly records: readonly string[];
    /** Settings it owns (merged into the study's schema) and their flags. */
    readonly settings: BackendSettingShapes;
    readonly options: readonly BackendOption[];
    /** Flags a resume needs that the run does not store (a server's address: operational, so not part of the run). */
    resumeFlags?(settings: Readonly<Record<string, unknown>>): string[];
    /** How it schedules queries in a decoding mode. */
    scheduling(mode: DecodingMode): Scheduling;
    /** The setting that says how many queries run at once in a mode (what a determinism audit varies); undefined: none. */
    parallelSetting(mode: DecodingMode, groupSize: number | undefined): string | undefined;
    /** A model as given (flag or config file) made into what is stored: a file's absolute path, a URI or a served name as is. */
    resolveModel(model: string, baseDir: string): string;
    /** One line when the settings lack what it needs (undefined: nothing missing). */
    missing(settings: AnswerSources & Readonly<Record<string, unknown>>): string | undefined;
    /** Check the sources before a run is created (model files exist, remote ones allowed, URL well formed); throws one EddyError line. */
    checkSources(settings: BackendSettings & { models: readonly string[] }): void;
    /** A model of a run that has gone since (a model file deleted): one line, or undefined. */
    sourceGone(model: ModelSource): string | undefined;
    /** Read what must be read before anything is stored (a replay file). */
    readSources(settings: BackendSettings): PreparedSources;
    /** The "models" of a study on it: a label per answer source (and the model file's path, or the served name). */
    modelSources(sources: AnswerSources): ModelSource[];
    /** Identity of what produced the answers (a model file's, a served model's or a replay file's sha256); null when none. */
    identity(backend: Backend, meta: BackendMetadata): string | null;
    /** What identifies its responses in the response cache; undefined: its responses are not cached. */
    cacheIdentity(meta: BackendMetadata, identity: string | null): CacheIdentity | undefined;
    /** What a backend at an address offers (a server's models and what it reports about them); absent where there is nothing to ask. */
    offers?(settings: BackendSettings): Promise<Offer>;
    /** The backend for one model; load failures become one EddyError line. */
    open(settings: BackendSettings, model: ModelSource, parts: BackendParts): Promise<Backend>;
}
