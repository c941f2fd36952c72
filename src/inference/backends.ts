import { EddyError } from "../util/errors.js";
import { DECODING_MODES } from "../vocabulary.js";
import type { AnswerSources, BackendDescriptor, BackendOption, BackendParts, BackendSettings, MachineCheck, ModelSource } from "./descriptor.js";
import { llamaDescriptor } from "./llama/descriptor.js";
import { KV_CACHE_TYPES, kvCacheLabel, kvCacheType } from "./llama/kvCache.js";
import { referenceDescriptor } from "./reference/descriptor.js";
import { replayDescriptor } from "./replay/descriptor.js";
import { serverDescriptor } from "./server/descriptor.js";
import type { Backend } from "./types.js";

export type { Offer } from "./descriptor.js";
export type { ForcedMemory, ForcedReport, ForcedResult, ForcedText, PositionComparer, TeacherForceJob, TeacherForcing } from "./descriptor.js";
export type { AnswerSources, DemoContext, DemoStudy, MachineCheck, BackendDescriptor, BackendOption, BackendParts, BackendSettings, CacheIdentity, ModelSource, Scheduling, SolutionSource } from "./descriptor.js";

/** Every backend eddy has, by name: the one list callers validate names against and ask. */
const REGISTRY = { llama: llamaDescriptor, reference: referenceDescriptor, replay: replayDescriptor, server: serverDescriptor } as const satisfies Record<string, BackendDescriptor>;

export type BackendName = keyof typeof REGISTRY;
export const BACKEND_NAMES = Object.keys(REGISTRY) as BackendName[];
/** The backend a study or loop uses when none is named. */
export const DEFAULT_BACKEND: BackendName = "llama";

/** Whether `name` is a registered backend. */
export function isBackendName(name: unknown): name is BackendName {
    return typeof name === "string" && Object.hasOwn(REGISTRY, name);
}

/** The descriptor of a backend; an unknown name is one clear line. */
export function backendDescriptor(name: string): BackendDescriptor {
    if (!isBackendName(name)) throw new EddyError(`unknown backend '${name}' (use ${BACKEND_NAMES.join(", ")})`);
    return REGISTRY[name];
}

/** One backend for one model, as its descriptor opens it. */
export function createBackend(settings: BackendSettings, model: ModelSource | { path?: string }, parts: BackendParts = {}): Promise<Backend> {
    // A source on a comparison axis runs with its own value of it (one KV-cache type of several).
    const own = "settings" in model && model.settings ? model.settings : {};
    return backendDescriptor(settings.backend).open({ ...settings, ...own }, { label: "", ...model }, parts);
}

type Descriptors = (typeof REGISTRY)[BackendName];
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** The settings every backend owns, merged: the study schema extends itself with them (a key is owned by one backend). */
export const BACKEND_IDENTITY_SETTINGS = Object.assign({}, ...Object.values(REGISTRY).map((d) => d.settings.identity)) as UnionToIntersection<Descriptors["settings"]["identity"]>;
export const BACKEND_OPERATIONAL_SETTINGS = Object.assign({}, ...Object.values(REGISTRY).map((d) => d.settings.operational)) as UnionToIntersection<Descriptors["settings"]["operational"]>;

/** Every backend's own flags, each once (the CLI adds them; values land under their keys). */
export const BACKEND_OPTIONS: readonly (BackendOption & { backend: BackendName })[] = BACKEND_NAMES.flatMap((name) => REGISTRY[name].options.map((o) => ({ ...o, backend: name })));

/** The backends' flags for operational settings only (how fast and where, never what): a queue worker takes these for its node. */
export const BACKEND_OPERATIONAL_OPTIONS: readonly (BackendOption & { backend: BackendName })[] = BACKEND_OPTIONS.filter((o) => Object.hasOwn(REGISTRY[o.backend].settings.operational, o.key));

/** The settings that say how many queries run at once, in some backend, mode or group size (what `eddy audit determinism` varies). */
export const PARALLEL_KEYS: readonly string[] = [
    ...new Set(Object.values(REGISTRY).flatMap((d: BackendDescriptor) => DECODING_MODES.flatMap((mode) => [1, 2].map((g) => d.parallelSetting(mode, g)))).filter((k): k is string => k !== undefined))
];

/** One line per backend for help texts. */
export function backendHelp(): string {
    return BACKEND_NAMES.map((n) => `${n}: ${REGISTRY[n].summary}`).join("; ");
}

/** The backend that owns a setting key, or undefined for the study's own settings. */
export function settingOwner(key: string): BackendName | undefined {
    return BACKEND_NAMES.find((n) => Object.hasOwn(REGISTRY[n].settings.identity, key) || Object.hasOwn(REGISTRY[n].settings.operational, key));
}

/** Flags a resume of a run with these settings needs besides --resume and --db (a server's --base-url), whichever backend owns them. */
export function resumeFlags(settings: Readonly<Record<string, unknown>>): string[] {
    return BACKEND_NAMES.flatMap((n) => (REGISTRY[n] as BackendDescriptor).resumeFlags?.(settings) ?? []);
}

/** Setting keys whose values name files (made absolute against where they were given). */
export const BACKEND_PATH_KEYS: readonly string[] = BACKEND_OPTIONS.filter((o) => o.path).map((o) => o.key);

/** The flags that say where a backend that offers something is (`--base-url`): `eddy models list` and `eddy doctor` take them. */
export const OFFER_OPTIONS: readonly BackendOption[] = BACKEND_NAMES.flatMap((n) => {
    const d: BackendDescriptor = REGISTRY[n];
    return d.options.filter((o) => d.offerKeys?.includes(o.key));
});

/** The settings that say where a backend's models are served (--base-url): a queued study's workers are told them. */
export const WHERE_KEYS: readonly string[] = [...new Set(OFFER_OPTIONS.map((o) => o.key))];

/** What the backend addressed by `where` (settings by key, e.g. a base URL) offers; undefined when none of its keys is given. */
export async function askOffers(where: Readonly<Record<string, unknown>>): Promise<import("./descriptor.js").Offer | undefined> {
    for (const n of BACKEND_NAMES) {
        const d: BackendDescriptor = REGISTRY[n];
        if (d.offers && d.offerKeys?.some((k) => where[k] !== undefined)) return d.offers({ ...where, backend: d.name });
    }
    return undefined;
}

/** The backend that compares model files by teacher forcing (`eddy quant`): its name and how. */
export function teacherForcingBackend(): { name: BackendName; forcing: import("./descriptor.js").TeacherForcing } {
    for (const n of BACKEND_NAMES) {
        const d: BackendDescriptor = REGISTRY[n];
        if (d.teacherForcing && d.models === "file") return { name: n, forcing: d.teacherForcing };
    }
    throw new EddyError("no backend here compares model files by teacher forcing");
}

/** The settings of a study that replays answers imported from another tool, written to `file` as a replay JSONL; `model` labels them (default: the file's name). */
export function replayedAnswers(file: string, model?: string): Record<string, unknown> {
    for (const n of BACKEND_NAMES) {
        const d: BackendDescriptor = REGISTRY[n];
        if (d.replaysFile) return d.replaysFile(file, model);
    }
    throw new EddyError("no backend here replays answers from a file");
}

/** Each backend's part of `eddy demo`, in registry order (backends with none are left out). */
export async function demoStudies(ctx: import("./descriptor.js").DemoContext): Promise<(import("./descriptor.js").DemoStudy & { backend: BackendName })[]> {
    const out: (import("./descriptor.js").DemoStudy & { backend: BackendName })[] = [];
    for (const n of BACKEND_NAMES) {
        const d: BackendDescriptor = REGISTRY[n];
        if (d.demo) out.push({ ...(await d.demo(ctx)), backend: n });
    }
    return out;
}

/** What each backend that checks itself finds on this machine (`eddy doctor`). */
export async function checkMachine(): Promise<{ backend: BackendName; check: MachineCheck }[]> {
    const out: { backend: BackendName; check: MachineCheck }[] = [];
    for (const n of BACKEND_NAMES) {
        const d: BackendDescriptor = REGISTRY[n];
        if (d.checkMachine) out.push({ backend: n, check: await d.checkMachine() });
    }
    return out;
}

/**
 * A setting of the teacher-forcing backend that a comparison (`eddy quant`, `eddy run`) varies: its flag takes a
 * comma-separated list, and with several values every model is a source per value (its own configuration in one
 * run, labelled by {@link ComparisonAxis.label}). Declared and read here, so that a command names no backend's setting.
 */
export interface ComparisonAxis {
    /** The flag, taking a list. */
    readonly flags: string;
    readonly description: string;
    /** commander's key of the flag on the command's options, and the setting's key. */
    readonly key: string;
    /** One value, checked (a one-line error otherwise). */
    readonly parse: (v: unknown) => string;
    /** The model label of a configuration on one value (what the run's configuration is called). */
    readonly label: (model: string, value: string) => string;
}

/** The KV-cache type: the weights' quantisation's companion question. */
export const KV_CACHE_AXIS: ComparisonAxis = {
    flags: "--kv-cache <list>",
    description: `KV-cache types to study every file with, comma-separated, of ${KV_CACHE_TYPES.join(", ")} (each file once per type, a configuration of the one run; the reference is the reference file with f16, or the first type)`,
    key: "kvCache",
    parse: kvCacheType,
    label: kvCacheLabel
};

/** The values given for an axis (taken off `flags`, where each run's settings come from), or undefined. */
export function axisValues(flags: Record<string, unknown>, axis: ComparisonAxis): string[] | undefined {
    const given = flags[axis.key];
    delete flags[axis.key];
    if (given === undefined) return undefined;
    return [...new Set(String(given).split(",").map((s) => s.trim()).filter(Boolean).map(axis.parse))];
}

/** The settings of a study on an axis: none, one value, or several (every model once per value, in one run). */
export function onAxis(axis: ComparisonAxis, values: string | readonly string[] | undefined): Record<string, string | string[]> {
    if (values === undefined) return {};
    if (typeof values === "string") return { [axis.key]: values };
    if (values.length === 0) return {};
    return { [axis.key]: values.length === 1 ? values[0]! : [...values] };
}

/** The value of an axis a study's model source runs with (undefined: the study's own setting, not a value of several). */
export function axisValueOf(source: ModelSource, axis: ComparisonAxis): string | undefined {
    const v = source.settings?.[axis.key];
    return typeof v === "string" ? v : undefined;
}

/** The study's model sources: each model once, or once per value of an axis with several values (see ModelSource.settings). */
export function studySources(settings: BackendSettings & AnswerSources): ModelSource[] {
    return backendDescriptor(settings.backend).modelSources(settings);
}
