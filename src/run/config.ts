import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import YAML from "yaml";
import { EddyError, oneLine } from "../util/errors.js";
import { isRemoteModel } from "../inference/modelUri.js";
import { intSetting as int, numberSetting as num } from "../util/settings.js";
import { GPU_CHOICES } from "../inference/llama/types.js";

/** Which backend answers the questions. */
export const BACKENDS = ["llama", "reference", "replay"] as const;
export type BackendName = (typeof BACKENDS)[number];

/** A study: models × templates × temperatures × wrappers, M instances, R rounds. */
export interface StudyConfig {
    /** GGUF files (llama backend). */
    models: string[];
    /** `all`, a problem group, or comma-separated template ids. */
    templates: string;
    /** M: instances per template. */
    instances: number;
    /** R: rounds per instance. */
    rounds: number;
    temperatures: number[];
    /** Prompt wrapper ids or files. */
    wrappers: string[];
    /** Run seed: instances and every per-request seed derive from it. */
    seed: number;
    maxTokens: number;
    backend: BackendName;
    /** JSONL of responses (replay backend). */
    replay?: string;
    /** Sampling knobs beyond temperature (only apply when sampling). */
    topK?: number;
    topP?: number;
    minP?: number;
    repeatPenalty?: number;
    /** Exact reproduction of seeded sampling at some speed cost (llama). */
    reproducible?: boolean;
    contextSize?: number;
    /** llama: auto (the GGUF's chat template, or a plain completion prompt when it has none) | gguf-chat-template | plain-completion | a chat wrapper name. */
    promptFormat?: string;
    // Operational settings: they change how fast, not what, so they are not part of the run's identity.
    threads?: number;
    sequences?: number;
    batchSize?: number;
    gpu?: string;
    judgeWorkers?: number;
    /** Do not answer from the response cache (responses are still written to it). */
    noCache?: boolean;
    /** Let an `hf:` model URI be downloaded (never by default). */
    allowDownload?: boolean;
    /** Always start a new run, even when one with the same configuration exists. */
    fresh?: boolean;
    /** Database file (default: the embedded one). */
    db?: string;
    /** Continue this run (its stored configuration wins over everything but the operational settings). */
    resume?: string;
}

/** Settings that do not change results: excluded from the run identity, taken fresh on resume. */
export const OPERATIONAL_KEYS = ["threads", "sequences", "batchSize", "gpu", "judgeWorkers", "noCache", "fresh", "db", "resume", "allowDownload"] as const;

/** Defaults from the method (SPEC §1): M = 100, R = 5, greedy. */
export const STUDY_DEFAULTS = {
    templates: "all",
    instances: 100,
    rounds: 5,
    temperatures: [0],
    wrappers: ["default"],
    seed: 1,
    maxTokens: 512,
    backend: "llama" as BackendName
};

const ALIASES: Record<string, keyof StudyConfig> = {
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
    "prompt-format": "promptFormat",
    "allow-download": "allowDownload"
};

const KNOWN = new Set<string>([
    "models", "templates", "instances", "rounds", "temperatures", "wrappers", "seed", "maxTokens", "backend", "replay",
    "topK", "topP", "minP", "repeatPenalty", "reproducible", "contextSize", "threads", "sequences", "batchSize", "gpu",
    "judgeWorkers", "noCache", "fresh", "db", "resume", "promptFormat", "allowDownload"
]);

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

/**
 * Validate and complete raw settings (from flags and/or a config file; later sources win)
 * into a StudyConfig. Paths are made absolute against `baseDir` (a config file's folder).
 */
export function normalizeStudyConfig(raw: Record<string, unknown>, baseDir = process.cwd()): StudyConfig {
    const r: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(raw)) {
        if (v === undefined) continue;
        const key = ALIASES[k] ?? k;
        if (!KNOWN.has(key)) throw new EddyError(`unknown setting '${k}' (known: ${[...KNOWN].join(", ")})`);
        r[key] = v;
    }
    const backend = String(r.backend ?? STUDY_DEFAULTS.backend);
    if (!(BACKENDS as readonly string[]).includes(backend)) throw new EddyError(`unknown backend '${backend}' (use ${BACKENDS.join(", ")})`);
    const models = list(r.models).map((m) => (isRemoteModel(String(m)) ? String(m) : path.resolve(baseDir, String(m))));
    if (backend === "llama" && models.length === 0) throw new EddyError("no model given: pass --model <file.gguf> (or use --backend reference|replay)");
    const replay = r.replay === undefined ? undefined : path.resolve(baseDir, String(r.replay));
    if (backend === "replay" && !replay) throw new EddyError("--backend replay needs --replay <file.jsonl>");
    const temperatures = r.temperatures === undefined ? STUDY_DEFAULTS.temperatures : list(r.temperatures).map((t) => num("temperature", t, 0, 5));
    if (temperatures.length === 0) throw new EddyError("no temperature given");
    const wrappers = r.wrappers === undefined ? STUDY_DEFAULTS.wrappers : list(r.wrappers).map(String);
    const opt = (k: keyof StudyConfig, f: (v: unknown) => unknown): Record<string, unknown> => (r[k] === undefined ? {} : { [k]: f(r[k]) });
    const bool = (v: unknown): boolean => v === true || v === "true" || v === 1;
    return {
        models: backend === "llama" ? [...new Set(models)] : [],
        templates: list(r.templates ?? STUDY_DEFAULTS.templates).map(String).join(","),
        instances: int("instances", r.instances ?? STUDY_DEFAULTS.instances, 1),
        rounds: int("rounds", r.rounds ?? STUDY_DEFAULTS.rounds, 1),
        temperatures: [...new Set(temperatures)],
        wrappers: [...new Set(wrappers)],
        seed: int("seed", r.seed ?? STUDY_DEFAULTS.seed, 0),
        maxTokens: int("max tokens", r.maxTokens ?? STUDY_DEFAULTS.maxTokens, 1),
        backend: backend as BackendName,
        ...(backend === "replay" ? { replay } : {}),
        ...opt("topK", (v) => int("top-k", v, 0)),
        ...opt("topP", (v) => num("top-p", v, 0, 1)),
        ...opt("minP", (v) => num("min-p", v, 0, 1)),
        ...opt("repeatPenalty", (v) => num("repeat penalty", v, 0)),
        ...opt("reproducible", bool),
        ...opt("contextSize", (v) => int("context size", v, 16)),
        ...opt("promptFormat", (v) => String(v)),
        ...opt("allowDownload", bool),
        ...opt("threads", (v) => int("threads", v, 1)),
        ...opt("sequences", (v) => int("sequences", v, 1)),
        ...opt("batchSize", (v) => int("batch size", v, 1)),
        ...opt("gpu", (v) => {
            if (!(GPU_CHOICES as readonly string[]).includes(String(v))) throw new EddyError(`--gpu must be one of ${GPU_CHOICES.join(", ")} (got '${String(v)}')`);
            return String(v);
        }),
        ...opt("judgeWorkers", (v) => int("judge workers", v, 1)),
        ...opt("noCache", bool),
        ...opt("fresh", bool),
        ...opt("db", (v) => path.resolve(baseDir, String(v))),
        ...opt("resume", String)
    } as StudyConfig;
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
