/**
 * `npm run bench:embed`: sentences embedded per second with eddy's Embedder, batched (32 per
 * forward pass) against one sentence per pass, measured in the same run. On eddy's tiny model
 * (written to a temp folder) and, when EDDY_EMBED_MODEL names one, on a real model folder.
 * Prints JSON; `batched_vs_single` is the speed-up of batching (goal >= 2).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Embedder } from "../src/embed/Embedder.js";
import { sharedTokenizerDir, writeTinyEmbedModel } from "../src/embed/tinyEmbedModel.js";

const N = Number(process.env.EDDY_BENCH_SENTENCES ?? 512);
const BATCH = 32;

// Wrapper-like sentences of varied length, made from a fixed word list (deterministic).
const WORDS = "write a python function that returns the sum of the list values between two indices inclusive answer with one code block no comments".split(" ");
const sentences = Array.from({ length: N }, (_, i) => Array.from({ length: 6 + ((i * 7) % 23) }, (_, j) => WORDS[(i * 13 + j * 5) % WORDS.length]).join(" ") + ".");

async function measure(dir: string): Promise<Record<string, unknown>> {
    const e = await Embedder.load(dir, { batchSize: BATCH });
    try {
        await e.embed(sentences.slice(0, BATCH)); // warm-up: session and kernels
        const rate = async (batch: number) => {
            const t0 = performance.now();
            await e.embed(sentences, batch);
            return N / ((performance.now() - t0) / 1000);
        };
        const single = await rate(1);
        const batched = await rate(BATCH);
        return {
            model: dir,
            hidden_size: e.info.hiddenSize ?? null,
            onnx: path.basename(e.info.onnxFile),
            sentences: N,
            batch_size: BATCH,
            single_per_s: Math.round(single),
            batched_per_s: Math.round(batched),
            batched_vs_single: Number((batched / single).toFixed(2))
        };
    } finally {
        await e.close();
    }
}

const tmp = mkdtempSync(path.join(tmpdir(), "eddy-bench-embed-"));
try {
    const from = sharedTokenizerDir();
    const tiny = writeTinyEmbedModel(path.join(tmp, "eddy-tiny-embed"), from ? { tokenizerFrom: from } : {});
    const out: Record<string, unknown> = { threads: 1, tiny: { ...(await measure(tiny)), tokenizer: from ? "all-MiniLM-L6-v2 (copied)" : "eddy's own" } };
    if (process.env.EDDY_EMBED_MODEL) out.model = await measure(path.resolve(process.env.EDDY_EMBED_MODEL));
    else out.model = "set EDDY_EMBED_MODEL to a model folder to measure a real model too";
    console.log(JSON.stringify(out, null, 2));
} finally {
    rmSync(tmp, { recursive: true, force: true });
}
