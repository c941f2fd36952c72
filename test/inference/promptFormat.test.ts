import { LlamaVocabularyType, type Token } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { beginningToken } from "../../src/inference/llama/promptFormat.js";

const model = (vocabularyType: LlamaVocabularyType, shouldPrependBosToken: boolean) => ({ vocabularyType, tokens: { bos: 1 as Token, shouldPrependBosToken } });

describe("the token LlamaCompletion puts before a prompt", () => {
    // The rule of llama.cpp's llama_tokenize_impl as node-llama-cpp applies it (utils/tokenizerUtils.js).
    it("is BOS only where the model asks for it", () => {
        expect(beginningToken(model(LlamaVocabularyType.spm, true))).toBe(1); // llama / SentencePiece: add_bos_token true
        expect(beginningToken(model(LlamaVocabularyType.bpe, false))).toBeNull(); // Qwen-style BPE: a BOS token, never prepended
        expect(beginningToken(model(LlamaVocabularyType.wpm, false))).toBe(1);
        expect(beginningToken(model(LlamaVocabularyType.ugm, true))).toBeNull();
        expect(beginningToken(model(LlamaVocabularyType.rwkv, true))).toBeNull();
        expect(beginningToken({ vocabularyType: LlamaVocabularyType.spm, tokens: { bos: null, shouldPrependBosToken: true } })).toBeNull();
    });
});
