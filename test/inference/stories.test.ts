import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createLlamaBackend } from "../../src/inference/llama/LlamaBackend.js";
import { inspectGguf } from "../../src/inference/gguf/inspectGguf.js";
import type { GenerationResult } from "../../src/inference/types.js";
import { sharedModelsDir } from "../run/sharedModels.js";

// Real trained tiny models (TinyStories 260K) live outside the repository (EDDY_TEST_MODELS, or ../shared/models).
const dir = sharedModelsDir();
const have = dir !== undefined && existsSync(path.join(dir, "stories260K.gguf"));
if (!have) console.warn("[eddy] skipping stories260K tests: no ../shared/models beside the checkout and EDDY_TEST_MODELS not set");
const maybe = have ? describe : describe.skip;

maybe("stories260K (EDDY_TEST_MODELS)", () => {
    const prompt = "Once upon a time, there was a little girl";

    it("greedy continuation matches the model's README, in F32 and Q8_0", async () => {
        for (const file of ["stories260K.gguf", "stories260K-q8_0.gguf"]) {
            const b = await createLlamaBackend({ modelPath: path.join(dir!, file), threads: 1, sequences: 2, promptFormat: "raw", onWarning: () => {} });
            try {
                const out: GenerationResult[] = [];
                for await (const r of b.generate([{ id: "x", messages: [{ role: "user", content: prompt }], decoding: { temperature: 0 }, seed: 1, maxTokens: 16 }])) out.push(r);
                expect(out[0]!.text).toMatch(/^ ?named Lily\. She loved to play outside/);
                expect(out[0]!.stopReason).toBe("max_tokens");
                const m = await b.metadata();
                expect(m.model?.architecture).toBe("llama");
                expect(m.model?.contextLength).toBe(2048);
            } finally {
                await b.close();
            }
        }
    });

    it("header facts of the three files", async () => {
        expect((await inspectGguf(path.join(dir!, "stories260K.gguf"))).quantization).toBe("F32");
        expect((await inspectGguf(path.join(dir!, "stories260K-q8_0.gguf"))).quantization).toBe("Q8_0");
        expect((await inspectGguf(path.join(dir!, "stories260K-q4_0.gguf"))).quantization).toBe("Q4_0");
    });
});
