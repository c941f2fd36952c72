/**
 * `npm run bench:generate`: eddy's llama backend against a minimal direct node-llama-cpp loop, same run,
 * same model, threads, sequences and prompts. Prints one JSON object:
 *   eddy_vs_direct          eddy's aggregate tok/s ÷ the direct script's (should be ≥ 0.9)
 *   batched_vs_sequential   eddy with N sequences ÷ eddy with 1
 *   auto_threads_vs_best    eddy with auto-tuned threads ÷ the best fixed thread count tried
 * Uses stories260K when EDDY_TEST_MODELS is set, else eddy's tiny model. Each figure is the best of
 * REPEATS runs (the machine is shared; the best run is the least disturbed one).
 */
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { getLlama, LlamaCompletion, LlamaLogLevel } from "node-llama-cpp";
import { ensureTinyModels } from "../src/inference/gguf/tinyModel.js";
import { createLlamaBackend } from "../src/inference/llama/LlamaBackend.js";
import type { GenerationRequest } from "../src/inference/types.js";

const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const SEQUENCES = Number(process.env.BENCH_SEQUENCES ?? 4);
const THREADS = Number(process.env.BENCH_THREADS ?? 1);
const MAX_TOKENS = Number(process.env.BENCH_MAX_TOKENS ?? 128);
const PROMPTS = 16;
const ROUNDS = 2;

const dir = process.env.EDDY_TEST_MODELS;
const modelPath = dir ? path.join(dir, "stories260K.gguf") : ensureTinyModels().f32;
const texts = Array.from({ length: PROMPTS }, (_, i) => `Once upon a time, there was a ${["little girl", "big dog", "small cat", "happy boy"][i % 4]} who had ${i + 2} friends`);

/** The fixed prompt set: PROMPTS prompts × ROUNDS rounds (the thread sweep uses a small slice of it). */
function requests(small = false): GenerationRequest[] {
    const prompts = small ? texts.slice(0, 8) : texts;
    return prompts.flatMap((t, p) =>
        Array.from({ length: small ? 1 : ROUNDS }, (_, r) => ({
            id: `${p}/${r}`,
            messages: [{ role: "user" as const, content: t }],
            decoding: { temperature: 0 },
            seed: r,
            maxTokens: small ? 32 : MAX_TOKENS,
            prefixKey: `p${p}`
        }))
    );
}

/** eddy: aggregate generated tokens per second over the whole prompt set (model loading excluded). */
async function eddy(opts: { threads?: number; sequences: number }, small = false): Promise<{ tps: number; threads: number }> {
    const backend = await createLlamaBackend({ modelPath, promptFormat: "raw", onWarning: () => {}, ...opts });
    try {
        let best = 0;
        // The thread sweep runs once on a small slice: a bad thread count can be ~1000x slower on a busy machine.
        for (let i = 0; i < (small ? 1 : REPEATS); i++) {
            const t0 = performance.now();
            let tokens = 0;
            for await (const r of backend.generate(requests(small))) tokens += r.generatedTokens;
            best = Math.max(best, tokens / ((performance.now() - t0) / 1000));
        }
        return { tps: best, threads: (await backend.metadata()).threads ?? 0 };
    } finally {
        await backend.close();
    }
}

/** The baseline: node-llama-cpp used directly, sequences pulling prompts from one list. */
async function direct(threads: number, sequences: number): Promise<number> {
    const llama = await getLlama({ gpu: false, maxThreads: threads, build: "never", logLevel: LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath });
    const context = await model.createContext({ sequences, threads: { ideal: threads, min: threads }, contextSize: Math.min(model.trainContextSize, 4096) });
    const completions = Array.from({ length: sequences }, () => new LlamaCompletion({ contextSequence: context.getSequence() }));
    let best = 0;
    for (let i = 0; i < REPEATS; i++) {
        const work = requests();
        let next = 0;
        let tokens = 0;
        const t0 = performance.now();
        await Promise.all(
            completions.map(async (c) => {
                while (next < work.length) {
                    const req = work[next++]!;
                    await c.generateCompletion(req.messages[0]!.content, { maxTokens: MAX_TOKENS, temperature: 0, repeatPenalty: false, onToken: (t) => (tokens += t.length) });
                }
            })
        );
        best = Math.max(best, tokens / ((performance.now() - t0) / 1000));
    }
    await context.dispose();
    await model.dispose();
    await llama.dispose();
    return best;
}

const cores = os.availableParallelism();
const directTps = await direct(THREADS, SEQUENCES);
const batched = await eddy({ threads: THREADS, sequences: SEQUENCES });
const sequential = await eddy({ threads: THREADS, sequences: 1 });
const fixed: Record<number, number> = {};
for (const t of [...new Set([1, 2, 4, 8].filter((t) => t < cores).concat(cores))]) fixed[t] = (await eddy({ threads: t, sequences: SEQUENCES }, true)).tps;
const auto = await eddy({ sequences: SEQUENCES }, true);
const bestFixed = Math.max(...Object.values(fixed));

console.log(
    JSON.stringify(
        {
            model: path.basename(modelPath),
            threads: THREADS,
            sequences: SEQUENCES,
            prompts: PROMPTS,
            rounds: ROUNDS,
            max_tokens: MAX_TOKENS,
            direct_tok_s: Math.round(directTps),
            eddy_tok_s: Math.round(batched.tps),
            eddy_vs_direct: round(batched.tps / directTps),
            sequential_tok_s: Math.round(sequential.tps),
            batched_vs_sequential: round(batched.tps / sequential.tps),
            fixed_threads_tok_s: Object.fromEntries(Object.entries(fixed).map(([k, v]) => [k, Math.round(v)])),
            auto_threads: auto.threads,
            auto_tok_s: Math.round(auto.tps),
            auto_threads_vs_best: round(auto.tps / bestFixed)
        },
        null,
        2
    )
);

function round(x: number): number {
    return Math.round(x * 1000) / 1000;
}
