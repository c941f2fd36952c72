import type { Language } from "../languages/languages.js";
import type { Template } from "../templates/types.js";
import type { DecodingMode } from "../vocabulary.js";
import type { SolutionSource } from "./reference/ReferenceBackend.js";
import type { ReplayBackend } from "./replay/ReplayBackend.js";
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
}

/** What only some backends need: the model solutions (reference), the replay file already read, the templates. */
export interface BackendParts {
    solutions?: SolutionSource;
    templates?: Template[];
    replay?: ReplayBackend;
    onWarning?: (line: string) => void;
}

/** Where a backend's answers come from, as the settings name it: model files, or a replay file. */
export interface AnswerSources {
    models?: readonly string[];
    replay?: string;
}

/**
 * What a backend is, for everyone outside src/inference: callers ask the descriptor instead of
 * comparing backend names, so a backend is added in one folder and one table (backends.ts).
 */
export interface BackendDescriptor {
    readonly name: string;
    /** Runs a model file: it needs one, decodes in lockstep groups, caches responses, checks the file. */
    readonly decodes: boolean;
    /** Answers from the templates' model solutions: it needs a {@link SolutionSource} (the judge's). */
    readonly needsSolutions: boolean;
    /** Answers from a file of responses (`--replay`). */
    readonly needsReplayFile: boolean;
    /** Name of the engine that produced the answers, for exports. */
    readonly engine: string;
    /** One line when the settings lack what it needs (undefined: nothing missing). */
    missing(sources: AnswerSources): string | undefined;
    /** The "models" of a study on it: a label per answer source (and the model file's path). */
    models(sources: AnswerSources): { label: string; path?: string }[];
    /** Identity of what produced the answers (a model file's or a replay file's sha256); null when none. */
    identity(backend: Backend, meta: BackendMetadata): string | null;
    /** The backend for one model (a GGUF path for llama); load failures become one EddyError line. */
    open(settings: BackendSettings, model: { path?: string }, parts: BackendParts): Promise<Backend>;
}
