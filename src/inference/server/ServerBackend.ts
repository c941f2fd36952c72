import { setTimeout as sleep } from "node:timers/promises";
import { sameCommand } from "../../util/commandLine.js";
import { EddyError, oneLine } from "../../util/errors.js";
import { PLAIN_CUE, PLAIN_STOP, plainCompletionText, rawCompletionText } from "../plainPrompt.js";
import type { Backend, BackendMetadata, GenerationRequest, GenerationResult, StopReason } from "../types.js";
import { apiKeyFromEnv, exchange, parseBaseUrl, ServerError } from "./http.js";
import { pickModel, probeServer, servedIdentity, type ServedModel, type ServerReport } from "./probe.js";

/** How a served model is asked: the server's chat template (chat completions), or a text prompt (completions). */
export const SERVER_PROMPT_FORMATS = ["auto", "server-chat-template", "plain-completion", "raw"] as const;

export interface ServerBackendOptions {
    baseUrl: string;
    /** The model's id (or alias, or file name) as the server lists it. */
    model: string;
    promptFormat?: string;
    /** Requests in flight at once (default 1). */
    concurrency?: number;
    /** How long a request keeps being asked again while the server is unreachable or busy (default 120 s). */
    retryForMs?: number;
    onWarning?: (line: string) => void;
    env?: NodeJS.ProcessEnv;
}

/** A request's answer, or a failure worth only this request (the server refused it), never a made-up one. */
interface Exchanged {
    text: string;
    stopReason: StopReason;
    promptTokens: number;
    generatedTokens: number;
    ttftMs: number;
    genMs: number;
    error?: string;
}

/**
 * A model served by an OpenAI-compatible server (llama-server, vLLM, SGLang, Ollama, …). Requests go out
 * at most `concurrency` at a time; one that meets a server down, restarting or busy (connection refused
 * or cut, 429, 503) is asked again with backoff, and after such an outage the server must still serve
 * the same model (its identity is checked again) before any answer is taken. An answer is yielded once
 * or not at all: a request that cannot be answered ends the call with one line, and a resume asks again.
 */
export async function createServerBackend(o: ServerBackendOptions): Promise<Backend> {
    const base = parseBaseUrl(o.baseUrl);
    const apiKey = apiKeyFromEnv(o.env);
    const warn = o.onWarning ?? ((line: string) => process.stderr.write(`eddy: warning: ${line}\n`));
    const retryForMs = o.retryForMs ?? 120_000;
    const outage = new Outage(base.href, retryForMs, warn);
    // The first look too goes through a server that is still loading (503) or a proxy that drops a request; a
    // connection refused at the first look (nothing listens there: a wrong URL, a server not started) is said at once.
    // Before any answer there is nothing to resume: giving up there hints the same command, once the server is ready.
    const report = await outage.retrying(() => probeServer(base, apiKey), undefined, (err) => !/connection refused/.test(err.message), true);
    const served = pickModel(report, o.model);
    const identity = servedIdentity(report, served);
    const format = o.promptFormat === undefined || o.promptFormat === "auto" ? "server-chat-template" : o.promptFormat;
    if (!(SERVER_PROMPT_FORMATS as readonly string[]).includes(format))
        throw new EddyError(`prompt format '${format}' does not apply to --backend server (use ${SERVER_PROMPT_FORMATS.join(", ")}: the server applies the model's chat template, or is sent a plain completion prompt)`);
    const concurrency = o.concurrency ?? 1;
    const reproducible = knownReproducible(report, concurrency);
    if (!reproducible.known)
        warn(`${report.engine} at ${base.href}: ${reproducible.why}; answers are recorded as mode fast (see eddy audit determinism --backend server)`);

    const metadata: BackendMetadata = {
        backend: "server",
        model: {
            path: report.modelPath ?? served.id,
            sha256: identity.sha256,
            sizeBytes: typeof served.details.size === "number" ? served.details.size : 0,
            name: served.id,
            ...(served.contextSize !== undefined ? { contextLength: served.contextSize } : {}),
            ...(typeof served.details.n_params === "number" ? { parameterCount: served.details.n_params } : {})
        },
        server: { baseUrl: base.href, ...identity.fields, ...(report.slots !== undefined ? { slots: report.slots } : {}) },
        promptFormat: format,
        ...(report.contextSize ?? served.contextSize ? { contextSize: report.contextSize ?? served.contextSize } : {}),
        concurrency,
        scheduling: "remote",
        mode: reproducible.known ? "reproducible" : "fast",
        reproducibility: reproducible.why
    };

    // After a failure the server may have come back with another model: no answer is taken until an identity
    // check begun after the latest failure has passed. A check that fails (the server still away) is not kept:
    // the next answer starts another, so one transient error never fails the retries after it.
    let verified = 0;
    let check: { upTo: number; done: Promise<void> } | undefined;
    const verify = async (signal: AbortSignal): Promise<void> => {
        while (verified < outage.failures) {
            const upTo = outage.failures;
            if (!check || check.upTo < upTo) {
                const done = (async () => {
                    const again = await probeServer(base, apiKey, signal);
                    const now = servedIdentity(again, pickModel(again, o.model));
                    if (now.sha256 !== identity.sha256)
                        throw new EddyError(`the server at ${base.href} came back serving something else (${describeChange(identity.fields, now.fields)}); what was answered before is kept: restart it as it was and resume`);
                    verified = Math.max(verified, upTo);
                })();
                const mine = { upTo, done };
                check = mine;
                done.catch(() => {
                    if (check === mine) check = undefined;
                });
            }
            await check.done;
        }
    };

    const ask = async (req: GenerationRequest, signal: AbortSignal): Promise<Exchanged> => {
        const started = performance.now();
        const deadline = Date.now() + retryForMs;
        for (let attempt = 0; ; attempt++) {
            try {
                const reply = await exchange(base, format === "server-chat-template" ? "chat/completions" : "completions", { method: "POST", body: requestBody(req, served, format, report), signal, apiKey });
                await verify(signal);
                const parsed = parseReply(reply.body, format, base.href, performance.now() - started);
                outage.answered();
                return parsed;
            } catch (err) {
                if (signal.aborted) throw err;
                if (!(err instanceof ServerError)) throw err;
                if (err.transient && Date.now() < deadline) {
                    outage.failed(err);
                    await sleep(backoff(attempt), undefined, { signal });
                    continue;
                }
                // The server refused this one request (too long for its context, a bad parameter): this request's failure, not the run's.
                if (err.status === 400 && /context|too long|exceed/i.test(err.message))
                    return { text: "", stopReason: "context_full", promptTokens: 0, generatedTokens: 0, ttftMs: 0, genMs: performance.now() - started };
                if (err.status === 400 || err.status === 422) return { text: "", stopReason: "error", promptTokens: 0, generatedTokens: 0, ttftMs: 0, genMs: 0, error: err.message };
                if (err.transient) throw outage.gaveUp(err);
                throw err;
            }
        }
    };

    let closed = false;
    return {
        name: "server",
        async metadata() {
            return metadata;
        },
        generate(requests) {
            if (closed) throw new EddyError("the server backend is closed");
            return boundedGenerate(requests, concurrency, ask);
        },
        async close() {
            closed = true;
        }
    };
}

/** Requests answered at most `limit` at a time, yielded in completion order; leaving early abandons the rest. */
async function* boundedGenerate(
    requests: AsyncIterable<GenerationRequest> | Iterable<GenerationRequest>,
    limit: number,
    ask: (req: GenerationRequest, signal: AbortSignal) => Promise<Exchanged>
): AsyncGenerator<GenerationResult> {
    const controller = new AbortController();
    const source = Symbol.asyncIterator in requests ? requests[Symbol.asyncIterator]() : (requests as Iterable<GenerationRequest>)[Symbol.iterator]();
    const inflight = new Map<number, Promise<{ n: number; result?: GenerationResult; error?: unknown }>>();
    let next = 0;
    let exhausted = false;
    try {
        for (;;) {
            while (!exhausted && inflight.size < limit) {
                const item = await source.next();
                if (item.done) {
                    exhausted = true;
                    break;
                }
                const req = item.value;
                const n = next++;
                inflight.set(
                    n,
                    ask(req, controller.signal).then(
                        (r) => ({ n, result: { id: req.id, ...r } }),
                        (error: unknown) => ({ n, error })
                    )
                );
            }
            if (inflight.size === 0) return;
            const settled = await Promise.race(inflight.values());
            inflight.delete(settled.n);
            if (settled.error !== undefined) throw settled.error;
            yield settled.result!;
        }
    } finally {
        controller.abort();
        await Promise.allSettled(inflight.values());
        await source.return?.();
    }
}

/** The body of one request: the messages (chat) or the prompt text (completions), decoding and seed as eddy derived them. */
function requestBody(req: GenerationRequest, served: ServedModel, format: string, report: ServerReport): Record<string, unknown> {
    const d = req.decoding;
    const body: Record<string, unknown> = { model: served.id, max_tokens: req.maxTokens, temperature: d.temperature, seed: req.seed, stream: false };
    if (format === "server-chat-template") body.messages = req.messages.map((m) => ({ role: m.role, content: m.content }));
    else body.prompt = format === "plain-completion" ? plainCompletionText(req.messages) : rawCompletionText(req.messages);
    if (format === "plain-completion") body.stop = [PLAIN_STOP];
    if (d.temperature > 0) {
        if (d.topP !== undefined) body.top_p = d.topP;
        if (d.topK !== undefined) body.top_k = d.topK;
        if (d.minP !== undefined) body.min_p = d.minP;
    }
    if (report.engine === "llama-server") {
        // Every request evaluates its whole prompt: a slot's cached prefix from the request before would make
        // an answer depend on what ran before it.
        body.cache_prompt = false;
        // __verbose.stop_type says whether a stop string or the end of generation ended the answer.
        body.verbose = true;
        if (d.repeatPenalty !== undefined) body.repeat_penalty = d.repeatPenalty;
    } else if (d.repeatPenalty !== undefined) body.repetition_penalty = d.repeatPenalty;
    return body;
}

const record = (v: unknown): Record<string, unknown> => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** One reply as a result; a reply that is not one (no choices, no text) is the server's fault, one line. */
function parseReply(body: unknown, format: string, where: string, elapsedMs: number): Exchanged {
    const choice = record(Array.isArray(record(body).choices) ? (record(body).choices as unknown[])[0] : undefined);
    const text = format === "server-chat-template" ? record(choice.message).content : choice.text;
    if (typeof text !== "string") throw new ServerError(`${where} answered without ${format === "server-chat-template" ? "choices[0].message.content" : "choices[0].text"} (not an OpenAI-compatible completion)`, false);
    const finish = choice.finish_reason;
    const usage = record(record(body).usage);
    const timings = record(record(body).timings);
    // Which stop ended it: llama-server says in __verbose.stop_type (asked for with verbose), vLLM in choices[].stop_reason
    // (the stop string, or a token id / null for end of generation); another server only says "stop".
    const verbose = record(record(body).__verbose);
    const byStopString =
        finish === "stop" &&
        (typeof verbose.stop_type === "string" ? verbose.stop_type === "word" : "stop_reason" in choice ? typeof choice.stop_reason === "string" : format === "plain-completion");
    const stopReason: StopReason = finish === "length" ? "max_tokens" : byStopString ? "stop_trigger" : "eos";
    let out = text;
    if (format === "plain-completion") {
        // The cue is part of the answer, and the closing fence that ended it goes back, as the llama backend does.
        out = PLAIN_CUE + text + (byStopString ? PLAIN_STOP : "");
    }
    const promptMs = typeof timings.prompt_ms === "number" ? timings.prompt_ms : 0;
    const predictedMs = typeof timings.predicted_ms === "number" ? timings.predicted_ms : elapsedMs - promptMs;
    return {
        text: out,
        stopReason,
        promptTokens: typeof usage.prompt_tokens === "number" ? usage.prompt_tokens : 0,
        generatedTokens: typeof usage.completion_tokens === "number" ? usage.completion_tokens : 0,
        ttftMs: promptMs,
        genMs: predictedMs
    };
}

/**
 * Whether the setup is one known to answer the same request the same way alone or in company: llama-server
 * with one slot (requests are decoded one at a time, each prompt evaluated whole). vLLM's batch-invariant
 * mode (VLLM_BATCH_INVARIANT=1) is too, but a server does not report it: eddy audit determinism measures it.
 */
export function knownReproducible(report: ServerReport, concurrency: number): { known: boolean; why: string } {
    if (report.engine === "llama-server" && report.slots === 1) return { known: true, why: "llama-server with one slot decodes one request at a time" };
    if (report.engine === "llama-server") return { known: false, why: `llama-server with ${report.slots ?? "several"} slots batches requests together${concurrency > 1 ? "" : " (with others' requests too)"}` };
    return { known: false, why: `${report.engine} may batch requests together, and does not report whether its answers depend on it` };
}

function describeChange(before: Record<string, unknown>, after: Record<string, unknown>): string {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
    return keys.map((k) => `${k}: ${JSON.stringify(before[k])} → ${JSON.stringify(after[k])}`).join("; ").slice(0, 300);
}

/** Backoff before asking again: 250 ms doubling to 5 s. */
const backoff = (attempt: number): number => Math.min(250 * 2 ** attempt, 5000);

/** A quiet spell after which the next failure is a new outage, said again. */
const OUTAGE_QUIET_MS = 5000;

/**
 * Transient failures of one server (refused or cut connections, 429, 502–504, a body cut short), shared by every
 * request: the first failure of an outage says once what eddy waits for; an outage ends when answers have come
 * for {@link OUTAGE_QUIET_MS} with no failure. `failures` counts them all (the identity check's clock).
 */
export class Outage {
    failures = 0;
    private since: number | undefined;
    private lastFailure = 0;

    constructor(
        private readonly where: string,
        private readonly retryForMs: number,
        private readonly warn: (line: string) => void
    ) {}

    failed(err: ServerError): void {
        this.failures++;
        this.lastFailure = Date.now();
        if (this.since !== undefined) return;
        this.since = this.lastFailure;
        this.warn(`${oneLine(err.message)}: waiting for the server at ${this.where} and asking again, for up to ${Math.round(this.retryForMs / 1000)} s (--retry-for)`);
    }

    answered(): void {
        if (this.since !== undefined && Date.now() - this.lastFailure >= OUTAGE_QUIET_MS) this.since = undefined;
    }

    gaveUp(err: ServerError, firstLook = false): EddyError {
        const after = `still failing after ${Math.round(this.retryForMs / 1000)} s of retries; what was answered is kept`;
        if (firstLook) return new EddyError(`${err.message} (${after}); once it is, run again`, 1, { next: sameCommand() });
        return new EddyError(`${err.message} (${after}: resume when the server is back)`);
    }

    /** `fn` asked again through transient failures, for up to the retry time from now. */
    async retrying<T>(fn: () => Promise<T>, signal?: AbortSignal, worthRetrying: (err: ServerError) => boolean = () => true, firstLook = false): Promise<T> {
        const deadline = Date.now() + this.retryForMs;
        for (let attempt = 0; ; attempt++) {
            try {
                const r = await fn();
                this.answered();
                return r;
            } catch (err) {
                if (signal?.aborted || !(err instanceof ServerError) || !err.transient || !worthRetrying(err)) throw err;
                if (Date.now() >= deadline) throw this.gaveUp(err, firstLook);
                this.failed(err);
                await sleep(backoff(attempt), undefined, signal ? { signal } : undefined);
            }
        }
    }
}
