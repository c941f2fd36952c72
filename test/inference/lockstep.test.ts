import path from "node:path";
import { getLlama, LlamaLogLevel, LlamaText, SpecialToken, type Llama, type LlamaModel } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureTinyModels, type TinyModelPaths } from "../../src/inference/gguf/tinyModel.js";
import { GroupQueue } from "../../src/inference/llama/groupQueue.js";
import { LockstepSlot } from "../../src/inference/llama/lockstep.js";
import { createPromptRenderer } from "../../src/inference/llama/promptFormat.js";
import { StopTriggers } from "../../src/inference/llama/stopTriggers.js";
import type { Backend, GenerationRequest, GenerationResult } from "../../src/inference/types.js";
import { sharedModelsDir } from "../run/sharedModels.js";
import { built } from "../support/queueBuilt.js";

/** Built: its llama.cpp worker processes run compiled eddy, as the CLI's do (from src/ each would start under tsx). */
const { createLlamaBackend } = await built<typeof import("../../src/inference/llama/LlamaBackend.js")>("inference/llama/LlamaBackend.js");

let tiny: TinyModelPaths;
beforeAll(() => {
    tiny = ensureTinyModels();
});

const shared = sharedModelsDir();
/** stories260K where the shared models are; eddy's tiny model otherwise. */
const realModel = (): string => (shared ? path.join(shared, "stories260K.gguf") : tiny.f32);
const STORIES = ["a little girl", "a big dog", "a small cat", "a happy boy", "an old man"];

/** n requests cut into lockstep groups of g, in order. */
function grouped(n: number, g: number, decoding: GenerationRequest["decoding"], maxTokens = 60): GenerationRequest[] {
    return Array.from({ length: n }, (_, i) => ({
        id: `q${i}`,
        messages: [{ role: "user" as const, content: `Once upon a time, there was ${STORIES[i % STORIES.length]} who had ${i + 2} friends` }],
        decoding,
        seed: 500 + i,
        maxTokens,
        group: { id: `g${Math.floor(i / g)}`, member: i % g, size: Math.min(g, n - g * Math.floor(i / g)) }
    }));
}

async function collect(b: Backend, reqs: Iterable<GenerationRequest>): Promise<Map<string, GenerationResult>> {
    const out = new Map<string, GenerationResult>();
    for await (const r of b.generate(reqs)) out.set(r.id, r);
    return out;
}

const texts = (m: Map<string, GenerationResult>): Record<string, string> => Object.fromEntries([...m].sort(([a], [b]) => a.localeCompare(b)).map(([k, r]) => [k, `${r.stopReason}:${r.text}`]));

describe("the lockstep group queue", () => {
    it("a group is ready once all its members are in, in member order; groups are taken in the order they completed", async () => {
        const q = new GroupQueue<{ id: string; group?: { id: string; member: number; size: number } }>();
        q.push(1, { id: "a1", group: { id: "a", member: 1, size: 2 } });
        q.push(1, { id: "b0", group: { id: "b", member: 0, size: 1 } });
        q.push(1, { id: "solo" });
        q.push(1, { id: "a0", group: { id: "a", member: 0, size: 2 } });
        const order: string[][] = [];
        for (let i = 0; i < 3; i++) order.push((await q.take())!.members.map((m) => m.id));
        expect(order).toEqual([["b0"], ["solo"], ["a0", "a1"]]);
    });

    it("a call that ends with a group incomplete gets its members back; a cancelled call's groups are dropped", async () => {
        const q = new GroupQueue<{ id: string; group?: { id: string; member: number; size: number } }>();
        q.push(1, { id: "x0", group: { id: "x", member: 0, size: 3 } });
        q.push(2, { id: "x0'", group: { id: "x", member: 0, size: 1 } }); // same group id, another call: another group
        q.push(3, { id: "c", group: { id: "c", member: 0, size: 1 } });
        expect(q.end(1).map((m) => m.id)).toEqual(["x0"]);
        q.remove(3);
        q.close();
        expect((await q.take())!.members.map((m) => m.id)).toEqual(["x0'"]);
        expect(await q.take()).toBeUndefined();
    });
});

describe("stop triggers for token-by-token decoding", () => {
    let llama: Llama;
    let model: LlamaModel;
    beforeAll(async () => {
        llama = await getLlama({ gpu: false, maxThreads: 1, build: "never", logLevel: LlamaLogLevel.error });
        model = await llama.loadModel({ modelPath: tiny.f32 });
    });
    afterAll(async () => {
        await model?.dispose();
        await llama?.dispose();
    });

    it("a text trigger ends the answer where the text first shows it; one with special tokens where the tokens end with it", () => {
        const t = new StopTriggers(model, ["```", LlamaText("END"), LlamaText(new SpecialToken("EOS"))]);
        const tok = (s: string) => model.tokenize(s, false);
        expect(t.find(tok("def f(x):"))).toBeUndefined();
        expect(t.find(tok("return x``"))).toBeUndefined();
        expect(t.find(tok("return x```\nmore ```"))).toBe("return x");
        expect(t.find(tok("the END"))).toBe("the ");
        expect(t.find([...tok("bye"), model.tokens.eos!])).toBe("bye");
        expect(new StopTriggers(model, []).find(tok("```"))).toBeUndefined();
    });
});

describe("lockstep groups in the llama backend", () => {
    const backends: Backend[] = [];
    const make = async (groups: number, groupSize = 4): Promise<Backend> => {
        const b = await createLlamaBackend({ modelPath: realModel(), threads: 1, promptFormat: "raw", groupSize, groups, onWarning: () => {} });
        backends.push(b);
        return b;
    };
    afterAll(async () => {
        await Promise.all(backends.map((b) => b.close()));
    });

    it("greedy and seeded sampling give the same bytes with one, two or three groups at once, again and again", async () => {
        const [one, two, three] = [await make(1), await make(2), await make(3)];
        expect(await one.metadata()).toMatchObject({ mode: "reproducible", scheduling: "lockstep", groupSize: 4, groups: 1, sequences: 4 });
        expect(await three.metadata()).toMatchObject({ scheduling: "lockstep", groupSize: 4, groups: 3, sequences: 12 });
        for (const decoding of [{ temperature: 0 }, { temperature: 0.8 }]) {
            const work = grouped(10, 4, decoding); // groups of 4, 4 and 2
            const a = texts(await collect(one, work));
            expect(Object.values(a).every((t) => !t.startsWith("error") && t.length > 40)).toBe(true);
            expect(texts(await collect(two, work))).toEqual(a);
            expect(texts(await collect(three, work))).toEqual(a);
            expect(texts(await collect(three, work))).toEqual(a);
            // Different prompts, different stories (the model is not constant).
            expect(new Set(Object.values(a)).size).toBeGreaterThan(5);
        }
    }, 300_000);

    it("a group's bytes do not depend on the other groups of the call, nor on their order", async () => {
        const b = backends[1] ?? (await make(2));
        const work = grouped(12, 4, { temperature: 0.8 });
        const all = texts(await collect(b, work));
        const reversed = texts(await collect(b, [...work.slice(8), ...work.slice(4, 8), ...work.slice(0, 4)]));
        const alone = texts(await collect(b, work.slice(4, 8)));
        expect(reversed).toEqual(all);
        expect(alone).toEqual(Object.fromEntries(Object.entries(all).filter(([k]) => ["q4", "q5", "q6", "q7"].includes(k))));
    }, 300_000);

    it("a member whose prompt does not fit fails alone; a request without a group is a group of one; a group sent in part fails", async () => {
        const b = await createLlamaBackend({ modelPath: tiny.f32, threads: 1, promptFormat: "raw", groupSize: 3, groups: 1, contextSize: 64, onWarning: () => {} });
        backends.push(b);
        const work = grouped(3, 3, { temperature: 0 }, 16);
        work[1] = { ...work[1]!, messages: [{ role: "user", content: "x".repeat(2000) }] };
        const res = await collect(b, [...work, { id: "solo", messages: [{ role: "user", content: "E" }], decoding: { temperature: 0 }, seed: 1, maxTokens: 8 }]);
        expect(res.get("q1")).toMatchObject({ stopReason: "context_full", error: expect.stringMatching(/prompt is \d+ tokens but the context holds \d+; raise --context-size/) });
        expect(res.get("q0")!.stopReason).not.toBe("error");
        expect(res.get("q2")!.stopReason).not.toBe("error");
        expect(res.get("solo")).toMatchObject({ stopReason: "eos", text: "ND." });
        const part = await collect(b, grouped(3, 3, { temperature: 0 }, 16).slice(0, 2));
        expect([...part.values()].map((r) => r.error)).toEqual(Array(2).fill("its lockstep group never arrived whole (the caller sent only part of it)"));
    });
});

describe("the lockstep slot keeps node-llama-cpp's scheduler from forming batches of its own", () => {
    let llama: Llama;
    let model: LlamaModel;
    beforeAll(async () => {
        llama = await getLlama({ gpu: false, maxThreads: 2, build: "never", logLevel: LlamaLogLevel.error });
        model = await llama.loadModel({ modelPath: realModel() });
    });
    afterAll(async () => {
        await model?.dispose();
        await llama?.dispose();
    });

    it("in process: the same bytes on a fresh slot and on one that ran other groups; a batch it did not plan fails loudly", async () => {
        const renderer = createPromptRenderer(model, "raw", () => {});
        const run = async (slot: LockstepSlot, reqs: GenerationRequest[]): Promise<Record<string, string>> => {
            const out: Record<string, string> = {};
            await slot.run(model, renderer, reqs, (i, r) => (out[reqs[i]!.id] = r.error ?? r.text));
            return out;
        };
        const [g1, g2] = [grouped(8, 4, { temperature: 0.8 }).slice(0, 4), grouped(8, 4, { temperature: 0.8 }).slice(4)];
        const used = await LockstepSlot.create(model, { groupSize: 4, contextSize: 256, batchSize: 512, threads: 1 });
        const fresh = await LockstepSlot.create(model, { groupSize: 4, contextSize: 256, batchSize: 512, threads: 1 });
        try {
            const first = await run(used, g1);
            const second = await run(used, g2);
            expect(await run(fresh, g2)).toEqual(second);
            expect(await run(used, g1)).toEqual(first);
            // Two groups on one slot at once (never done by eddy): the items of both arrive in one dispatch,
            // which the slot's check refuses instead of decoding a batch that no plan describes.
            const [x, y] = await Promise.all([run(used, g1), run(used, g2)]);
            expect([...Object.values(x), ...Object.values(y)].some((t) => /lockstep batch broken/.test(t))).toBe(true);
            // The slot is clean again afterwards.
            expect(await run(used, g1)).toEqual(first);
        } finally {
            await used.dispose();
            await fresh.dispose();
        }
    }, 300_000);
});
