/**
 * `npm run bench:quant`: the time `eddy quant make` takes for a ladder against llama-quantize run directly on the
 * same source with the same types and threads (goal from issue #45: overhead ≤ 1.1x). The source is a random llama
 * written by eddy's GGUF writer with every dimension a multiple of 256 (K-quants apply without fallback), ~50M
 * parameters (F32, ~200 MB) unless --dim/--layers say otherwise. Both sides run sequentially, one after the other,
 * direct first; eddy's time includes hashing the source and every file, the header checks and the manifest.
 * Repeated (--repeats, default 3) in ABBA order; the medians are compared (`overhead_ratio`), and eddy's own time
 * outside llama-quantize is added to the direct median (`own_overhead_ratio`: on a shared machine llama-quantize's
 * own time moves by more than eddy adds). Prints one JSON object.
 *
 *   npx tsx scripts/bench-quant.ts [--types Q8_0,Q6_K,Q5_K_M,Q4_K_M,Q3_K_S] [--threads 1] [--dim 1024] [--layers 4] [--repeats 3]
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
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

    // Warm the page cache first: neither side should pay for reading the source from disk.
    spawnSync("cat", [source], { stdio: ["ignore", "ignore", "ignore"] });
    const repeats = Number(arg("repeats") ?? 3);
    const directRuns: number[] = [];
    const eddyRuns: number[] = [];
    const toolRuns: number[] = [];
    const perTypeDirect: Record<string, number[]> = Object.fromEntries(types.map((t) => [t, []]));
    let ladder: Awaited<ReturnType<typeof makeLadder>> | undefined;
    const runDirect = () => {
        const out = mkdtempSync(path.join(work, "direct-"));
        const t0 = performance.now();
        for (const t of types) {
            const t1 = performance.now();
            const r = spawnSync(quantize.path, [source, path.join(out, `${t}.gguf`), t, String(threads)], { encoding: "utf8" });
            if (r.status !== 0) throw new Error(`llama-quantize ${t} failed: ${r.stderr.slice(-500)}`);
            perTypeDirect[t]!.push(performance.now() - t1);
        }
        directRuns.push(performance.now() - t0);
        rmSync(out, { recursive: true, force: true });
    };
    const runEddy = async () => {
        const out = mkdtempSync(path.join(work, "eddy-"));
        const t0 = performance.now();
        ladder = await makeLadder({ source, types, outDir: out, imatrix: "none", threads });
        eddyRuns.push(performance.now() - t0);
        toolRuns.push(ladder.toolSeconds * 1000);
        return out;
    };
    // ABBA order: whatever the machine does meanwhile falls on both sides alike
    let kept = "";
    for (let i = 0; i < repeats; i++) {
        if (i % 2 === 0) {
            runDirect();
            kept = await runEddy();
        } else {
            kept = await runEddy();
            runDirect();
        }
        if (i < repeats - 1) rmSync(kept, { recursive: true, force: true });
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const directMs = median(directRuns);
    const eddyMs = median(eddyRuns);

    // A second run in a fresh process (the CLI, nothing memoised): every file verified by sha256 and header, and kept
    const cli = path.join(process.cwd(), "dist", "cli", "bin.js");
    const t3 = performance.now();
    const again = spawnSync(process.execPath, [cli, "quant", "make", source, "--types", types.join(","), "--imatrix", "none", "--out", kept, "--threads", String(threads)], { encoding: "utf8" });
    const keptMs = performance.now() - t3;
    if (again.status !== 0) throw new Error(`eddy quant make (again) failed: ${again.stderr.slice(-500)}`);

    console.log(
        JSON.stringify(
            {
                source_bytes: statSync(source).size,
                parameters_millions: Math.round((statSync(source).size / 4 / 1e6) * 10) / 10,
                types,
                threads,
                llama_cpp: { release: quantize.release, commit: quantize.commit },
                repeats,
                direct_s: s(directMs),
                direct_runs_s: directRuns.map(s),
                direct_per_type_median_s: Object.fromEntries(types.map((t) => [t, s(median(perTypeDirect[t]!))])),
                eddy_s: s(eddyMs),
                eddy_runs_s: eddyRuns.map(s),
                eddy_in_llama_quantize_s: s(median(toolRuns)),
                overhead_ratio: Math.round((eddyMs / directMs) * 1000) / 1000,
                // eddy's own work (hashing, header checks, manifest) on top of the direct time: the shared machine's noise
                // in llama-quantize's own time (which moves both medians by 10-20% here) left out
                eddy_own_s: s(median(eddyRuns.map((e, i) => e - toolRuns[i]!))),
                own_overhead_ratio: Math.round(((directMs + median(eddyRuns.map((e, i) => e - toolRuns[i]!))) / directMs) * 1000) / 1000,
                goal_ratio: 1.1,
                rerun_all_kept_cli_s: s(keptMs),
                sizes_bytes: Object.fromEntries(ladder!.files.map((f) => [f.type, f.size_bytes])),
                bits_per_weight: Object.fromEntries(ladder!.files.map((f) => [f.type, f.bits_per_weight]))
            },
            null,
            2
        )
    );
} finally {
    rmSync(work, { recursive: true, force: true });
}
