import { JinjaTemplateChatWrapper, LlamaText, LlamaVocabularyType, resolveChatWrapper, type ChatHistoryItem, type ChatWrapper, type LlamaModel, type Token } from "node-llama-cpp";
import type { ChatMessage } from "../../vocabulary.js";
import { PLAIN_CUE, PLAIN_STOP, plainCompletionText, rawCompletionText } from "../plainPrompt.js";

/** A prompt ready to evaluate, with what ends an answer. */
export interface RenderedPrompt {
    /** Prompt tokens, without the beginning token LlamaCompletion adds itself ({@link beginningToken}). */
    tokens: Token[];
    /** Text triggers that end the answer (besides end-of-generation tokens). */
    stopTriggers: (string | LlamaText)[];
    /** Put before the generated text in the result (the plain prompt's opening cue). */
    responsePrefix: string;
    /** Put after the generated text when a stop trigger ended it (the closing fence the trigger swallowed). */
    stopSuffix: string;
}

/** Turns chat messages into prompt tokens for one model in one fixed, recorded way. */
export interface PromptRenderer {
    /** What is recorded as BackendMetadata.promptFormat. */
    readonly format: string;
    render(messages: ChatMessage[]): RenderedPrompt;
}


/**
 * Choose how messages become a prompt. "auto": the GGUF's own chat template (rendered by node-llama-cpp's
 * Jinja wrapper, which adds nothing of its own: no default system prompt, no date lines), else a plain
 * completion prompt and a warning. Never guesses a template for a file that has none.
 */
export function createPromptRenderer(model: LlamaModel, requested: string, warn: (line: string) => void): PromptRenderer {
    const template = model.fileInfo.metadata?.tokenizer?.chat_template;
    if (requested === "auto") {
        if (typeof template === "string" && template.trim() !== "") return chatRenderer(model, "gguf-chat-template", new JinjaTemplateChatWrapper({ template }));
        // The same words for every file (no name): a study over several quantisations warns once, not once per file.
        warn("no chat template in the model: eddy sends a plain completion prompt (--prompt-format)");
        return plainRenderer(model);
    }
    if (requested === "gguf-chat-template") {
        if (typeof template !== "string" || template.trim() === "")
            throw new Error(`the model file has no chat template (tokenizer.chat_template); use --prompt-format plain-completion, raw, or a chat wrapper name`);
        return chatRenderer(model, requested, new JinjaTemplateChatWrapper({ template }));
    }
    if (requested === "plain-completion") return plainRenderer(model);
    if (requested === "raw") return rawRenderer(model);
    let wrapper: ChatWrapper;
    try {
        wrapper = resolveChatWrapper({ type: requested as never, fileInfo: model.fileInfo, tokenizer: model.tokenizer, noJinja: true }) as ChatWrapper;
    } catch (err) {
        throw new Error(`unknown prompt format '${requested}': ${(err as Error).message}`);
    }
    if (!wrapper) throw new Error(`unknown prompt format '${requested}' (use auto, gguf-chat-template, plain-completion or a node-llama-cpp chat wrapper name such as chatML, llama3Chat, alpacaChat, general)`);
    return chatRenderer(model, requested, wrapper);
}

function chatRenderer(model: LlamaModel, format: string, wrapper: ChatWrapper): PromptRenderer {
    return {
        format,
        render(messages) {
            // An explicit history with an empty model turn to complete: nothing is added that the caller did not give.
            const chatHistory: ChatHistoryItem[] = messages.map((m): ChatHistoryItem =>
                m.role === "system" ? { type: "system", text: m.content } : m.role === "user" ? { type: "user", text: m.content } : { type: "model", response: [m.content] }
            );
            chatHistory.push({ type: "model", response: [] });
            const state = wrapper.generateContextState({ chatHistory });
            const tokens = state.contextText.tokenize(model.tokenizer);
            return { tokens: stripBos(model, tokens), stopTriggers: state.stopGenerationTriggers, responsePrefix: "", stopSuffix: "" };
        }
    };
}

function plainRenderer(model: LlamaModel): PromptRenderer {
    return {
        format: "plain-completion",
        render(messages) {
            const text = plainCompletionText(messages);
            return { tokens: stripBos(model, model.tokenize(text, false)), stopTriggers: [PLAIN_STOP], responsePrefix: PLAIN_CUE, stopSuffix: PLAIN_STOP };
        }
    };
}

/** The messages' text only, joined by blank lines: no cue, no stop trigger (base-model text checks). */
function rawRenderer(model: LlamaModel): PromptRenderer {
    return {
        format: "raw",
        render(messages) {
            return { tokens: stripBos(model, model.tokenize(rawCompletionText(messages), false)), stopTriggers: [], responsePrefix: "", stopSuffix: "" };
        }
    };
}

/**
 * The token LlamaCompletion puts before every prompt, or null: BOS only where the model asks for it
 * (tokenizer.ggml.add_bos_token; BPE models such as Qwen have a BOS token but do not). Mirrors
 * node-llama-cpp's internal resolveBeginningTokenToPrepend, which it does not export, so the prompt
 * tokens counted and compared here are the ones the library evaluates.
 */
export function beginningToken(model: { vocabularyType: LlamaVocabularyType; tokens: { bos: Token | null; shouldPrependBosToken: boolean } }): Token | null {
    if (model.vocabularyType === LlamaVocabularyType.rwkv || model.vocabularyType === LlamaVocabularyType.ugm) return null;
    if (model.vocabularyType === LlamaVocabularyType.wpm) return model.tokens.bos;
    return model.tokens.shouldPrependBosToken ? model.tokens.bos : null;
}

/** LlamaCompletion prepends the beginning token itself; a template that renders it too would double it. */
function stripBos(model: LlamaModel, tokens: Token[]): Token[] {
    const bos = beginningToken(model);
    return bos != null && tokens[0] === bos ? tokens.slice(1) : tokens;
}
