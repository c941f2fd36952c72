/**
 * `npm run bench:generate`: eddy's three ways of decoding, in one run, on the same model, prompts and
 * cores. The model is a random-weight llama of ~25M parameters that eddy's GGUF writer makes at bench
 * time, in F32 (100 MB: decoding one token streams every weight from memory, so a batch of 8 costs far
 * less than 8 steps of one; stories260K, or the same model in Q8_0, fits in the CPU's caches and
 * batching hardly shows on a CPU). Prints one JSON object:
 *   lockstep_tok_s            the default: lockstep groups of G = 8 (best of its layouts, see layouts_tok_s)
 *   per_sequence_tok_s        --group-size 1: one context per sequence, `cores / threads` of them
 *   fast_tok_s                --fast: one shared context, G × groups sequences scheduled freely (best of its layouts)
 *   lockstep_vs_fast          goal >= 0.9
 *   lockstep_vs_per_sequence  goal >= 1.5
 *   tok_per_cpu_s, …_per_cpu_s  the same per CPU second of the inference workers (what the work cost on a shared machine)
 *   lockstep_identical        the lockstep responses of every repeat and layout are the same bytes
 *   auto_threads_vs_best      (stories260K) eddy with auto-tuned threads ÷ the best fixed thread count
 *   server_*_tok_s            --backend server on a real llama-server (scripts/build-llama-tools.sh) serving the same
 *                             model on the same cores: one slot (reproducible), and G × groups slots with as many
 *                             requests in flight (its free batching); server_one_slot_vs_per_sequence and
 *                             server_slots_vs_fast compare each with the llama backend's nearest mode
 * Each figure is the best of REPEATS interleaved runs (the machine is shared; the best run is the least
 * disturbed one); `load_average` is the machine's 1-minute load before and after.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { buildTinyLlama, ensureTinyModels, type LlamaShape } from "../src/inference/gguf/tinyModel.js";
import { createLlamaBackend, type LlamaBackendOptions } from "../src/inference/llama/LlamaBackend.js";
import type { GenerationRequest } from "../src/inference/types.js";
import { createServerBackend } from "../src/inference/server/ServerBackend.js";
import { llamaServerBinary, startLlamaServer, type RunningServer } from "../test/inference/llamaServer.js";

const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const THREADS = Number(process.env.BENCH_THREADS ?? 1);
const MAX_TOKENS = Number(process.env.BENCH_MAX_TOKENS ?? 64);
const GROUP_SIZE = 8;
const PROMPTS = 16;
const ROUNDS = 2;
/** The benchmark model: ~25M parameters (8 layers of width 512), F32, random weights. */
const SHAPE: LlamaShape = { dim: 512, layers: 8, heads: 8, kvHeads: 4, ff: 1536, context: 2048 };

const cores = os.availableParallelism();
const loadBefore = os.loadavg()[0]!;
const scratch = mkdtempSync(path.join(os.tmpdir(), "eddy-bench-generate-"));
const modelPath = path.join(scratch, "eddy-bench-25M-f32.gguf");
writeFileSync(modelPath, buildTinyLlama({ quant: "f32", shape: SHAPE, name: "eddy-bench-25M-f32" }));
const texts = Array.from({ length: PROMPTS }, (_, i) => `Once upon a time, there was a ${["little girl", "big dog", "small cat", "happy boy"][i % 4]} who had ${i + 2} friends`);

/** The fixed prompt set: PROMPTS prompts × ROUNDS rounds, seeded sampling; in lockstep, cut into groups of G in this order. */
function requests(opts: { small?: boolean; grouped?: boolean } = {}): GenerationRequest[] {
    const prompts = opts.small ? texts.slice(0, 8) : texts;
    const list = prompts.flatMap((t, p) =>
        Array.from({ length: opts.small ? 1 : ROUNDS }, (_, r) => ({
            id: `${p}/${r}`,
            messages: [{ role: "user" as const, content: t }],
            decoding: { temperature: 0.8 },
            seed: 1000 + p * ROUNDS + r,
            maxTokens: opts.small ? 32 : MAX_TOKENS,
            prefixKey: `p${p}`
        }))
    );
    if (!opts.grouped) return list;
    return list.map((req, i) => ({ ...req, group: { id: `g${Math.floor(i / GROUP_SIZE)}`, member: i % GROUP_SIZE, size: Math.min(GROUP_SIZE, list.length - GROUP_SIZE * Math.floor(i / GROUP_SIZE)) } }));
}

/** A configuration under test: something that runs the prompt set and counts generated tokens. */
interface Runner {
    run(small: boolean): Promise<number>;
    close(): Promise<void>;
    threads?: number;
    /** The responses of the last run, by request id (lockstep: compared across repeats and group counts). */
    last?: Map<string, string>;
}

/** eddy's backend (inference in its child process). */
async function eddyRunner(opts: Omit<LlamaBackendOptions, "modelPath"> & { modelPath?: string }, grouped = false): Promise<Runner> {
    const backend = await createLlamaBackend({ modelPath, promptFormat: "raw", onWarning: () => {}, ...opts });
    const runner: Runner = {
        threads: (await backend.metadata()).threads,
        async run(small) {
            let tokens = 0;
            const last = new Map<string, string>();
            for await (const r of backend.generate(requests({ small, grouped }))) {
                if (r.error) throw new Error(r.error);
                tokens += r.generatedTokens;
                last.set(r.id, r.text);
            }
            runner.last = last;
            return tokens;
        },
        close: () => backend.close()
    };
    return runner;
}

/** CPU seconds used so far by this process's children (the inference workers), from /proc; 0 where there is none. */
function childCpuSeconds(): number {
    let ticks = 0;
    try {
        for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
            let stat: string;
            try {
                stat = readFileSync(`/proc/${pid}/stat`, "utf8");
            } catch {
                continue; // exited meanwhile
            }
            // Fields after the command name (which may hold spaces): state ppid … utime(14) stime(15).
            const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
            if (Number(f[1]) === process.pid) ticks += Number(f[11]) + Number(f[12]);
        }
    } catch {
        return 0;
    }
    return ticks / 100; // USER_HZ
}

/**
 * Best tokens/s of each runner over `repeats` rounds (wall clock, and per CPU second of its inference
 * worker: on a shared machine the second says what the work cost, the first also what the others
 * took), the runners taking turns within each round so a burst of load hits all of them alike.
 */
async function interleaved(
    runners: Record<string, Runner>, small: boolean, repeats: number, onRun?: (name: string, r: Runner) => void
): Promise<{ wall: Record<string, number>; cpu: Record<string, number> }> {
    const wall: Record<string, number> = {};
    const cpu: Record<string, number> = {};
    for (let i = 0; i < repeats; i++)
        for (const [name, r] of Object.entries(runners)) {
            const t0 = performance.now();
            const c0 = childCpuSeconds();
            const tokens = await r.run(small);
            const rate = tokens / ((performance.now() - t0) / 1000);
            const cpuSeconds = childCpuSeconds() - c0;
            wall[name] = Math.max(wall[name] ?? 0, rate);
            if (cpuSeconds > 0) cpu[name] = Math.max(cpu[name] ?? 0, tokens / cpuSeconds);
            process.stderr.write(`bench:generate: ${name} ${Math.round(rate)} tok/s, ${Math.round(tokens / cpuSeconds)} tok per CPU second (load ${os.loadavg()[0]!.toFixed(1)})\n`);
            onRun?.(name, r);
        }
    return { wall, cpu };
}

/** eddy's server backend against a llama-server serving the same model (the completions endpoint, the same raw prompts). */
async function serverRunner(server: RunningServer, concurrency: number): Promise<Runner> {
    const backend = await createServerBackend({ baseUrl: server.baseUrl, model: path.basename(modelPath, ".gguf"), promptFormat: "raw", concurrency, onWarning: () => {} });
    return {
        async run(small) {
            let tokens = 0;
            for await (const r of backend.generate(requests({ small }))) {
                if (r.error) throw new Error(r.error);
                tokens += r.generatedTokens;
            }
            return tokens;
        },
        close: () => backend.close()
    };
}

// Every mode with contexts of THREADS threads, as many contexts as its layout has: lockstep groups and
// per-sequence contexts one per THREADS cores, fast its one shared context. BENCH_ALL_CORES=1 adds the
// one-context layouts with every core (on a busy machine, threads that spin-wait on each other collapse).
const parallel = Math.max(1, Math.floor(cores / THREADS));
const allCores = process.env.BENCH_ALL_CORES === "1" && parallel > 1;
const main: Record<string, Runner> = {
    lockstep: await eddyRunner({ threads: THREADS, groupSize: GROUP_SIZE, groups: parallel }, true),
    per_sequence: await eddyRunner({ threads: THREADS, groupSize: 1, sequences: parallel }),
    fast: await eddyRunner({ threads: THREADS, sequences: GROUP_SIZE * parallel, mode: "fast" }),
    ...(allCores
        ? {
              lockstep_one_group: await eddyRunner({ threads: THREADS * parallel, groupSize: GROUP_SIZE, groups: 1 }, true),
              fast_all_cores: await eddyRunner({ threads: THREADS * parallel, sequences: GROUP_SIZE * parallel, mode: "fast" })
          }
        : {})
};
// Lockstep bytes depend on the groups alone: every run, in either layout, must give the same responses.
let reference: string | undefined;
let identical = true;
const { wall: m, cpu } = await interleaved(main, false, REPEATS, (name, r) => {
    if (!name.startsWith("lockstep")) return;
    const bytes = JSON.stringify([...r.last!].sort(([a], [b]) => a.localeCompare(b)));
    reference ??= bytes;
    identical &&= bytes === reference;
});
for (const r of Object.values(main)) await r.close();

// The server backend on the same model and cores: llama-server with THREADS × parallel threads, one slot
// (reproducible) and G × groups slots (batching freely, as --fast does), each run alone (the llama backend's
// workers are closed first, so neither takes the other's cores).
// BENCH_SERVER_THREADS: the server's threads (default: the cores the llama backend's contexts use together). On a
// busy machine threads that wait on each other collapse (see --threads in README); 1 keeps the server to one core.
const serverThreads = Number(process.env.BENCH_SERVER_THREADS ?? THREADS * parallel);
const binary = llamaServerBinary();
const servers: RunningServer[] = [];
let served: { wall: Record<string, number>; cpu: Record<string, number> } | undefined;
if ("path" in binary) {
    const oneSlot = await startLlamaServer(binary.path, { model: modelPath, slots: 1, threads: serverThreads, contextSize: 1024 });
    servers.push(oneSlot);
    const runners: Record<string, Runner> = { server_one_slot: await serverRunner(oneSlot, 1) };
    served = await interleaved(runners, false, REPEATS);
    for (const r of Object.values(runners)) await r.close();
    await oneSlot.stop();
    const slots = GROUP_SIZE * parallel;
    const batching = await startLlamaServer(binary.path, { model: modelPath, slots, threads: serverThreads, contextSize: 1024 });
    servers.push(batching);
    const more: Record<string, Runner> = { server_slots: await serverRunner(batching, slots) };
    const b = await interleaved(more, false, REPEATS);
    for (const r of Object.values(more)) await r.close();
    await batching.stop();
    served = { wall: { ...served.wall, ...b.wall }, cpu: { ...served.cpu, ...b.cpu } };
} else process.stderr.write(`bench:generate: no server figures: ${binary.missing}\n`);
const lockstep = Math.max(m.lockstep!, m.lockstep_one_group ?? 0);
const fast = Math.max(m.fast!, m.fast_all_cores ?? 0);
const tokS = (x: number | undefined): number | undefined => (x === undefined ? undefined : Math.round(x));

// Thread sweep on stories260K, a small slice, once per setting: a bad thread count can be ~1000x slower on a busy machine.
const shared = [process.env.EDDY_TEST_MODELS, path.resolve(import.meta.dirname, "../../shared/models")].find((d) => d && existsSync(path.join(d, "stories260K.gguf")));
const small = shared ? path.join(shared, "stories260K.gguf") : ensureTinyModels().f32;
const sweep: Record<string, Runner> = {};
for (const t of [...new Set([1, 2, 4, 8].filter((t) => t < cores).concat(cores))]) sweep[`threads_${t}`] = await eddyRunner({ modelPath: small, threads: t, groupSize: 1, sequences: 1 });
sweep.auto = await eddyRunner({ modelPath: small, groupSize: 1, sequences: 1 });
const s = (await interleaved(sweep, true, Math.max(1, REPEATS - 1))).wall;
const autoThreads = sweep.auto!.threads;
for (const r of Object.values(sweep)) await r.close();
const bestFixed = Math.max(...Object.entries(s).filter(([k]) => k.startsWith("threads_")).map(([, v]) => v));
rmSync(scratch, { recursive: true, force: true });

console.log(
    JSON.stringify(
        {
            model: "random llama, 25M parameters (dim 512, 8 layers, ff 1536), F32",
            cores,
            threads_per_context: THREADS,
            group_size: GROUP_SIZE,
            groups: parallel,
            queries: PROMPTS * ROUNDS,
            max_tokens: MAX_TOKENS,
            repeats: REPEATS,
            lockstep_tok_s: Math.round(lockstep),
            per_sequence_tok_s: Math.round(m.per_sequence!),
            fast_tok_s: Math.round(fast),
            layouts_tok_s: {
                [`lockstep_${parallel}_groups_x_${THREADS}_threads`]: tokS(m.lockstep),
                [`lockstep_1_group_x_${THREADS * parallel}_threads`]: tokS(m.lockstep_one_group),
                [`per_sequence_${parallel}_contexts_x_${THREADS}_threads`]: tokS(m.per_sequence),
                [`fast_${GROUP_SIZE * parallel}_sequences_x_${THREADS}_threads`]: tokS(m.fast),
                [`fast_${GROUP_SIZE * parallel}_sequences_x_${THREADS * parallel}_threads`]: tokS(m.fast_all_cores)
            },
            lockstep_vs_fast: round(lockstep / fast),
            lockstep_vs_per_sequence: round(lockstep / m.per_sequence!),
            tok_per_cpu_s: { lockstep: tokS(cpu.lockstep), per_sequence: tokS(cpu.per_sequence), fast: tokS(cpu.fast) },
            lockstep_vs_fast_per_cpu_s: cpu.fast ? round(cpu.lockstep! / cpu.fast) : null,
            lockstep_vs_per_sequence_per_cpu_s: cpu.per_sequence ? round(cpu.lockstep! / cpu.per_sequence) : null,
            lockstep_identical: identical,
            ...(served
                ? {
                      server_threads: serverThreads,
                      server_one_slot_tok_s: tokS(served.wall.server_one_slot),
                      [`server_${GROUP_SIZE * parallel}_slots_tok_s`]: tokS(served.wall.server_slots),
                      server_tok_per_cpu_s: { one_slot: tokS(served.cpu.server_one_slot), slots: tokS(served.cpu.server_slots) },
                      server_one_slot_vs_per_sequence: round(served.wall.server_one_slot! / m.per_sequence!),
                      server_slots_vs_fast: round(served.wall.server_slots! / fast)
                  }
                : { server: "not built: scripts/build-llama-tools.sh" }),
            auto_threads: autoThreads,
            auto_threads_vs_best: round(s.auto! / bestFixed),
            load_average: [round(loadBefore), round(os.loadavg()[0]!)]
        },
        null,
        2
    )
);

function round(x: number): number {
    return Math.round(x * 1000) / 1000;
}
