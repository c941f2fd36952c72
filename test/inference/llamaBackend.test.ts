import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTinyLlama, ensureTinyModels, type TinyModelPaths } from "../../src/inference/gguf/tinyModel.js";
import type { Backend, GenerationRequest, GenerationResult } from "../../src/inference/types.js";
import { PrefixQueue } from "../../src/inference/llama/scheduler.js";
import { built } from "../support/queueBuilt.js";

/** Built: its llama.cpp worker processes run compiled eddy, as the CLI's do (from src/ each would start under tsx). */
const { createLlamaBackend } = await built<typeof import("../../src/inference/llama/LlamaBackend.js")>("inference/llama/LlamaBackend.js");

let tiny: TinyModelPaths;
const tmp = mkdtempSync(path.join(os.tmpdir(), "eddy-llama-"));
/** A tiny-model variant whose chat template ends the prompt with the user's text, so "… E" ends in "ND." + </s>. */
const CHAT_TEMPLATE =
    "{% for m in messages %}{% if m['role'] == 'system' %}{{ m['content'] }}\n{% elif m['role'] == 'user' %}{{ m['content'] }}{% else %}{{ m['content'] }}</s>{% endif %}{% endfor %}";
let chatModel: string;

beforeAll(() => {
    tiny = ensureTinyModels();
    chatModel = path.join(tmp, "tiny-chat.gguf");
    writeFileSync(chatModel, buildTinyLlama({ quant: "f32", chatTemplate: CHAT_TEMPLATE }));
});

const req = (id: string, content: string, over: Partial<GenerationRequest> = {}): GenerationRequest => ({
    id,
    messages: [{ role: "user", content }],
    decoding: { temperature: 0 },
    seed: 1,
    maxTokens: 24,
    ...over
});

async function collect(b: Backend, reqs: GenerationRequest[]): Promise<Map<string, GenerationResult>> {
    const out = new Map<string, GenerationResult>();
    for await (const r of b.generate(reqs)) out.set(r.id, r);
    return out;
}

/** 6 prompts × 3 rounds, rounds share a prefix key. */
function workload(decoding: GenerationRequest["decoding"]): GenerationRequest[] {
    const reqs: GenerationRequest[] = [];
    for (let p = 0; p < 6; p++)
        for (let r = 0; r < 3; r++)
            reqs.push(req(`${p}/${r}`, `Write f${p}(x): return x + ${p * 7 + 1}`, { decoding, seed: 100 * p + r, prefixKey: `p${p}` }));
    return reqs;
}

describe("llama backend on eddy's tiny model", () => {
    let one: Backend;
    let four: Backend;
    /** The opt-in batched mode: one shared context, evaluated prompts reused across rounds. */
    let fast: Backend;
    const warnings: string[] = [];
    beforeAll(async () => {
        // "raw": the prompt ends with the question's own last character, so answers differ by prompt
        [one, four, fast] = await Promise.all([
            createLlamaBackend({ modelPath: tiny.f32, threads: 1, sequences: 1, promptFormat: "raw", onWarning: (l) => warnings.push(l) }),
            createLlamaBackend({ modelPath: tiny.f32, threads: 1, sequences: 4, promptFormat: "raw", onWarning: (l) => warnings.push(l) }),
            createLlamaBackend({ modelPath: tiny.f32, threads: 1, sequences: 4, promptFormat: "raw", mode: "fast", onWarning: (l) => warnings.push(l) })
        ]);
    });
    afterAll(async () => {
        await Promise.all([one?.close(), four?.close(), fast?.close()]);
    });

    it("uses the prompt format it was told to, silently only when told", async () => {
        expect(warnings).toEqual([]);
        expect((await one.metadata()).promptFormat).toBe("raw");
    });

    it("greedy output is the same across two runs and across 1 vs 4 sequences", async () => {
        const work = workload({ temperature: 0 });
        const a = await collect(one, work);
        const b = await collect(four, work);
        const c = await collect(four, work);
        expect(a.size).toBe(work.length);
        for (const r of work) {
            expect(["max_tokens", "eos"]).toContain(a.get(r.id)!.stopReason);
            expect(b.get(r.id)!.text).toBe(a.get(r.id)!.text);
            expect(b.get(r.id)!.generatedTokens).toBe(a.get(r.id)!.generatedTokens);
            expect(c.get(r.id)!.text).toBe(a.get(r.id)!.text);
        }
        // different prompts give different answers (the model is not constant)
        expect(new Set(work.map((r) => a.get(r.id)!.text)).size).toBeGreaterThan(1);
    });

    it("reproducible mode: a round reusing its prompt's evaluated state answers exactly as a fresh evaluation", async () => {
        for (const decoding of [{ temperature: 0 }, { temperature: 1, topK: 40 }]) {
            const work = workload(decoding);
            // Rounds back to back on one sequence: rounds 1 and 2 find the prompt evaluated.
            const reused = await collect(one, work);
            // The same requests interleaved by round and ungrouped: every one starts from a clean state.
            const interleaved = [0, 1, 2].flatMap((r) => work.filter((q) => q.id.endsWith(`/${r}`))).map(({ prefixKey: _p, ...q }) => q);
            const fresh = await collect(one, interleaved);
            let reuses = 0;
            for (const q of work) {
                expect(fresh.get(q.id)!.cachedPromptTokens).toBe(0);
                if (reused.get(q.id)!.cachedPromptTokens! > 0) reuses++;
                expect(reused.get(q.id)!.text).toBe(fresh.get(q.id)!.text);
            }
            expect(reuses).toBe(12); // rounds 1 and 2 of the 6 prompts
        }
    });

    it("fast mode: rounds of one prompt reuse the evaluated prompt on the same sequence", async () => {
        const work = workload({ temperature: 0 });
        const res = await collect(fast, work);
        let sameSequence = 0;
        for (let p = 0; p < 6; p++) {
            const rounds = [0, 1, 2].map((r) => res.get(`${p}/${r}`)!);
            for (let r = 1; r < 3; r++) {
                if (rounds[r]!.sequence !== rounds[r - 1]!.sequence) continue; // stolen at the tail
                sameSequence++;
                // a round that follows its predecessor on the same sequence finds all but the last prompt token evaluated
                expect(rounds[r]!.cachedPromptTokens).toBe(rounds[r]!.promptTokens - 1);
            }
        }
        // grouping keeps most rounds on their prompt's sequence (only the tail may be stolen)
        expect(sameSequence).toBeGreaterThanOrEqual(6);
    });

    it("metadata records the model, machine and settings", async () => {
        const m = await four.metadata();
        expect(m.backend).toBe("llama");
        expect(m.model?.sha256).toMatch(/^[0-9a-f]{64}$/);
        expect(m.model?.quantization).toBe("F32");
        expect(m.model?.architecture).toBe("llama");
        expect(m.model?.sizeBytes).toBeGreaterThan(0);
        expect(m.model?.contextLength).toBe(2048);
        expect(m.gpu).toBe("cpu");
        expect(m.threads).toBe(1);
        expect(m.threadsSource).toBe("user");
        expect(m.sequences).toBe(4);
        expect(m.contextSize).toBe(2048);
        expect(m.batchSize).toBe(512); // pinned, so a prompt is always evaluated in the same chunks
        expect(m.mode).toBe("reproducible");
        expect((await fast.metadata()).mode).toBe("fast");
        expect(m.llamaCppRelease).toMatch(/^b?\d+|v/);
        expect(m.nodeLlamaCppVersion).toMatch(/^\d+\.\d+\.\d+/);
    });

    it("stops at max tokens and reports a prompt longer than the context without dying", async () => {
        const long = "word ".repeat(500); // 2,500 tokens with a byte-level vocabulary: more than the 2,048 context
        const res = await collect(one, [req("long", long), req("short", "hello", { maxTokens: 5 })]);
        expect(res.get("long")!.stopReason).toBe("context_full");
        expect(res.get("long")!.error).toMatch(/prompt is \d+ tokens but the context holds 2048/);
        expect(res.get("short")!.stopReason).toBe("max_tokens");
        expect(res.get("short")!.generatedTokens).toBe(5);
    });
});

describe("chat template, end of generation and reproducible sampling", () => {
    it("uses the GGUF's chat template with an explicit system prompt and stops at </s>", async () => {
        const b = await createLlamaBackend({ modelPath: chatModel, threads: 1, sequences: 2, onWarning: () => {} });
        try {
            expect((await b.metadata()).promptFormat).toBe("gguf-chat-template");
            expect((await b.metadata()).model?.chatTemplate).toBe(CHAT_TEMPLATE);
            const res = await collect(b, [req("eos", "THE E", { messages: [{ role: "system", content: "S" }, { role: "user", content: "THE E" }] })]);
            const r = res.get("eos")!;
            expect(r.text).toBe("ND.");
            expect(r.stopReason).toBe("eos");
            expect(r.generatedTokens).toBe(3);
            // system "S\n" + "THE E": with BOS and the SentencePiece space prefix, 11 tokens
            expect(r.promptTokens).toBeGreaterThan(6);
        } finally {
            await b.close();
        }
    });

    it("seeded sampling is reproduced exactly in reproducible mode, and the seed matters", async () => {
        const sampled = { temperature: 1, topK: 40, topP: 0.95 };
        const work = workload(sampled);
        const warnings: string[] = [];
        const a = await createLlamaBackend({ modelPath: tiny.q8_0, threads: 1, sequences: 2, onWarning: (l) => warnings.push(l) });
        try {
            // the tiny models have no chat template: eddy says so and records the plain completion prompt
            expect(warnings.some((w) => /no chat template.*plain completion/.test(w))).toBe(true);
            expect((await a.metadata()).promptFormat).toBe("plain-completion");
            expect((await a.metadata()).mode).toBe("reproducible");
            expect((await a.metadata()).sequences).toBe(2);
            const first = await collect(a, work);
            const second = await collect(a, [...work].reverse());
            for (const r of work) expect(second.get(r.id)!.text).toBe(first.get(r.id)!.text);
            // rounds of one prompt differ only by seed: with temperature 1 they must not all agree
            const distinct = new Set([0, 1, 2].map((r) => first.get(`0/${r}`)!.text));
            expect(distinct.size).toBeGreaterThan(1);
        } finally {
            await a.close();
        }
    });
});

describe("bad input never kills the orchestrator", () => {
    it("missing file, not a GGUF, truncated GGUF: clear errors", async () => {
        await expect(createLlamaBackend({ modelPath: path.join(tmp, "missing.gguf") })).rejects.toThrow(/model file not found.*(models\/|--model)/);
        writeFileSync(path.join(tmp, "notes.gguf"), "just text\n");
        await expect(createLlamaBackend({ modelPath: path.join(tmp, "notes.gguf") })).rejects.toThrow(/not a GGUF file/);
        const full = buildTinyLlama({ quant: "f32" });
        writeFileSync(path.join(tmp, "cut.gguf"), full.subarray(0, full.length - 5000));
        await expect(createLlamaBackend({ modelPath: path.join(tmp, "cut.gguf"), threads: 1, sequences: 1 })).rejects.toThrow(/cannot load cut\.gguf/);
    });

    it("an hf: URI without --allow-download is refused without touching the network", async () => {
        await expect(createLlamaBackend({ modelPath: "hf:someone/some-model-GGUF:Q4_K_M" })).rejects.toThrow(/--allow-download/);
    });

    it("a tensor with the wrong shape is rejected with llama.cpp's reason", async () => {
        writeFileSync(path.join(tmp, "shape.gguf"), buildTinyLlama({ quant: "f32", overrideDims: { tensor: "blk.0.attn_q.weight", dims: [64, 65] } }));
        await expect(createLlamaBackend({ modelPath: path.join(tmp, "shape.gguf"), threads: 1, sequences: 1 })).rejects.toThrow(/wrong shape/);
    });

    it("a file that makes llama.cpp abort (GGML_ASSERT) becomes an error here", async () => {
        // head_count 0: llama.cpp's loader hits GGML_ASSERT and the worker process dies with SIGABRT
        writeFileSync(path.join(tmp, "abort.gguf"), buildTinyLlama({ quant: "f32", overrideMetadata: { "llama.attention.head_count": { type: "u32", value: 0 } } }));
        await expect(createLlamaBackend({ modelPath: path.join(tmp, "abort.gguf"), threads: 1, sequences: 1 })).rejects.toThrow(/crashed \(SIGABRT\).*GGML_ASSERT/);
        // and this process still works: load a good model afterwards
        const b = await createLlamaBackend({ modelPath: tiny.q4_0, threads: 1, sequences: 1, onWarning: () => {} });
        const res = await collect(b, [req("ok", "hello", { maxTokens: 3 })]);
        expect(res.get("ok")!.generatedTokens).toBe(3);
        await b.close();
    });
});

describe("shared queue", () => {
    it("keeps a prefix group on the sequence that started it and lets idle sequences steal at the tail", async () => {
        const q = new PrefixQueue<{ id: string; prefixKey?: string }>();
        for (const k of ["a", "b"]) for (let r = 0; r < 3; r++) q.push({ id: `${k}${r}`, prefixKey: k });
        q.close();
        expect((await q.take(0))!.id).toBe("a0");
        expect((await q.take(1))!.id).toBe("b0");
        expect((await q.take(0))!.id).toBe("a1");
        expect((await q.take(0))!.id).toBe("a2");
        // slot 0 is idle and every group is claimed: it steals from b
        expect((await q.take(0))!.id).toBe("b1");
        expect((await q.take(1))!.id).toBe("b2");
        expect(await q.take(1)).toBeUndefined();
    });

    it("drops the queued requests of a cancelled call and keeps the others", async () => {
        const q = new PrefixQueue<{ id: string; call: number; prefixKey?: string }>();
        for (const call of [1, 2]) for (let r = 0; r < 3; r++) q.push({ id: `${call}.${r}`, call, prefixKey: `p${call}` });
        expect((await q.take(0))!.id).toBe("1.0");
        expect(q.remove((item) => item.call === 1)).toBe(2);
        q.close();
        const rest: string[] = [];
        for (let item = await q.take(0); item; item = await q.take(0)) rest.push(item.id);
        expect(rest).toEqual(["2.0", "2.1", "2.2"]);
    });
});
