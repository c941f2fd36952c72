import { EddyError, isEddyError, oneLine } from "../../util/errors.js";
import { field, intField, numberSetting } from "../../util/settings.js";
import type { BackendDescriptor } from "../descriptor.js";
import { apiKeyFromEnv, parseBaseUrl } from "./http.js";
import { pickModel, probeServer, servedIdentity } from "./probe.js";
import { createServerBackend, knownReproducible } from "./ServerBackend.js";

/** The settings this backend owns (declared below in `settings`). */
interface ServerSettings {
    baseUrl?: string;
    concurrency?: number;
    retryFor?: number;
}
const own = (settings: object): ServerSettings => settings as ServerSettings;

/** A model served by an OpenAI-compatible server: llama-server, vLLM, SGLang, Ollama. */
export const serverDescriptor = {
    name: "server",
    summary: "a model served by an OpenAI-compatible server (--base-url http://HOST:PORT/v1 --model NAME)",
    models: "served",
    runsModel: true,
    needsSolutions: false,
    engine: "openai-compatible server",
    records: [
        "the base URL and the served model's id",
        "what the server reports about it: llama-server's model file path, build and slot context (/props), vLLM's max_model_len and root model (/v1/models)",
        "the concurrency, and whether the setup is known to answer reproducibly (mode)"
    ],
    settings: {
        identity: {},
        // Where the server is and how hard to press it: what answers is the served model, identified from what it reports.
        operational: {
            baseUrl: field((v) => parseBaseUrl(String(v)).href.replace(/\/$/, "")).optional(),
            concurrency: intField("concurrency", 1).optional(),
            retryFor: field((v) => numberSetting("retry-for", v, 0, 86_400)).optional()
        }
    },
    options: [
        { key: "baseUrl", flags: "--base-url <url>", description: "--backend server: the server's OpenAI-compatible address, e.g. http://127.0.0.1:8080/v1 (API key from EDDY_API_KEY or OPENAI_API_KEY)" },
        { key: "concurrency", flags: "--concurrency <n>", description: "--backend server: requests in flight at once (default 1)" },
        { key: "retryFor", flags: "--retry-for <seconds>", description: "--backend server: keep asking again this long while the server is down, restarting or busy (default 120)" }
    ],
    resumeFlags: (s) => (own(s).baseUrl ? ["--base-url", own(s).baseUrl!] : []),
    // The server batches as it likes: eddy cannot see or fix it, only record and measure it.
    scheduling: () => "remote",
    parallelSetting: () => "concurrency",
    resolveModel: (m) => m,
    missing: (s) =>
        !own(s).baseUrl ? "--backend server needs --base-url http://HOST:PORT/v1" : s.models && s.models.length > 0 ? undefined : "--backend server needs --model <name> (eddy models list --base-url URL shows what the server serves)",
    checkSources(s) {
        const { baseUrl } = own(s);
        if (!baseUrl) throw new EddyError("--backend server needs --base-url http://HOST:PORT/v1");
        parseBaseUrl(baseUrl);
    },
    sourceGone: () => undefined,
    // What the server at the address serves under the name, now: the same identity its answers will carry.
    async modelIdentity(settings, model) {
        const { baseUrl } = own(settings);
        if (!baseUrl) throw new EddyError("--backend server needs --base-url http://HOST:PORT/v1");
        if (!model.name) throw new EddyError("--backend server needs --model <name>");
        const report = await probeServer(parseBaseUrl(baseUrl), apiKeyFromEnv());
        return servedIdentity(report, pickModel(report, model.name)).sha256;
    },
    readSources: () => ({ parts: {} }),
    modelSources: (s) => [...new Set(s.models ?? [])].map((name) => ({ label: name.split(/[\\/]/).pop()!.replace(/\.gguf$/i, ""), name })),
    identity: (_backend, meta) => meta.model?.sha256 ?? null,
    describe: (meta) => `served model: ${meta.model?.name}${meta.model?.path && meta.model.path !== meta.model.name ? ` (${meta.model.path})` : ""}, mode ${meta.mode}, prompt format ${meta.promptFormat}`,
    // A served answer depends on what the server reports it serves, how prompts are sent, and whether it was reproducible.
    cacheIdentity: (meta, identity) => (identity ? { sha256: identity, promptFormat: meta.promptFormat, contextSize: meta.contextSize, mode: meta.mode } : undefined),
    offerKeys: ["baseUrl"],
    async offers(settings) {
        const { baseUrl, concurrency } = own(settings);
        if (!baseUrl) throw new EddyError("give the server's address: --base-url http://HOST:PORT/v1");
        const report = await probeServer(parseBaseUrl(baseUrl), apiKeyFromEnv());
        const facts: Record<string, string | number> = {};
        if (report.build !== undefined) facts.build = report.build;
        if (report.modelPath !== undefined) facts["model file"] = report.modelPath;
        if (report.slots !== undefined) facts.slots = report.slots;
        if (report.contextSize !== undefined) facts["context per slot"] = report.contextSize;
        return {
            source: report.baseUrl,
            engine: report.engine,
            facts,
            models: report.models.map((m) => ({ id: m.id, aliases: m.aliases, ...(m.contextSize !== undefined ? { contextSize: m.contextSize } : {}), facts: m.details })),
            reproducible: knownReproducible(report, concurrency ?? 1)
        };
    },
    async open(settings, model, parts) {
        const { baseUrl, concurrency, retryFor } = own(settings);
        if (!model.name) throw new EddyError("--backend server needs --model <name>");
        if (!baseUrl) throw new EddyError("--backend server needs --base-url http://HOST:PORT/v1");
        try {
            return await createServerBackend({
                baseUrl,
                model: model.name,
                ...(settings.promptFormat !== undefined ? { promptFormat: settings.promptFormat } : {}),
                ...(concurrency !== undefined ? { concurrency } : {}),
                ...(retryFor !== undefined ? { retryForMs: retryFor * 1000 } : {}),
                ...(parts.onWarning ? { onWarning: parts.onWarning } : {})
            });
        } catch (err) {
            if (isEddyError(err)) throw err;
            throw new EddyError(`cannot use the server at ${baseUrl}: ${oneLine(err)}`);
        }
    }
} as const satisfies BackendDescriptor;
