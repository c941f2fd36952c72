import type { LlamaModel, Token } from "node-llama-cpp";
import type { Decoding, GenerationRequest, GenerationResult, StopReason } from "../types.js";
import { beginningToken, type PromptRenderer, type RenderedPrompt } from "./promptFormat.js";

/** A request's prompt as the model evaluates it, with the room its answer has in the context. */
export interface PreparedPrompt {
    prompt: RenderedPrompt;
    /** [beginning token (where the model wants one), ...prompt tokens]: what is evaluated. */
    full: Token[];
    promptTokens: number;
    /** Tokens the answer may take: max tokens, capped by what is left of the context. */
    maxTokens: number;
    /** True when the context, not max tokens, is the binding limit. */
    contextBound: boolean;
}

/**
 * Render a request's prompt and fit it into a context of `contextSize` tokens per sequence; a prompt
 * that leaves no room for one generated token is a `context_full` result instead. The library never
 * shifts or truncates the context: an answer that fills it stops as `context_full`.
 */
export function preparePrompt(model: LlamaModel, renderer: PromptRenderer, contextSize: number, req: GenerationRequest): PreparedPrompt | GenerationResult {
    const prompt = renderer.render(req.messages);
    const bos = beginningToken(model);
    const full = bos != null ? [bos, ...prompt.tokens] : prompt.tokens;
    const promptTokens = full.length;
    if (promptTokens + 1 > contextSize)
        return { ...failed(req.id, `prompt is ${promptTokens} tokens but the context holds ${contextSize}; raise --context-size`), stopReason: "context_full", promptTokens };
    const room = contextSize - promptTokens - 1;
    return { prompt, full, promptTokens, maxTokens: Math.min(req.maxTokens, room), contextBound: req.maxTokens > room };
}

/**
 * node-llama-cpp's sampling options for a request. Unset filters are off, not the library's hidden
 * defaults (top-k 40, top-p 0.95): the request says it all. The seed is the request's own.
 */
export function samplingOptions(d: Decoding, seed: number): { temperature: number; seed?: number; topK: number; topP: number; minP: number } {
    return { temperature: d.temperature, ...(d.temperature > 0 ? { seed } : {}), topK: d.topK ?? 0, topP: d.topP ?? 1, minP: d.minP ?? 0 };
}

/** The stored text of an answer: the prompt's opening cue, the answer, and the closing fence a stop trigger swallowed. */
export function answerText(prompt: RenderedPrompt, response: string, stopReason: StopReason): string {
    return prompt.responsePrefix + response + (stopReason === "stop_trigger" ? prompt.stopSuffix : "");
}

/** A failed request's result (not stored: a resume asks again). */
export function failed(id: string, error: string): GenerationResult {
    return { id, text: "", stopReason: "error", promptTokens: 0, generatedTokens: 0, ttftMs: 0, genMs: 0, error };
}

/** One line of an error's message. */
export function errorLine(err: unknown): string {
    return String((err as Error)?.message ?? err).replace(/\s*\n\s*/g, " ");
}
