import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildTinyLlama, ensureTinyModels, type TinyModelPaths } from "../../src/inference/gguf/tinyModel.js";
import { measureDrift } from "../../src/quant/drift/measureDrift.js";
import type { DriftReport, DriftText } from "../../src/quant/drift/types.js";
import { EddyError } from "../../src/util/errors.js";
import { sharedModelsDir } from "../run/sharedModels.js";

// Fixed texts: a code answer after a prompt, and text with no prompt at all.
const TEXTS: DriftText[] = [
    { id: "code", prompt: "Write a Python function `add(a, b)` that returns the sum.\n", completion: "def add(a, b):\n    return a + b\n" },
    // chat messages rendered as generation renders them (plain completion: the tiny models have no chat template)
    { id: "chat", messages: [{ role: "system", content: "You are an expert Python programmer." }, { role: "user", content: "Write `mul(a, b)`." }], completion: "```python\ndef mul(a, b):\n    return a * b\n```" },
    { id: "story", prompt: "", completion: "Once upon a time, there was a little girl named Lily. She loved to play outside in the park." }
];

describe("token drift on eddy's tiny models", () => {
    let tiny: TinyModelPaths;
    let first: DriftReport | undefined;
    beforeAll(() => {
        tiny = ensureTinyModels();
    });

    it("gives KL 0 and top-1 agreement 1 for a file against itself, and Q4_0 drifts more than Q8_0", async () => {
        const report = await measureDrift({ reference: tiny.f32, candidates: [tiny.f32, tiny.q8_0, tiny.q4_0], texts: TEXTS, threads: 1, gpu: false });
        first = report;
        const [self, q8, q4] = report.results;
        expect(report.results.map((r) => r.file)).toEqual([tiny.f32, tiny.q8_0, tiny.q4_0]);
        // every token after the first of each text (the story has no prompt, so its first token is unpredicted)
        expect(self!.positions).toBeGreaterThan(50);
        expect(self!.kl_max).toBeLessThanOrEqual(1e-9);
        expect(self!.top1_agreement).toBe(1);
        expect(q8!.positions).toBe(self!.positions);
        expect(q8!.kl_mean).toBeGreaterThan(0);
        expect(q4!.kl_mean!).toBeGreaterThan(q8!.kl_mean!);
        expect(q4!.kl_p99!).toBeGreaterThanOrEqual(q4!.kl_p50!);
        expect(q4!.memory.modelRamBytes).toBeLessThan(self!.memory.modelRamBytes);
        expect(report.vocabulary).toBeGreaterThan(256);
    });

    it("streams positions in small chunks to the same figures (the KV cache carries over between chunks)", async () => {
        const whole = first ?? (await measureDrift({ reference: tiny.f32, candidates: [tiny.f32, tiny.q8_0, tiny.q4_0], texts: TEXTS, threads: 1, gpu: false }));
        // room for the logits of 3 positions at a time
        const chunked = await measureDrift({ reference: tiny.f32, candidates: [tiny.q4_0], texts: TEXTS, threads: 1, gpu: false, maxLogitsInFlight: 3 * whole.vocabulary });
        const [a, b] = [whole.results[2]!, chunked.results[0]!];
        expect(b.positions).toBe(a.positions);
        expect(b.top1_agreement).toBe(a.top1_agreement);
        // a different batch split rounds floats differently (seen: 0.06% relative); losing the context between
        // chunks would change the distributions completely
        expect(Math.abs(b.kl_mean! - a.kl_mean!)).toBeLessThan(0.01 * a.kl_mean!);
        expect(Math.abs(b.kl_max! - a.kl_max!)).toBeLessThan(0.02 * a.kl_max!);
    });

    it("turns a model llama.cpp cannot load into a clear error, and the orchestrator lives on", async () => {
        const dir = mkdtempSync(path.join(os.tmpdir(), "eddy-drift-"));
        const broken = path.join(dir, "broken.gguf");
        // 3 heads do not divide the width of 64: llama.cpp refuses (or aborts on) this file
        writeFileSync(broken, buildTinyLlama({ quant: "f32", overrideMetadata: { "llama.attention.head_count": { type: "u32", value: 3 } } }));
        const run = measureDrift({ reference: tiny.f32, candidates: [broken], texts: TEXTS.slice(0, 1), threads: 1, gpu: false });
        await expect(run).rejects.toBeInstanceOf(EddyError);
        await expect(run).rejects.toThrow(/token drift/);
    });
});

const shared = sharedModelsDir();
if (!shared) console.warn("[skip] token drift on stories260K: set EDDY_TEST_MODELS to the folder holding stories260K*.gguf");

describe.skipIf(!shared)("token drift on stories260K (EDDY_TEST_MODELS)", () => {
    const file = (name: string) => path.join(shared ?? "", name);

    it("gives KL 0 against itself, and Q4_0 drifts more than Q8_0", async () => {
        const f32 = file("stories260K.gguf");
        const report = await measureDrift({ reference: f32, candidates: [f32, file("stories260K-q8_0.gguf"), file("stories260K-q4_0.gguf")], texts: TEXTS, threads: 1, gpu: false });
        const [self, q8, q4] = report.results;
        expect(report.vocabulary).toBe(512);
        expect(self!.kl_max).toBeLessThanOrEqual(1e-9);
        expect(self!.top1_agreement).toBe(1);
        expect(q4!.kl_mean!).toBeGreaterThan(q8!.kl_mean!);
        expect(q4!.top1_agreement!).toBeLessThanOrEqual(q8!.top1_agreement!);
    });
});
