/**
 * `npm run bench:quant`: the time `eddy quant make` takes for a ladder against llama-quantize run directly on the
 * same source with the same types and threads (goal from issue #45: overhead ≤ 1.1x). The source is a random llama
 * written by eddy's GGUF writer with every dimension a multiple of 256 (K-quants apply without fallback), ~50M
 * parameters (F32, ~200 MB) unless --dim/--layers say otherwise. Both sides run sequentially, one after the other,
 * direct first; eddy's time includes hashing the source and every file, the header checks and the manifest.
 * Prints one JSON object.
 *
 *   npx tsx scripts/bench-quant.ts [--types Q8_0,Q6_K,Q5_K_M,Q4_K_M,Q3_K_S] [--threads 1] [--dim 1024] [--layers 4]
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { buildTinyLlama } from "../src/inference/gguf/tinyModel.js";
import { requireLlamaTool } from "../src/quant/make/llamaTools.js";
import { makeLadder } from "../src/quant/make/makeLadder.js";

function arg(name: string): string | undefined {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : undefined;
}

const types = (arg("types") ?? "Q8_0,Q6_K,Q5_K_M,Q4_K_M,Q3_K_S").split(",");
const threads = Number(arg("threads") ?? 1);
const dim = Number(arg("dim") ?? 1024);
const layers = Number(arg("layers") ?? 4);
const work = mkdtempSync(path.join(tmpdir(), "eddy-bench-quant-"));
const s = (ms: number): number => Math.round(ms) / 1000;

try {
    const quantize = requireLlamaTool("llama-quantize");
    const source = path.join(work, "bench-f32.gguf");
    writeFileSync(source, buildTinyLlama({ quant: "f32", shape: { dim, layers, heads: dim / 64, kvHeads: dim / 128, ff: Math.round((dim * 11) / 4 / 256) * 256, context: 512 }, name: "bench" }));

    // llama-quantize alone, each type in turn
    const direct = path.join(work, "direct");
    mkdirSync(direct);
    const perTypeDirect: Record<string, number> = {};
    const t0 = performance.now();
    for (const t of types) {
        const t1 = performance.now();
        const r = spawnSync(quantize.path, [source, path.join(direct, `${t}.gguf`), t, String(threads)], { encoding: "utf8" });
        if (r.status !== 0) throw new Error(`llama-quantize ${t} failed: ${r.stderr.slice(-500)}`);
        perTypeDirect[t] = s(performance.now() - t1);
    }
    const directMs = performance.now() - t0;

    // eddy quant make, same types and threads, into an empty folder
    const t2 = performance.now();
    const ladder = await makeLadder({ source, types, outDir: path.join(work, "eddy"), imatrix: "none", threads });
    const eddyMs = performance.now() - t2;

    // and again: every file kept after verification (sha256 and header)
    const t3 = performance.now();
    await makeLadder({ source, types, outDir: path.join(work, "eddy"), imatrix: "none", threads });
    const keptMs = performance.now() - t3;

    console.log(
        JSON.stringify(
            {
                source_bytes: statSync(source).size,
                parameters_millions: Math.round(ladder.files.length ? (statSync(source).size / 4 / 1e6) * 10 : 0) / 10,
                types,
                threads,
                llama_cpp: { release: quantize.release, commit: quantize.commit },
                direct_s: s(directMs),
                direct_per_type_s: perTypeDirect,
                eddy_s: s(eddyMs),
                eddy_tool_s: Math.round(ladder.toolSeconds * 1000) / 1000,
                overhead_ratio: Math.round((eddyMs / directMs) * 1000) / 1000,
                goal_ratio: 1.1,
                rerun_all_kept_s: s(keptMs),
                sizes_bytes: Object.fromEntries(ladder.files.map((f) => [f.type, f.size_bytes])),
                bits_per_weight: Object.fromEntries(ladder.files.map((f) => [f.type, f.bits_per_weight]))
            },
            null,
            2
        )
    );
} finally {
    rmSync(work, { recursive: true, force: true });
}
