import { EddyError } from "../util/errors.js";
import type { BackendDescriptor, BackendParts, BackendSettings } from "./descriptor.js";
import { llamaDescriptor } from "./llama/descriptor.js";
import { referenceDescriptor } from "./reference/descriptor.js";
import { replayDescriptor } from "./replay/descriptor.js";
import type { Backend } from "./types.js";

export type { AnswerSources, BackendDescriptor, BackendParts, BackendSettings } from "./descriptor.js";

/** Every backend eddy has, by name: the one list callers validate names against and ask. */
const REGISTRY = { llama: llamaDescriptor, reference: referenceDescriptor, replay: replayDescriptor } as const satisfies Record<string, BackendDescriptor>;

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
export function createBackend(settings: BackendSettings, model: { path?: string }, parts: BackendParts = {}): Promise<Backend> {
    return backendDescriptor(settings.backend).open(settings, model, parts);
}
