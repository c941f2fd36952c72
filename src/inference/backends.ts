import { EddyError } from "../util/errors.js";
import type { BackendDescriptor, BackendOption, BackendParts, BackendSettings, ModelSource } from "./descriptor.js";
import { llamaDescriptor } from "./llama/descriptor.js";
import { referenceDescriptor } from "./reference/descriptor.js";
import { replayDescriptor } from "./replay/descriptor.js";
import { serverDescriptor } from "./server/descriptor.js";
import type { Backend } from "./types.js";

export type { Offer } from "./descriptor.js";
export type { AnswerSources, BackendDescriptor, BackendOption, BackendParts, BackendSettings, CacheIdentity, ModelSource, Scheduling, SolutionSource } from "./descriptor.js";

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
    return backendDescriptor(settings.backend).open(settings, { label: "", ...model }, parts);
}

type Descriptors = (typeof REGISTRY)[BackendName];
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** The settings every backend owns, merged: the study schema extends itself with them (a key is owned by one backend). */
export const BACKEND_IDENTITY_SETTINGS = Object.assign({}, ...Object.values(REGISTRY).map((d) => d.settings.identity)) as UnionToIntersection<Descriptors["settings"]["identity"]>;
export const BACKEND_OPERATIONAL_SETTINGS = Object.assign({}, ...Object.values(REGISTRY).map((d) => d.settings.operational)) as UnionToIntersection<Descriptors["settings"]["operational"]>;

/** Every backend's own flags, each once (the CLI adds them; values land under their keys). */
export const BACKEND_OPTIONS: readonly (BackendOption & { backend: BackendName })[] = BACKEND_NAMES.flatMap((name) => REGISTRY[name].options.map((o) => ({ ...o, backend: name })));

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

/** What the server at `baseUrl` offers, asked through the backend that owns --base-url. */
export async function serverOffers(baseUrl: string): Promise<import("./descriptor.js").Offer> {
    const owner = settingOwner("baseUrl");
    const d = owner ? REGISTRY[owner] : undefined;
    if (!d || !("offers" in d)) throw new EddyError("no backend here talks to servers");
    return d.offers({ backend: d.name, baseUrl });
}
