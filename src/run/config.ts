import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import YAML from "yaml";
import { EddyError, oneLine } from "../util/errors.js";
import { z } from "zod";
import { boolField, field, intField, intSetting, numberSetting, strField } from "../util/settings.js";
import { DECODING_MODES, type DecodingMode } from "../vocabulary.js";
import { DEFAULT_LANGUAGE, parseLanguage } from "../languages/languages.js";

import { BACKEND_IDENTITY_SETTINGS, BACKEND_OPERATIONAL_SETTINGS, BACKEND_PATH_KEYS, backendDescriptor, settingOwner, DEFAULT_BACKEND, type BackendName } from "../inference/backends.js";

/** Defaults from the method (SPEC §1): M = 100, R = 5, greedy. */
export const STUDY_DEFAULTS = {
    templates: "all",
    instances: 100,
    rounds: 5,
    temperatures: [0],
    wrappers: ["default"],
    seed: 1,
    maxTokens: 512,
    backend: DEFAULT_BACKEND as BackendName
};

/** G, members per lockstep group, unless set: fixed (never chosen from the hardware), so runs anywhere compare. */
export const DEFAULT_GROUP_SIZE = 8;

const ALIASES: Record<string, string> = {
    model: "models",
    template: "templates",
    temperature: "temperatures",
    wrapper: "wrappers",
    "max-tokens": "maxTokens",
    max_tokens: "maxTokens",
    "judge-workers": "judgeWorkers",
    judge_workers: "judgeWorkers",
    "no-cache": "noCache",
    no_cache: "noCache",
    "top-k": "topK",
    "top-p": "topP",
    "min-p": "minP",
    "repeat-penalty": "repeatPenalty",
    "context-size": "contextSize",
    "batch-size": "batchSize",
    "group-size": "groupSize",
    group_size: "groupSize",
    "prompt-format": "promptFormat",
    "allow-download": "allowDownload",
    "allow-unsandboxed": "allowUnsandboxed",
    allow_unsandboxed: "allowUnsandboxed"
};


/** Read a study config file (YAML or JSON; the same keys as the flags). Keys `db` and `resume` come back apart. */
export function readConfigFile(file: string): Record<string, unknown> {
    let text: string;
    try {
        text = readFileSync(file, "utf8");
    } catch {
        throw new EddyError(`cannot read config file ${file}`);
    }
    let data: unknown;
    try {
        data = /\.json$/i.test(file) ? JSON.parse(text) : YAML.parse(text);
    } catch (err) {
        throw new EddyError(`config file ${file} is not valid ${/\.json$/i.test(file) ? "JSON" : "YAML"}: ${oneLine(err)}`);
    }
    if (!data || typeof data !== "object" || Array.isArray(data)) throw new EddyError(`config file ${file} must hold a mapping of settings`);
    return data as Record<string, unknown>;
}

const list = (v: unknown): unknown[] =>
    v === undefined ? [] : (Array.isArray(v) ? v : [v]).flatMap((x) => (typeof x === "string" ? x.split(",").map((s) => s.trim()).filter(Boolean) : [x]));

export { field } from "../util/settings.js";
const bool = boolField;
export const str = strField;
export const int = intField;
const num = (name: string, min: number, max = Infinity) => field((v) => numberSetting(name, v, min, max));
const strings = field((v) => list(v).map(String));


/**
 * The one schema of study settings: `eddy run`, `eddy generate`, `eddy quant`, `--config` files and a
 * resumed run's stored configuration are all read through it, so every setting has one name, one
 * default and one bound everywhere. Input values may be strings (flags) or typed (config files).
 */
/** The settings that define what a study computes (its identity). */
const identitySettings = z.object({
    /** GGUF files (llama backend). */
    models: strings.optional(),
    /** Comma-joined (a list of ids, or `all`, or a group): selected against the library when the run is planned. */
    templates: field((v) => list(v).map(String).join(",")).optional(),
    /** M: instances per template. */
    instances: int("instances", 1).optional(),
    /** R: rounds per instance. */
    rounds: int("rounds", 1).optional(),
    temperatures: field((v) => list(v).map((t) => numberSetting("temperature", t, 0, 5))).optional(),
    /** Prompt wrapper ids or files. */
    wrappers: strings.optional(),
    /** Run seed: instances and every per-request seed derive from it. */
    seed: int("seed", 0).optional(),
    maxTokens: int("max tokens", 1).optional(),
    backend: field((v) => {
        return backendDescriptor(String(v)).name as BackendName;
    }).optional(),
    /**
     * The language questions are asked and answers judged in; absent means python, so that a
     * Python run's identity (and hash) is what it was before languages existed.
     */
    language: field(parseLanguage).optional(),
    /** Sampling knobs beyond temperature (only apply when sampling). */
    topK: int("top-k", 0).optional(),
    topP: num("top-p", 0, 1).optional(),
    minP: num("min-p", 0, 1).optional(),
    repeatPenalty: num("repeat penalty", 0).optional(),
    /**
     * How responses are computed (llama): "reproducible" (the default: byte-identical across runs, resumes,
     * rounds and sequence counts) or "fast" (opt-in batching whose results can depend on what ran beside).
     * Part of the run's identity; reports show it beside the scores.
     */
    mode: field((v) => {
        if (!(DECODING_MODES as readonly string[]).includes(String(v))) throw new EddyError(`mode must be one of ${DECODING_MODES.join(", ")} (got '${String(v)}')`);
        return String(v) as DecodingMode;
    }).optional(),
    /** `--fast` / `fast: true`: shorthand for mode fast. */
    fast: bool.optional(),
    /** Before mode existed: true meant reproducible, absent meant fast (stored configurations of older runs). */
    reproducible: bool.optional(),
    /**
     * Reproducible mode (llama): members per lockstep group, G. The plan's queries are cut into groups
     * of G, each decoded together in one context, so a response depends on its group's queries and G
     * (and never on timing); 1 gives every query a context of its own. Part of the run's identity.
     */
    groupSize: field((v) => {
        const g = intSetting("group size", v, 1);
        if (g > 64) throw new EddyError(`group size must be at most 64 (got ${g})`);
        return g;
    }).optional(),
    contextSize: int("context size", 16).optional(),
    /** llama: auto (the GGUF's chat template, or a plain completion prompt when it has none) | gguf-chat-template | plain-completion | a chat wrapper name. */
    promptFormat: str.optional(),
    /** What each backend owns (the replay file, …): declared in its descriptor. */
    ...BACKEND_IDENTITY_SETTINGS
});

/** Operational settings: they change how fast, not what, so they are not part of the run's identity and are taken fresh on resume. */
const operationalSettings = z.object({
    /** How each backend runs (GPU, a server's address, …): declared in its descriptor. */
    ...BACKEND_OPERATIONAL_SETTINGS,
    /** CPU threads of a backend that computes here (a served model's are the server's own). */
    threads: int("threads", 1).optional(),
    judgeWorkers: int("judge workers", 1).optional(),
    /** Let the judge run candidate code without a sandbox where none can be had (the judge refuses otherwise). */
    allowUnsandboxed: bool.optional(),
    /** Do not answer from the response cache (responses are still written to it). */
    noCache: bool.optional(),
    /** Always start a new run, even when one with the same configuration exists. */
    fresh: bool.optional(),
    /** Database file (default: the embedded one). */
    db: str.optional(),
    /** Continue this run (its stored configuration wins over everything but the operational settings). */
    resume: str.optional()
});

export const studySettingsSchema = identitySettings.extend(operationalSettings.shape).strict();

/** Every key the schema knows, in its order. */
export const STUDY_SETTING_KEYS = Object.keys(studySettingsSchema.shape) as (keyof typeof studySettingsSchema.shape)[];

/** Settings that do not change results: excluded from the run identity, taken fresh on resume. */
export const OPERATIONAL_KEYS = Object.keys(operationalSettings.shape) as (keyof typeof operationalSettings.shape)[];

/** Settings as the schema reads them (every one optional). */
export type StudySettings = z.output<typeof studySettingsSchema>;
/** Settings normalisation always fills in. */
type FilledKey = "models" | "templates" | "instances" | "rounds" | "temperatures" | "wrappers" | "seed" | "maxTokens" | "backend" | "mode";
/** Input-only spellings that normalisation folds into `mode`. */
type InputOnlyKey = "fast" | "reproducible";

/**
 * A study: models × templates × temperatures × wrappers, M instances, R rounds: the schema's settings
 * after {@link normalizeStudyConfig} (defaults filled in, `--fast`/`reproducible` folded into `mode`).
 */
export type StudyConfig = Omit<StudySettings, FilledKey | InputOnlyKey> & Required<Pick<StudySettings, FilledKey>>;

/**
 * Parse raw settings with a settings schema (the study's, or one that extends it); aliases (flag
 * spellings) are folded in, a key the schema does not know and the first bad value each become
 * eddy's one-line error.
 */
export function parseSettings<S extends z.ZodObject>(schema: S, raw: Record<string, unknown>, aliases: Record<string, string> = {}): z.output<S> {
    const known = Object.keys(schema.shape);
    const r: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(raw)) {
        if (v === undefined || v === null) continue;
        const key = (Object.hasOwn(aliases, k) ? aliases[k] : Object.hasOwn(ALIASES, k) ? ALIASES[k] : undefined) ?? k;
        if (!known.includes(key)) throw new EddyError(`unknown setting '${k}' (known: ${known.join(", ")})`);
        r[key] = v;
    }
    const parsed = schema.safeParse(r);
    if (!parsed.success) throw new EddyError(parsed.error.issues[0]?.message ?? "invalid settings");
    return parsed.data;
}

/** Parse raw settings with the study schema; the first problem becomes eddy's one-line error. */
export function parseStudySettings(raw: Record<string, unknown>): StudySettings {
    return parseSettings(studySettingsSchema, raw);
}

/**
 * Validate and complete raw settings (from flags and/or a config file; later sources win)
 * into a StudyConfig. Paths are made absolute against `baseDir` (a config file's folder).
 */
export function normalizeStudyConfig(raw: Record<string, unknown>, baseDir = process.cwd()): StudyConfig {
    return completeStudyConfig(parseStudySettings(raw), baseDir);
}

/** Parsed settings completed into a StudyConfig: defaults, absolute paths, the mode, G, what the backend needs. */
export function completeStudyConfig(s: StudySettings, baseDir = process.cwd()): StudyConfig {
    const backend = s.backend ?? STUDY_DEFAULTS.backend;
    const descriptor = backendDescriptor(backend);
    const models = (s.models ?? []).map((m) => descriptor.resolveModel(m, baseDir));
    const own: Record<string, unknown> = {};
    for (const k of BACKEND_PATH_KEYS) if ((s as Record<string, unknown>)[k] !== undefined) own[k] = path.resolve(baseDir, String((s as Record<string, unknown>)[k]));
    const missing = descriptor.missing({ ...s, ...own, models });
    if (missing) throw new EddyError(missing);
    const temperatures = s.temperatures ?? STUDY_DEFAULTS.temperatures;
    if (temperatures.length === 0) throw new EddyError("no temperature given");
    if (s.fast && s.mode === "reproducible") throw new EddyError("--fast and mode reproducible contradict each other");
    const mode: DecodingMode = s.fast ? "fast" : (s.mode ?? (s.reproducible === false ? "fast" : "reproducible"));
    if (mode === "fast" && s.groupSize !== undefined) throw new EddyError("--group-size applies to the reproducible mode; --fast schedules sequences freely (give one or the other)");
    const { fast: _fast, reproducible: _reproducible, models: _m, templates: _t, temperatures: _temps, wrappers: _w, groupSize: _g, language, ...given } = s;
    // What another backend answers from (a replay file given to a llama run) does not describe this run, nor enter its identity.
    const rest = Object.fromEntries(Object.entries({ ...given, ...own }).filter(([k]) => !Object.hasOwn(BACKEND_IDENTITY_SETTINGS, k) || settingOwner(k) === backend)) as typeof given;
    // Only a backend that decodes in lockstep has groups: the other backends' runs keep the identity they had.
    const groupSize = descriptor.scheduling(mode) === "lockstep" ? (s.groupSize ?? DEFAULT_GROUP_SIZE) : undefined;
    const out: StudyConfig = {
        ...STUDY_DEFAULTS,
        ...rest,
        models: descriptor.models !== "none" ? [...new Set(models)] : [],
        templates: s.templates ?? STUDY_DEFAULTS.templates,
        temperatures: [...new Set(temperatures)],
        wrappers: [...new Set(s.wrappers ?? STUDY_DEFAULTS.wrappers)],
        backend,
        mode,
        ...(groupSize !== undefined ? { groupSize } : {}),
        ...(language !== undefined && language !== DEFAULT_LANGUAGE ? { language } : {}),
        ...(s.db !== undefined ? { db: path.resolve(baseDir, s.db) } : {})
    };
    return out;
}

/** The part of a config that defines what a run computes (no operational settings). */
export function identityOf(c: StudyConfig): Record<string, unknown> {
    const out: Record<string, unknown> = { ...c };
    for (const k of OPERATIONAL_KEYS) delete out[k];
    return out;
}

/** Stable hash of a study's identity: the same config again continues the same run. */
export function studyHash(c: StudyConfig, resolvedTemplateIds: string[]): string {
    const id = identityOf(c);
    const canonical = JSON.stringify({ ...id, templates: resolvedTemplateIds }, Object.keys({ ...id, templates: 0 }).sort());
    return createHash("sha256").update(canonical).digest("hex");
}
