import { note, warn } from "../messages.js";
import path from "node:path";
import type { Command } from "commander";
import { BACKEND_IDENTITY_SETTINGS, BACKEND_OPERATIONAL_SETTINGS, BACKEND_OPTIONS, BACKEND_PATH_KEYS, backendDescriptor, DEFAULT_BACKEND } from "../../inference/backends.js";
import { DEFAULT_GROUP_SIZE, normalizeStudyConfig, OPERATIONAL_KEYS, parseStudySettings, readConfigFile, STUDY_DEFAULTS, type StudyConfig } from "../../run/config.js";
import { defaultDbPath } from "../../util/paths.js";

/** Collect a repeatable option, splitting commas. */
export const collect = (v: string, prev: string[] = []): string[] => [...prev, ...v.split(",").map((s) => s.trim()).filter(Boolean)];

/** --temperature, declared once: one value (generate, audit, loop, quant) or a list (run, mutate); 0 is greedy. */
export const TEMPERATURE_OPTION = {
    one: ["--temperature <t>", "sampling temperature, one value; 0 is greedy (default 0)"],
    list: ["--temperature <t[,t...]>", "sampling temperature(s); 0 is greedy (default 0)"]
} as const satisfies Record<string, [flags: string, description: string]>;

/** The study flags `eddy run` and `eddy quant` share, as commander parses them (strings until normalised). */
export interface StudyFlags {
    /** -t, --templates */
    templates?: string;
    /** -M, --instances */
    instances?: string;
    /** -R, --rounds */
    rounds?: string;
    /** --temperature */
    temperature?: string;
    /** --wrapper (repeatable) */
    wrapper?: string[];
    /** --seed */
    seed?: string;
    /** --max-tokens */
    maxTokens?: string;
    /** --threads */
    threads?: string;
    /** --group-size */
    groupSize?: string;
    /** --context-size */
    contextSize?: string;
    /** --prompt-format */
    promptFormat?: string;
    /** --fast */
    fast?: boolean;
    /** --reproducible (the default; kept so older scripts still run) */
    reproducible?: boolean;
    /** --allow-unsandboxed */
    allowUnsandboxed?: boolean;
    /** --top-k */
    topK?: string;
    /** --top-p */
    topP?: string;
    /** --min-p */
    minP?: string;
    /** --repeat-penalty */
    repeatPenalty?: string;
    /** --judge-workers */
    judgeWorkers?: string;
    /** false with --no-cache */
    cache?: boolean;
    /** --fresh */
    fresh?: boolean;
    /** --config */
    config?: string;
    /** --db */
    db?: string;
}

/** Everything {@link studyConfigFromFlags} reads: the shared flags plus those only `eddy run` exposes (`eddy quant` fills model and backend itself). */
export interface StudyConfigFlags extends StudyFlags {
    /** -m, --model (repeatable) */
    model?: string[];
    /** --backend */
    backend?: string;
    /** Each backend's own flags (--replay, --base-url, --gpu, …), by their keys. */
    [backendFlag: string]: unknown;
    /** --language */
    language?: string;
    /** --resume */
    resume?: string;
}

/** The help texts that differ between the commands sharing the study options. */
export interface StudyOptionTexts {
    /** Flags and description of --temperature (one value or a list). */
    temperature: [flags: string, description: string];
    /** Description of --wrapper. */
    wrapper: string;
    /** Description of --threads. */
    threads: string;
    /** Description of --config. */
    config: string;
}

/** What the study asks: -t, -M, -R, --temperature, --wrapper, --seed, --max-tokens. */
export function addStudyShapeOptions(cmd: Command, texts: StudyOptionTexts): Command {
    return cmd
        .option("-t, --templates <spec>", `templates: all, a problem group, or comma-separated ids (default ${STUDY_DEFAULTS.templates})`)
        .option("-M, --instances <M>", `instances per template (default ${STUDY_DEFAULTS.instances})`)
        .option("-R, --rounds <R>", `rounds per instance (default ${STUDY_DEFAULTS.rounds})`)
        .option(...texts.temperature)
        .option("--wrapper <id>", texts.wrapper, collect)
        .option("--seed <S>", `run seed: instances and per-request seeds derive from it (default ${STUDY_DEFAULTS.seed})`)
        .option("--max-tokens <N>", `maximum generated tokens per response (default ${STUDY_DEFAULTS.maxTokens})`);
}

/** How the study is executed: inference, sampling and judging settings, from --threads to --no-cache. */
export function addStudyExecutionOptions(cmd: Command, texts: StudyOptionTexts): Command {
    cmd
        .option("--threads <n>", texts.threads)
        .option("--group-size <G>", `queries decoded together in lockstep, in one context (default ${DEFAULT_GROUP_SIZE}); part of the run's identity; 1 gives every query a context of its own`)
        .option("--context-size <n>", "context size in tokens")
        .option("--prompt-format <fmt>", "auto (the GGUF's chat template, or the server's; a plain completion prompt when the file has none) | gguf-chat-template | plain-completion (the server's completions endpoint) | raw | a node-llama-cpp chat wrapper name")
        .option("--fast", "batch sequences in one shared context, scheduled freely, and reuse evaluated prompts: responses can differ between runs, rounds and sequence counts (recorded on the run)")
        .option("--reproducible", "the default: byte-identical responses across runs, resumes and --groups/--sequences counts")
        .option("--allow-unsandboxed", "let the judge run candidate code without a sandbox where none can be had")
        .option("--top-k <k>", "top-k when sampling")
        .option("--top-p <p>", "top-p when sampling")
        .option("--min-p <p>", "min-p when sampling")
        .option("--repeat-penalty <x>", "repeat penalty (off unless given)")
        .option("--judge-workers <n>", "parallel judge processes")
        .option("--no-cache", "generate again even when an identical query was answered in an earlier run");
    return addBackendOptions(cmd);
}

/** Every backend's own flags, as its descriptor declares them (a command that words one itself keeps its own). */
export function addBackendOptions(cmd: Command): Command {
    for (const o of BACKEND_OPTIONS) {
        const long = o.flags.split(/[ ,]+/).find((f) => f.startsWith("--"));
        if (!cmd.options.some((x) => x.long === long)) cmd.option(o.flags, o.description);
    }
    return cmd;
}

/** Which run and where: --fresh, --config, --db. */
export function addStudyStoreOptions(cmd: Command, texts: StudyOptionTexts): Command {
    return cmd
        .option("--fresh", "start a new run even if one with this configuration exists")
        .option("--config <file>", texts.config)
        .option("--db <file>", `database file (default ${path.relative(process.cwd(), defaultDbPath()) || defaultDbPath()})`);
}

/** The settings each backend owns, read off parsed flags by their keys (a path made absolute): what a command passes on without knowing them. */
export function backendFlagValues(f: Readonly<Record<string, unknown>>): Record<string, unknown> {
    const own: Record<string, unknown> = {};
    for (const k of Object.keys({ ...BACKEND_IDENTITY_SETTINGS, ...BACKEND_OPERATIONAL_SETTINGS })) {
        const v = f[k];
        if (v !== undefined) own[k] = BACKEND_PATH_KEYS.includes(k) ? path.resolve(String(v)) : v;
    }
    return own;
}

/**
 * Flags and config file merged (flags win) into raw settings, paths made absolute (a file's against
 * its folder): what the settings schema reads, for `eddy run` and, with its own keys in `extra`, `eddy loop run`.
 */
export function settingsFromFlags(f: StudyConfigFlags, extra: Record<string, unknown> = {}): { merged: Record<string, unknown>; flags: Record<string, unknown> } {
    const file = f.config ? readConfigFile(f.config) : {};
    const base = f.config ? path.dirname(path.resolve(f.config)) : process.cwd();
    const fromFile = normalizeStudyConfigInput(file, base);
    const descriptor = backendDescriptor(String(f.backend ?? file.backend ?? DEFAULT_BACKEND));
    const own = backendFlagValues(f);
    const flags: Record<string, unknown> = {
        models: f.model?.map((m) => descriptor.resolveModel(m, process.cwd())),
        templates: f.templates,
        instances: f.instances,
        rounds: f.rounds,
        temperatures: f.temperature,
        wrappers: f.wrapper,
        seed: f.seed,
        maxTokens: f.maxTokens,
        backend: f.backend,
        language: f.language,
        groupSize: f.groupSize,
        contextSize: f.contextSize,
        promptFormat: f.promptFormat,
        judgeWorkers: f.judgeWorkers,
        topK: f.topK,
        topP: f.topP,
        minP: f.minP,
        repeatPenalty: f.repeatPenalty,
        fast: f.fast,
        mode: f.reproducible ? "reproducible" : undefined,
        allowUnsandboxed: f.allowUnsandboxed,
        noCache: f.cache === false ? true : undefined,
        fresh: f.fresh,
        db: f.db && path.resolve(f.db),
        resume: f.resume,
        ...own,
        ...extra
    };
    for (const k of Object.keys(flags)) if (flags[k] === undefined) delete flags[k];
    return { merged: { ...fromFile, ...flags }, flags };
}

/** Flags and config file merged (flags win) into a StudyConfig. */
export function studyConfigFromFlags(f: StudyConfigFlags): StudyConfig {
    const { merged, flags } = settingsFromFlags(f);
    if (f.resume) {
        // Only the run id and operational settings matter; the stored configuration supplies the rest.
        const ignored = Object.keys(flags).filter((k) => !(OPERATIONAL_KEYS as readonly string[]).includes(k));
        if (ignored.length)
            warn(`--resume continues run ${f.resume} as it was configured; ignoring ${ignored.join(", ")} (start a new run with --fresh to change them)`);
        parseStudySettings(merged); // bad values are still one clear line
        return { ...STUDY_DEFAULTS, mode: "reproducible", models: [], ...merged, backend: DEFAULT_BACKEND } as StudyConfig;
    }
    return normalizeStudyConfig(merged);
}

/** Settings that name a file or folder (besides the models). */
const PATH_KEYS = new Set([...BACKEND_PATH_KEYS, "db", "summariser", "embedModel", "embed-model"]);

/** Config-file keys with paths resolved against the file's folder. */
function normalizeStudyConfigInput(file: Record<string, unknown>, base: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const descriptor = backendDescriptor(String(file.backend ?? DEFAULT_BACKEND));
    for (const [k, v] of Object.entries(file)) {
        if (v === undefined || v === null) continue;
        if (k === "model" || k === "models") out.models = (Array.isArray(v) ? v : String(v).split(",")).map((m) => String(m).trim()).map((m) => descriptor.resolveModel(m, base));
        else if (PATH_KEYS.has(k)) out[k] = path.resolve(base, String(v));
        else out[k] = v;
    }
    return out;
}

/**
 * Ctrl-C for a study command: the first stops cleanly (queued queries dropped, what is stored
 * stays, the run is marked interrupted), a second quits at once. `dispose` removes the handler.
 */
export function stopOnSigint(): { signal: AbortSignal; dispose(): void } {
    const controller = new AbortController();
    const onSigint = (): void => {
        if (controller.signal.aborted) process.exit(130);
        // Above the live bars when there are some (a frame drawn next must not cover it), on a line of its own.
        if (process.stderr.isTTY) process.stderr.write("\r");
        note("stopping — keeping what is stored, dropping what is queued (Ctrl-C again to quit now)");
        controller.abort();
    };
    process.on("SIGINT", onSigint);
    return { signal: controller.signal, dispose: () => process.off("SIGINT", onSigint) };
}
