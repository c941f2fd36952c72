/**
 * `npm run bench:generate`: eddy's llama backend against a minimal direct node-llama-cpp loop, same run,
 * same model, threads, sequences and prompts. Prints one JSON object:
 *   eddy_vs_direct          eddy's aggregate tok/s (default, reproducible mode) ÷ the direct script's
 *   reproducible_vs_fast    eddy's default reproducible mode ÷ the fastest non-reproducible configuration
 *                           (eddy --fast, or the direct script: one context batching N sequences); goal ≥ 0.9
 *   batched_vs_sequential   eddy (reproducible) with N sequences ÷ eddy (reproducible) with 1; goal ≥ 1.3
 *   auto_threads_vs_best    eddy with auto-tuned threads ÷ the best fixed thread count tried
 * Uses stories260K (EDDY_TEST_MODELS, or ../shared/models beside the checkout), else eddy's tiny model. Each figure is the best of
 * REPEATS interleaved runs (the machine is shared; the best run is the least disturbed one).
 */
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { getLlama, LlamaCompletion, LlamaLogLevel } from "node-llama-cpp";
import { ensureTinyModels } from "../src/inference/gguf/tinyModel.js";
import { createLlamaBackend } from "../src/inference/llama/LlamaBackend.js";
import type { GenerationRequest } from "../src/inference/types.js";

const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
// Reproducible mode runs one context per sequence, each on its own core: as many as there are cores (at most 4).
const SEQUENCES = Number(process.env.BENCH_SEQUENCES ?? Math.min(4, os.availableParallelism()));
const THREADS = Number(process.env.BENCH_THREADS ?? 1);
const MAX_TOKENS = Number(process.env.BENCH_MAX_TOKENS ?? 128);
const PROMPTS = 16;
const ROUNDS = 2;

const shared = [process.env.EDDY_TEST_MODELS, path.resolve(import.meta.dirname, "../../shared/models")].find((d) => d && existsSync(path.join(d, "stories260K.gguf")));
const modelPath = shared ? path.join(shared, "stories260K.gguf") : ensureTinyModels().f32;
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

/** A configuration under test: something that runs the prompt set and counts generated tokens. */
interface Runner {
    run(small: boolean): Promise<number>;
    close(): Promise<void>;
    threads?: number;
}

/** eddy's backend (inference in its child process). */
async function eddyRunner(opts: { threads?: number; sequences: number; mode?: "reproducible" | "fast" }): Promise<Runner> {
    const backend = await createLlamaBackend({ modelPath, promptFormat: "raw", onWarning: () => {}, ...opts });
    return {
        threads: (await backend.metadata()).threads,
        async run(small) {
            let tokens = 0;
            for await (const r of backend.generate(requests(small))) tokens += r.generatedTokens;
            return tokens;
        },
        close: () => backend.close()
    };
}

/** The baseline: node-llama-cpp used directly in this process, sequences pulling prompts from one list. */
async function directRunner(threads: number, sequences: number): Promise<Runner> {
    const llama = await getLlama({ gpu: false, maxThreads: threads, build: "never", logLevel: LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath });
    const context = await model.createContext({ sequences, threads: { ideal: threads, min: threads }, contextSize: Math.min(model.trainContextSize, 4096) });
    const completions = Array.from({ length: sequences }, () => new LlamaCompletion({ contextSequence: context.getSequence() }));
    return {
        async run(small) {
            const work = requests(small);
            let next = 0;
            let tokens = 0;
            await Promise.all(
                completions.map(async (c) => {
                    while (next < work.length) {
                        const req = work[next++]!;
                        await c.generateCompletion(req.messages[0]!.content, { maxTokens: req.maxTokens, temperature: 0, repeatPenalty: false, onToken: (t) => (tokens += t.length) });
                    }
                })
            );
            return tokens;
        },
        async close() {
            await context.dispose();
            await model.dispose();
            await llama.dispose();
        }
    };
}

/**
 * Best tokens/s of each runner over REPEATS rounds, the runners taking turns within each round, so a
 * burst of load from other processes hits all of them alike instead of one.
 */
async function interleaved(runners: Record<string, Runner>, small: boolean, repeats: number): Promise<Record<string, number>> {
    const best: Record<string, number> = {};
    for (let i = 0; i < repeats; i++)
        for (const [name, r] of Object.entries(runners)) {
            const t0 = performance.now();
            const tokens = await r.run(small);
            best[name] = Math.max(best[name] ?? 0, tokens / ((performance.now() - t0) / 1000));
        }
    return best;
}

const cores = os.availableParallelism();
const main = {
    direct: await directRunner(THREADS, SEQUENCES),
    eddy: await eddyRunner({ threads: THREADS, sequences: SEQUENCES }),
    sequential: await eddyRunner({ threads: THREADS, sequences: 1 }),
    fast: await eddyRunner({ threads: THREADS, sequences: SEQUENCES, mode: "fast" })
};
const m = await interleaved(main, false, REPEATS);
for (const r of Object.values(main)) await r.close();

// Thread sweep on a small slice, once per setting: a bad thread count can be ~1000x slower on a busy machine.
const sweep: Record<string, Runner> = {};
for (const t of [...new Set([1, 2, 4, 8].filter((t) => t < cores).concat(cores))]) sweep[`threads_${t}`] = await eddyRunner({ threads: t, sequences: SEQUENCES });
sweep.auto = await eddyRunner({ sequences: SEQUENCES });
// One pass over every setting, then the competitive ones (within half of the best) again, interleaved.
const first = await interleaved(sweep, true, 1);
const top = Math.max(...Object.values(first));
const close = Object.fromEntries(Object.entries(sweep).filter(([k]) => first[k]! >= top / 2 || k === "auto"));
const again = REPEATS > 1 ? await interleaved(close, true, REPEATS - 1) : {};
const s = Object.fromEntries(Object.keys(first).map((k) => [k, Math.max(first[k]!, again[k] ?? 0)]));
const autoThreads = sweep.auto!.threads;
for (const r of Object.values(sweep)) await r.close();
const fixed = Object.fromEntries(Object.entries(s).filter(([k]) => k.startsWith("threads_")).map(([k, v]) => [k.slice("threads_".length), v]));
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
            repeats: REPEATS,
            direct_tok_s: Math.round(m.direct!),
            eddy_tok_s: Math.round(m.eddy!),
            eddy_vs_direct: round(m.eddy! / m.direct!),
            sequential_tok_s: Math.round(m.sequential!),
            batched_vs_sequential: round(m.eddy! / m.sequential!),
            fast_tok_s: Math.round(m.fast!),
            reproducible_vs_fast: round(m.eddy! / Math.max(m.fast!, m.direct!)),
            fixed_threads_tok_s: Object.fromEntries(Object.entries(fixed).map(([k, v]) => [k, Math.round(v)])),
            auto_threads: autoThreads,
            auto_tok_s: Math.round(s.auto!),
            auto_threads_vs_best: round(s.auto! / bestFixed)
        },
        null,
        2
    )
);

function round(x: number): number {
    return Math.round(x * 1000) / 1000;
}
