import type { z } from "zod";
import type { Language } from "../languages/languages.js";
import type { Template } from "../templates/types.js";
import type { ChatMessage, DecodingMode } from "../vocabulary.js";
import type { SolutionSource } from "./reference/ReferenceBackend.js";

export type { SolutionSource };
import type { Backend, BackendMetadata } from "./types.js";

/** The settings a backend is made from (a study's, or a command's own). */
export interface BackendSettings {
    backend: string;
    /** The answers' language (the reference backend answers in it). */
    language?: Language;
    mode?: DecodingMode;
    /** CPU threads of a backend that computes here. */
    threads?: number;
    /** Lockstep: members per group (part of the run's identity). */
    groupSize?: number;
    contextSize?: number;
    promptFormat?: string;
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
    /** Stops opening the backend (Ctrl-C while a model loads); a backend that cannot be cut short is not waited for (src/util/abort.ts). */
    signal?: AbortSignal;
}

/** Where a backend's answers come from, as the settings name it: models (files or served names), or a replay file. */
export interface AnswerSources {
    models?: readonly string[];
    replay?: string;
    /** The model a replay file's answers come from, as named (default: the file's name). */
    replayModel?: string;
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
    /**
     * Settings this model runs with on top of the study's: one value of a comparison axis (`--kv-cache f16,q8_0`
     * makes each file a source per type, `{ kvCache: "q8_0" }`), which its label names too.
     */
    settings?: Readonly<Record<string, unknown>>;
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
    /** The KV-cache type, when one was chosen (`--kv-cache`): an answer under another cache is another answer. */
    kvCache?: string | undefined;
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

/** What a backend finds on this machine, for `eddy doctor`. */
export interface MachineCheck {
    /** Fields of doctor's JSON report. */
    report: Record<string, unknown>;
    /** Label and value lines for the terminal. */
    lines: [string, string][];
    /** What is wrong, one line each. */
    problems: string[];
}

/** One text to teacher-force. Only the positions that predict `completion` tokens are compared; the prompt is context. */
export interface ForcedText {
    /** Caller's label (e.g. `template#instance/round`), for error messages. */
    id?: string;
    /** Context fed before the compared tokens, as text (special tokens in it are parsed); may be empty. Ignored when `messages` is set. */
    prompt?: string;
    /** Context as chat messages, rendered exactly as generation renders them (the job's `promptFormat`). */
    messages?: ChatMessage[];
    /** The text whose tokens are compared position by position (e.g. the reference model's own answer). */
    completion: string;
}

/** What teacher forcing is asked: model files compared with a reference on the same texts. */
export interface TeacherForceJob {
    /** The reference model file (its tokenizer tokenises every text). */
    reference: string;
    /** Model files compared with the reference, one at a time (the reference itself may be among them). */
    candidates: string[];
    texts: ForcedText[];
    /** Threads; always explicit (a library default can be ~1000x slower on small machines). */
    threads: number;
    /** How `messages` become a prompt, as in generation. */
    promptFormat?: string;
    /** Most tokens of one text that are evaluated (longer texts are cut, and counted); default: the model's training context, at most 4096. */
    contextSize?: number;
    /** Upper bound on logits held at once (positions per chunk × vocabulary); default 2,000,000. */
    maxLogitsInFlight?: number;
    /** The backend's own settings for it (its {@link TeacherForcing.options}). */
    readonly [ownSetting: string]: unknown;
}

/** Receives the reference's and a candidate's next-token logits at each compared position (dense, by token id). */
export interface PositionComparer<S extends object> {
    add(reference: Float64Array, candidate: Float64Array): void;
    summary(): S;
}

/** Memory one loaded model took, as its engine accounts it. */
export interface ForcedMemory {
    /** Weights in RAM, bytes. */
    modelRamBytes: number;
    /** Weights in VRAM, bytes. */
    modelVramBytes: number;
    /** The evaluation context's footprint (KV cache and compute buffers, RAM + VRAM), bytes. */
    contextBytes: number;
}

/** One candidate compared with the reference: the comparer's summary and what it cost. */
export type ForcedResult<S extends object> = S & {
    /** The candidate file as given. */
    file: string;
    /** Texts cut to the context size. */
    truncated_texts: number;
    /** Teacher-forced evaluation speed of the candidate (all tokens fed, logits at every compared position), tokens/s. */
    eval_tokens_per_s: number;
    /** Memory of the candidate model and its context. */
    memory: ForcedMemory;
};

/** Everything a teacher-forcing job returns. */
export interface ForcedReport<S extends object> {
    reference: string;
    /** Vocabulary size shared by every file. */
    vocabulary: number;
    /** Texts compared. */
    texts: number;
    /** Memory of the reference model and its context. */
    referenceMemory: ForcedMemory;
    /** One result per candidate, in the job's order. */
    results: ForcedResult<S>[];
}

/** Teacher-forced comparison of model files (`eddy quant`'s token drift): only a backend that evaluates model files itself has it. */
export interface TeacherForcing {
    /** The backend's own settings of a job, from the study's settings and what its run recorded (the GPU, …). */
    options(settings: BackendSettings, recorded: Readonly<Record<string, unknown>>): Record<string, unknown>;
    /** Runs a job (call it in a child process: a native abort must not take the caller with it). */
    run<S extends object>(job: TeacherForceJob, comparer: () => PositionComparer<S>, onProgress: (file: string, done: number, total: number) => void): Promise<ForcedReport<S>>;
}

/** What `eddy demo` gives a backend to make its part of the demonstration study. */
export interface DemoContext {
    /** A folder for files it writes (beside the demo's database). */
    dir: string;
    templates: Template[];
    instances: number;
    rounds: number;
    seed: number;
    /** The judge's model solutions and oracle mutants (started on first use). */
    judge(): Promise<SolutionSource & { mutants(t: Template): Promise<string[]> }>;
}

/** A backend's part of `eddy demo`: the settings of its study and one sentence on how to read its row. */
export interface DemoStudy {
    settings: Record<string, unknown>;
    explains: string;
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
    /** The identity of a model before it is opened (a served model's, as its server reports it now), for a queued study's shards; absent: a model file's sha256 or the prepared source's stands. */
    modelIdentity?(settings: BackendSettings, model: ModelSource): Promise<string>;
    /** Identity of what produced the answers (a model file's, a served model's or a replay file's sha256); null when none. */
    identity(backend: Backend, meta: BackendMetadata): string | null;
    /** One line saying what answered, from its metadata (`eddy generate`'s stats). */
    describe(meta: BackendMetadata): string;
    /** What identifies its responses in the response cache; undefined: its responses are not cached. */
    cacheIdentity(meta: BackendMetadata, identity: string | null): CacheIdentity | undefined;
    /** What a backend at an address offers (a server's models and what it reports about them); absent where there is nothing to ask. */
    offers?(settings: BackendSettings): Promise<Offer>;
    /** The settings that say where {@link offers} asks (their flags are what `eddy models list` and `eddy doctor` take). */
    readonly offerKeys?: readonly string[];
    /** Teacher-forced comparison of its model files (`eddy quant`); absent where it cannot. */
    readonly teacherForcing?: TeacherForcing;
    /** The settings of a study that replays answers written elsewhere to `file` (its JSONL: template, instance, round, response per line), labelled `model` where given; absent where it does not. */
    replaysFile?(file: string, model?: string): Record<string, unknown>;
    /** Its study in `eddy demo`, with nothing but what eddy ships (absent: it has no part in the demo, e.g. it needs a server). */
    demo?(ctx: DemoContext): Promise<DemoStudy>;
    /** What it finds on this machine for `eddy doctor` (its engine, devices, thread choice); absent where there is nothing local to check. */
    checkMachine?(): Promise<MachineCheck>;
    /** The backend for one model; load failures become one EddyError line. */
    open(settings: BackendSettings, model: ModelSource, parts: BackendParts): Promise<Backend>;
}
