import { createHash } from "node:crypto";
import { EddyError } from "../../util/errors.js";
import { exchange, ServerError } from "./http.js";

/** A model as a server lists it (`/v1/models`), with what identifies it where the server says. */
export interface ServedModel {
    id: string;
    /** Other names the server answers to (llama-server's --alias). */
    aliases: string[];
    ownedBy?: string;
    /** vLLM: the longest prompt plus answer; llama-server: the slot's context (meta.n_ctx). */
    contextSize?: number;
    /** llama-server's meta (parameter count, size, vocabulary…) or vLLM's root model. */
    details: Record<string, unknown>;
}

/** What a server says about itself: its models, and llama-server's /props (model file, build, slots, context). */
export interface ServerReport {
    baseUrl: string;
    models: ServedModel[];
    /** llama-server: the model file it was started with. */
    modelPath?: string;
    /** llama-server: "b<number>-<commit>". */
    build?: string;
    /** llama-server: parallel slots (--parallel); 1 decodes one request at a time. */
    slots?: number;
    /** llama-server: the context per slot. */
    contextSize?: number;
    /** Who answered, as far as eddy can tell: "llama-server", "vllm", "ollama" or "openai-compatible". */
    engine: string;
}

const record = (v: unknown): Record<string, unknown> => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** Ask the server what it serves. A server that is down, a wrong URL or a reply that is not a model list is one line. */
export async function probeServer(base: URL, apiKey: string | undefined, signal?: AbortSignal): Promise<ServerReport> {
    const at = base.href;
    let listed: unknown;
    try {
        listed = (await exchange(base, "models", { apiKey, timeoutMs: 30_000, ...(signal ? { signal } : {}) })).body;
    } catch (err) {
        if (err instanceof ServerError && err.status === 404) throw new EddyError(`${at} has no models list (${base.pathname}/models answered 404): is --base-url the server's OpenAI-compatible address (usually ending in /v1)?`);
        // Still loading its model, or a proxy's passing 503: transient, asked again by whoever retries.
        if (err instanceof ServerError && err.status === 503) throw new ServerError(`the server at ${at} is not ready (HTTP 503: still loading its model?)`, true, 503);
        throw err;
    }
    const data = record(listed).data;
    if (!Array.isArray(data)) throw new EddyError(`${at}: ${base.pathname}/models did not answer an OpenAI model list ({"data": [...]}); is --base-url the server's OpenAI-compatible address?`);
    const models: ServedModel[] = data.map((d) => {
        const o = record(d);
        const meta = record(o.meta);
        const details: Record<string, unknown> = { ...meta };
        if (typeof o.root === "string") details.root = o.root;
        const contextSize = num(o.max_model_len) ?? num(meta.n_ctx);
        return {
            id: String(o.id ?? ""),
            aliases: Array.isArray(o.aliases) ? o.aliases.map(String) : [],
            ...(typeof o.owned_by === "string" ? { ownedBy: o.owned_by } : {}),
            ...(contextSize !== undefined ? { contextSize } : {}),
            details
        };
    });
    const report: ServerReport = { baseUrl: at, models, engine: engineOf(models) };
    // llama-server's /props (at the server's root): the model file, the build, the slots and their context.
    if (report.engine === "llama-server") {
        try {
            const props = record((await exchange(base, "/props", { apiKey, timeoutMs: 30_000, ...(signal ? { signal } : {}) })).body);
            if (typeof props.model_path === "string") report.modelPath = props.model_path;
            if (typeof props.build_info === "string") report.build = props.build_info;
            const slots = num(props.total_slots);
            if (slots !== undefined) report.slots = slots;
            const ctx = num(record(props.default_generation_settings).n_ctx);
            if (ctx !== undefined) report.contextSize = ctx;
        } catch (err) {
            if (!(err instanceof ServerError) || err.transient) throw err;
            // A server that lists models as llama.cpp does but has no /props: identified by its list alone.
        }
    }
    return report;
}

function engineOf(models: ServedModel[]): string {
    const owners = new Set(models.map((m) => m.ownedBy));
    if (owners.has("llamacpp")) return "llama-server";
    if (owners.has("vllm")) return "vllm";
    if (owners.has("library") || owners.has("ollama")) return "ollama";
    return "openai-compatible";
}

/** The served model a name picks: its id or an alias, or (llama-server lists the file path) the file's name with or without .gguf. */
export function pickModel(report: ServerReport, name: string): ServedModel {
    const base = (s: string): string => s.split(/[\\/]/).pop() ?? s;
    const found =
        report.models.find((m) => m.id === name || m.aliases.includes(name)) ??
        report.models.find((m) => base(m.id) === name || base(m.id).replace(/\.gguf$/i, "") === name);
    if (!found) {
        const offered = report.models.map((m) => m.id).join(", ") || "none";
        throw new EddyError(`the server at ${report.baseUrl} serves no model '${name}' (it serves: ${offered}); see eddy models list --base-url ${report.baseUrl}`);
    }
    return found;
}

/** What a served model's answers depend on, as the server reports it: recorded, and hashed into its identity. */
export function servedIdentity(report: ServerReport, model: ServedModel): { fields: Record<string, unknown>; sha256: string } {
    const fields: Record<string, unknown> = {
        engine: report.engine,
        model: model.id,
        ...(report.modelPath !== undefined ? { modelPath: report.modelPath } : {}),
        ...(report.build !== undefined ? { build: report.build } : {}),
        ...(model.contextSize !== undefined ? { contextSize: model.contextSize } : {}),
        ...(Object.keys(model.details).length ? { details: model.details } : {})
    };
    return { fields, sha256: createHash("sha256").update(JSON.stringify(fields)).digest("hex") };
}
