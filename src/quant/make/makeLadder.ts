import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statfsSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { PromptWrapper } from "../../prompts/index.js";
import type { Template } from "../../templates/types.js";
import { EddyError, isEddyError, oneLine } from "../../util/errors.js";
import { sha256File } from "../../util/files.js";
import { eddyVersion } from "../../util/paths.js";
import { inspectGgufHeader, readGgufFileInfo } from "../../inference/gguf/inspectGguf.js";
import { checkSameModel } from "../models/checkSameModel.js";
import { normalizeQuantName } from "../models/precision.js";
import { calibrationText } from "./calibration.js";
import { requireLlamaTool, type LlamaTool } from "./llamaTools.js";
import { readManifest, writeManifest, type ImatrixRecord, type ManifestFile, type QuantManifest } from "./manifest.js";
import { needsImatrix, quantType, type QuantType } from "./quantTypes.js";

/** What the calibration text is made of (`--imatrix auto`): the study's templates, instances, seed and wrapper. */
export interface CalibrationInput {
    templates: readonly Template[];
    instances: number;
    seed: number;
    wrapper: PromptWrapper;
}

/** Options of {@link makeLadder}. */
export interface MakeLadderOptions {
    /** The full-precision GGUF (F32, F16 or BF16). */
    source: string;
    /** Types to make, in any order (names as llama-quantize takes them). */
    types: readonly string[];
    /** Folder for the files and the manifest (made when missing). */
    outDir: string;
    /** `auto` (compute one from the calibration text), `none`, or an imatrix file. Default auto. */
    imatrix?: string;
    /** Needed for `imatrix: "auto"`. */
    calibration?: CalibrationInput;
    /** Threads for llama-quantize and llama-imatrix (default 1). */
    threads?: number;
    /** Context of llama-imatrix's chunks (default 512, halved until the text fills two chunks; at least 32). */
    imatrixContext?: number;
    /** Stops the ladder: the running tool is ended and its partial file removed. */
    signal?: AbortSignal;
    /** Progress lines. */
    onLog?: (line: string) => void;
    /** Environment for finding the tools (tests). */
    env?: NodeJS.ProcessEnv;
}

/** One file of the ladder. */
export interface LadderFile extends ManifestFile {
    /** Absolute path. */
    path: string;
    /** True when an earlier run's verified file was kept. */
    reused: boolean;
}

/** What {@link makeLadder} made. */
export interface LadderResult {
    dir: string;
    manifest: string;
    source: ManifestFile["source"];
    files: LadderFile[];
    imatrix: ImatrixRecord | null;
    /** Seconds spent in llama-quantize and llama-imatrix (made files only), and in all. */
    toolSeconds: number;
    totalSeconds: number;
}

const PARTIAL = /^\..+\.partial-(?<pid>\d+)(?:\.gguf)?$/;

/** The ladder file's name for a type: `<source stem>-<TYPE>.gguf`. */
export function ladderFileName(source: string, type: string): string {
    return `${path.basename(source).replace(/\.gguf$/i, "")}-${type}.gguf`;
}

function alive(pid: number): boolean {
    if (pid === process.pid) return true;
    try {
        process.kill(pid, 0);
        return true;
    } catch (err) {
        return (err as NodeJS.ErrnoException).code === "EPERM";
    }
}

/** Processes (Linux) whose command line names `file`: a tool orphaned by a killed eddy still writing it. */
function writersOf(file: string): number[] {
    const out: number[] = [];
    let entries: string[];
    try {
        entries = readdirSync("/proc");
    } catch {
        return out;
    }
    for (const e of entries) {
        if (!/^\d+$/.test(e)) continue;
        try {
            if (readFileSync(`/proc/${e}/cmdline`, "utf8").split("\0").includes(file)) out.push(Number(e));
        } catch {
            // gone, or not ours to read
        }
    }
    return out;
}

/**
 * Removes what a killed run left: `.<name>.partial-<pid>` files whose eddy is gone (ending first a llama-quantize or
 * llama-imatrix it left writing one), and stale manifest temporaries. Files of a live eddy are left alone.
 */
export function removeLeftovers(dir: string): string[] {
    const removed: string[] = [];
    if (!existsSync(dir)) return removed;
    for (const name of readdirSync(dir)) {
        const m = PARTIAL.exec(name) ?? /^eddy-quant-manifest\.json\.(?<pid>\d+)\.tmp$/.exec(name);
        if (!m) continue;
        const pid = Number(m.groups!.pid);
        if (alive(pid)) continue;
        const file = path.join(dir, name);
        for (const w of writersOf(file)) {
            try {
                process.kill(w, "SIGKILL");
            } catch {
                // already gone
            }
        }
        try {
            unlinkSync(file);
            removed.push(name);
        } catch {
            // removed by another run meanwhile
        }
    }
    return removed;
}

/** Runs a tool; resolves with its exit code and the tail of its output. */
function runTool(bin: string, args: string[], signal: AbortSignal | undefined): Promise<{ code: number | null; tail: string; signalled: boolean }> {
    return new Promise((resolve, reject) => {
        const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
        let tail = "";
        const keep = (b: Buffer) => {
            tail = (tail + b.toString("utf8")).slice(-8000);
        };
        child.stdout.on("data", keep);
        child.stderr.on("data", keep);
        let signalled = false;
        const onAbort = () => {
            signalled = true;
            child.kill("SIGKILL");
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        child.on("error", (err) => {
            signal?.removeEventListener("abort", onAbort);
            reject(err);
        });
        child.on("close", (code) => {
            signal?.removeEventListener("abort", onAbort);
            resolve({ code, tail, signalled });
        });
    });
}

/** Free bytes on the file system holding `dir` (process.env.EDDY_QUANT_FREE_BYTES, or the `env` given, overrides it, for tests). */
function freeBytes(dir: string, env: NodeJS.ProcessEnv): number {
    if (env.EDDY_QUANT_FREE_BYTES) return Number(env.EDDY_QUANT_FREE_BYTES);
    try {
        const s = statfsSync(dir);
        return Number(s.bavail) * Number(s.bsize);
    } catch {
        return Number.POSITIVE_INFINITY;
    }
}

/** Nominal bits per weight of a type's main tensors, for the free-space estimate (llama.cpp's tables, rounded up). */
function nominalBits(type: string): number {
    if (type === "F32") return 32;
    if (type === "F16" || type === "BF16") return 16;
    if (type === "Q8_0") return 8.5;
    const m = /^(?:I?Q|TQ)(\d)/.exec(type);
    // Mixes keep some tensors (output, embeddings) at higher precision: budget two bits over the nominal.
    return m ? Number(m[1]) + 2.5 : 16;
}

function last(text: string, n = 1): string {
    return text.split("\n").map((l) => l.trim()).filter(Boolean).slice(-n).join(" | ");
}

/** Parameter count and bits per weight (tensor data bits over parameters) of a GGUF file, from its header. */
export async function bitsPerWeight(file: string): Promise<{ parameters: number; bitsPerWeight: number }> {
    const info = await readGgufFileInfo(file, { readTensorInfo: true, ignoreKeys: [] });
    let parameters = 0;
    let dataStart = Number.POSITIVE_INFINITY;
    for (const t of info.fullTensorInfo ?? []) {
        parameters += t.dimensions.reduce<number>((a, b) => a * Number(b), 1);
        dataStart = Math.min(dataStart, Number(t.fileOffset));
    }
    const size = statSync(file).size;
    return { parameters, bitsPerWeight: parameters > 0 && Number.isFinite(dataStart) ? ((size - dataStart) * 8) / parameters : 0 };
}

/**
 * Checks a made file the way `eddy models inspect` reads one (header readable, data not cut short), that it is
 * the type asked for, and that it is a quantisation of the source (same architecture, tokenizer, tensor shapes).
 */
async function verifyMade(file: string, source: string, type: string): Promise<void> {
    const info = await inspectGgufHeader(file);
    const got = normalizeQuantName(info.quantization);
    if (got !== type && !got.startsWith("FILE_TYPE_")) throw new EddyError(`${path.basename(file)} says it is ${got}, not ${type}`);
    await checkSameModel([source, file]);
}

/**
 * `eddy quant make`: writes each quantisation of `source` with llama-quantize into `outDir`, with an importance
 * matrix computed by llama-imatrix on calibration text from the study's own material (`imatrix: "auto"`), and a
 * manifest recording per file the source's sha256, the type, the imatrix's sha256 and what it was computed on,
 * llama.cpp's commit, eddy's version and the size. Files are written under a hidden partial name and renamed
 * when verified, so a kill never leaves half a file under a ladder name; a file the manifest describes, whose
 * bytes still match, is kept (a second run makes only what is missing). Every failure is one EddyError and
 * leaves no file of its own behind.
 */
export async function makeLadder(opts: MakeLadderOptions): Promise<LadderResult> {
    const t0 = Date.now();
    const env = opts.env ?? process.env;
    const log = opts.onLog ?? (() => {});
    const threads = opts.threads ?? 1;
    const source = path.resolve(opts.source);
    const dir = path.resolve(opts.outDir);

    // The types: known to llama-quantize, no duplicates; the I-quants need an importance matrix.
    if (opts.types.length === 0) throw new EddyError("give the quantisation types to make with --types (e.g. Q8_0,Q6_K,Q4_K_M,IQ4_XS)");
    const types: QuantType[] = [];
    for (const name of opts.types) {
        const t = quantType(name);
        if (!t) throw new EddyError(`unknown quantisation type '${name}' (llama-quantize knows Q8_0, Q6_K, Q5_K_M, Q5_K_S, Q4_K_M, Q4_K_S, Q4_0, Q3_K_L, Q3_K_M, Q3_K_S, Q2_K, IQ4_XS, IQ4_NL, IQ3_M, IQ3_S, IQ3_XS, IQ3_XXS, IQ2_M, IQ2_S, IQ2_XS, IQ2_XXS, IQ1_M, IQ1_S, F16, BF16, …)`);
        if (!types.some((x) => x.name === t.name)) types.push(t);
    }
    const imatrixMode = opts.imatrix ?? "auto";
    const wantsMatrix = types.some((t) => t.usesImatrix);
    if (imatrixMode === "none") {
        const need = types.find(needsImatrix);
        if (need) throw new EddyError(`${need.name} needs an importance matrix: use --imatrix auto (computed on the study's code) or --imatrix FILE`);
    }

    // The source: a readable GGUF, not cut short.
    if (!existsSync(source)) throw new EddyError(`no such model file: ${source}`);
    let sourceInfo: Awaited<ReturnType<typeof inspectGgufHeader>>;
    try {
        sourceInfo = await inspectGgufHeader(source);
    } catch (err) {
        throw new EddyError(`cannot quantise ${source}: ${isEddyError(err) ? err.message : oneLine(err)}`);
    }
    const quantize = requireLlamaTool("llama-quantize", env);
    const imatrixTool: LlamaTool | undefined = imatrixMode === "auto" && wantsMatrix ? requireLlamaTool("llama-imatrix", env) : undefined;

    mkdirSync(dir, { recursive: true });
    const left = removeLeftovers(dir);
    if (left.length > 0) log(`removed ${left.length} partial file(s) a stopped run left: ${left.join(", ")}`);

    const manifest: QuantManifest = readManifest(dir);
    // The source's sha256 is read while the first file is made when nothing earlier can be reused (it is needed
    // only to compare with the manifest and to write it): on a fresh ladder, hashing costs no wall time.
    const sourceSha = sha256File(source);
    sourceSha.catch(() => {}); // a failure is met where it is awaited, not as an unhandled rejection
    const sourceRecord = { path: source, sha256: "", size_bytes: sourceInfo.size_bytes, quantization: sourceInfo.quantization === "unknown" ? null : sourceInfo.quantization };
    const needSha = async () => (sourceRecord.sha256 ||= await sourceSha);
    if (manifest.files.length > 0 || manifest.imatrices.length > 0) await needSha();
    const save = () => writeManifest(dir, manifest);
    const { parameters } = await bitsPerWeight(source);
    let toolSeconds = 0;

    // Writes `final` through a hidden partial file: `produce` writes the partial, `check` verifies it, then the rename.
    const atomically = async (final: string, produce: (partial: string) => Promise<void>, check: (partial: string) => Promise<void>) => {
        const partial = path.join(dir, `.${path.basename(final)}.partial-${process.pid}`);
        try {
            await produce(partial);
            await check(partial);
            renameSync(partial, final);
        } finally {
            try {
                unlinkSync(partial);
            } catch {
                // renamed, or never written
            }
        }
    };
    // llama-quantize reports a failed write as an iostream error; the file system's own free space says why
    const diskFull = (what: string, tail: string) =>
        /No space left|ENOSPC/i.test(tail) || freeBytes(dir, {}) < 1 << 20
            ? new EddyError(`the disk holding ${dir} is full: ${what} could not be written (no file left; free some space and run the same command again)`)
            : undefined;

    // The importance matrix.
    let imatrix: ImatrixRecord | null = null;
    if (wantsMatrix && imatrixMode !== "none") {
        if (imatrixMode !== "auto") {
            const given = path.resolve(imatrixMode);
            if (!existsSync(given)) throw new EddyError(`no such imatrix file: ${given}`);
            imatrix = { file: given, sha256: await sha256File(given), computed_on: { kind: "given", path: given }, source_sha256: await needSha(), llama_cpp_commit: null, seconds: 0 };
        } else {
            if (!opts.calibration || opts.calibration.templates.length === 0) throw new EddyError("--imatrix auto computes the importance matrix on the study's templates: give templates (-t)");
            const cal = calibrationText(opts.calibration.templates, opts.calibration.instances, opts.calibration.seed, opts.calibration.wrapper);
            const stem = path.basename(source).replace(/\.gguf$/i, "");
            const matrixName = `${stem}.imatrix.gguf`;
            const matrixPath = path.join(dir, matrixName);
            const known = manifest.imatrices.find(
                (m) => m.file === matrixName && m.source_sha256 === sourceRecord.sha256 && m.computed_on.kind === "calibration" && m.computed_on.sha256 === cal.source.sha256 && m.llama_cpp_commit === imatrixTool!.commit
            );
            if (known && existsSync(matrixPath) && (await sha256File(matrixPath)) === known.sha256) {
                imatrix = known;
                log(`importance matrix ${matrixName} kept (computed on ${cal.source.questions} questions of ${cal.source.templates.join(", ")})`);
            } else {
                const textFile = path.join(dir, `${stem}.calibration.txt`);
                const textPartial = path.join(dir, `.${stem}.calibration.txt.partial-${process.pid}`);
                writeFileSync(textPartial, cal.text);
                renameSync(textPartial, textFile);
                let context = opts.imatrixContext ?? 512;
                let chunks: number | null = null;
                const t1 = Date.now();
                for (;;) {
                    let short = false;
                    log(`computing the importance matrix on ${cal.source.questions} questions (${cal.text.length} characters of code and prompts), context ${context}`);
                    try {
                        await atomically(
                            matrixPath,
                            async (partial) => {
                                // llama-imatrix writes GGUF when the name ends in .gguf
                                const out = `${partial}.gguf`;
                                try {
                                    const r = await runTool(imatrixTool!.path, ["-m", source, "-f", textFile, "-o", out, "-c", String(context), "-b", String(context), "-t", String(threads), "--no-ppl", "-ngl", "0"], opts.signal);
                                    if (r.signalled) throw new EddyError("stopped while computing the importance matrix (no file left)", 130);
                                    const few = /tokenizes to only (\d+) tokens/.exec(r.tail);
                                    if (r.code !== 0 && few && context > 32) {
                                        short = true;
                                        context = Math.max(32, 2 ** Math.floor(Math.log2(Number(few[1]) / 2)));
                                        if (Number(few[1]) < 64) throw new EddyError(`the calibration text is only ${few[1]} tokens: give more templates (-t) or instances (-M) for --imatrix auto`);
                                        return;
                                    }
                                    if (r.code !== 0 || !existsSync(out)) throw diskFull("the importance matrix", r.tail) ?? new EddyError(`llama-imatrix failed on ${path.basename(source)}: ${last(r.tail, 2) || `exit ${r.code}`} (no file left)`);
                                    const c = /computed on (\d+) chunks|(\d+) chunks/.exec(r.tail);
                                    chunks = c ? Number(c[1] ?? c[2]) : null;
                                    renameSync(out, partial);
                                } finally {
                                    if (existsSync(out)) unlinkSync(out);
                                }
                            },
                            async (partial) => {
                                if (short) throw new ShortText();
                                if (statSync(partial).size === 0) throw new EddyError("llama-imatrix wrote an empty importance matrix (no file left)");
                            }
                        );
                    } catch (err) {
                        if (err instanceof ShortText) continue;
                        throw err;
                    }
                    break;
                }
                const seconds = (Date.now() - t1) / 1000;
                toolSeconds += seconds;
                imatrix = {
                    file: matrixName,
                    sha256: await sha256File(matrixPath),
                    computed_on: { kind: "calibration", ...cal.source, context, chunks },
                    source_sha256: await needSha(),
                    llama_cpp_commit: imatrixTool!.commit,
                    seconds
                };
                manifest.imatrices = [...manifest.imatrices.filter((m) => m.file !== matrixName), imatrix];
                save();
            }
        }
    }

    // The files, each made or kept.
    const files: LadderFile[] = [];
    for (const t of types) {
        if (opts.signal?.aborted) throw new EddyError("stopped; the same command continues the ladder", 130);
        const name = ladderFileName(source, t.name);
        const final = path.join(dir, name);
        const uses = t.usesImatrix && imatrix ? { sha256: imatrix.sha256, file: imatrix.file } : null;
        const prior = manifest.files.find((f) => f.file === name);
        if (
            prior &&
            prior.type === t.name &&
            prior.source.sha256 === sourceRecord.sha256 &&
            (prior.imatrix?.sha256 ?? null) === (uses?.sha256 ?? null) &&
            prior.llama_cpp.commit === quantize.commit &&
            existsSync(final) &&
            statSync(final).size === prior.size_bytes &&
            (await sha256File(final)) === prior.sha256
        ) {
            try {
                await verifyMade(final, source, t.name);
                files.push({ ...prior, path: final, reused: true });
                log(`${name} kept (${t.name}, ${prior.bits_per_weight.toFixed(2)} bits per weight)`);
                continue;
            } catch {
                // fails verification now: made again below
            }
        }
        const estimate = Math.ceil((parameters * nominalBits(t.name)) / 8);
        const free = freeBytes(dir, env);
        if (free < estimate) throw new EddyError(`the disk holding ${dir} is full: ${name} needs about ${(estimate / 2 ** 20).toFixed(1)} MiB and ${(free / 2 ** 20).toFixed(1)} MiB are free (no file written)`);
        log(`making ${name} (${t.name}${uses ? ", with the importance matrix" : ""})`);
        const t1 = Date.now();
        await atomically(
            final,
            async (partial) => {
                const args = [...(uses ? ["--imatrix", path.isAbsolute(uses.file) ? uses.file : path.join(dir, uses.file)] : []), source, partial, t.name, String(threads)];
                const r = await runTool(quantize.path, args, opts.signal);
                if (r.signalled) throw new EddyError(`stopped while making ${name} (no partial file left); the same command continues the ladder`, 130);
                if (r.code !== 0) throw diskFull(name, r.tail) ?? new EddyError(`llama-quantize could not make ${name} from ${path.basename(source)}: ${last(r.tail, 2) || `exit ${r.code}`} (no file left)`);
            },
            async (partial) => {
                try {
                    await verifyMade(partial, source, t.name);
                } catch (err) {
                    throw diskFull(name, "") ?? new EddyError(`${name} failed verification after llama-quantize: ${isEddyError(err) ? err.message : oneLine(err)} (no file left)`);
                }
            }
        );
        const seconds = (Date.now() - t1) / 1000;
        toolSeconds += seconds;
        await needSha();
        const made: ManifestFile = {
            file: name,
            type: t.name,
            sha256: await sha256File(final),
            size_bytes: statSync(final).size,
            bits_per_weight: Math.round((await bitsPerWeight(final)).bitsPerWeight * 1000) / 1000,
            source: { ...sourceRecord },
            imatrix: uses,
            llama_cpp: { release: quantize.release, commit: quantize.commit },
            eddy_version: eddyVersion(),
            made_at: new Date().toISOString(),
            seconds
        };
        manifest.files = [...manifest.files.filter((f) => f.file !== name), made];
        save();
        files.push({ ...made, path: final, reused: false });
        log(`${name} made in ${seconds.toFixed(1)} s (${made.bits_per_weight.toFixed(2)} bits per weight, ${made.size_bytes} bytes)`);
    }
    await needSha();
    return { dir, manifest: path.join(dir, "eddy-quant-manifest.json"), source: sourceRecord, files, imatrix, toolSeconds, totalSeconds: (Date.now() - t0) / 1000 };
}

class ShortText extends Error {}
