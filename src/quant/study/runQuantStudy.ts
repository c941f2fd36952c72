import path from "node:path";
import type { Outcome } from "../../vocabulary.js";
import { openStore } from "../../store/Store.js";
import { modelStem } from "../../store/outcomes.js";
import { loadStudy } from "../../report/loadStudy.js";
import { runStudy, type StudyHooks } from "../../run/runStudy.js";
import type { StudyConfig } from "../../run/config.js";
import { sameCommand } from "../../util/commandLine.js";
import { EddyError } from "../../util/errors.js";
import { KV_CACHE_AXIS, onAxis, teacherForcingBackend } from "../../inference/backends.js";
import { defaultDbPath } from "../../util/paths.js";
import { measureDrift } from "../drift/measureDrift.js";
import type { DriftReport, DriftText } from "../drift/types.js";
import { checkSameModel, type QuantFile } from "../models/checkSameModel.js";
import { byPrecision } from "../models/precision.js";
import { generationSpeeds, storedAnswers } from "../../store/quantStudy.js";
import type { QuantReport } from "./types.js";
import { buildQuantReport, configKey, type StudyConfiguration } from "./buildQuantReport.js";
import { bitsPerWeight } from "../make/makeLadder.js";

/** What `runQuantStudy` needs. */
export interface QuantStudyOptions {
    /** GGUF files: quantisations of one model. */
    files: string[];
    /** The reference file (default: the most precise one). Added to the files when missing. */
    reference?: string;
    /** The study every file goes through (its `models` are replaced by the files). One temperature, one wrapper. */
    study: StudyConfig;
    /** Most distinct reference answers teacher-forced for token drift (default 40); 0 skips drift. */
    driftTexts?: number;
    /** Study hooks (progress, logs, abort). */
    hooks?: StudyHooks;
    /** Called after each drift text of each file. */
    onDriftProgress?: (file: string, done: number, total: number) => void;
    /** KV-cache types to study every file with (one run each), e.g. ["f16", "q8_0", "q4_0"]; default: llama.cpp's own, one run. */
    kvCaches?: string[];
    /** Bootstrap seed for the score intervals (default: the study seed). */
    bootstrapSeed?: number;
}

/** Texts for drift when the reference gave no answers (e.g. a replayed or empty study): short code, no prompt. */
export const FIXED_DRIFT_TEXTS: DriftText[] = [
    { id: "fixed:sum_range", prompt: "", completion: "def sum_range(values, lo, hi):\n    return sum(values[lo:hi + 1])\n" },
    { id: "fixed:is_palindrome", prompt: "", completion: "def is_palindrome(s):\n    s = s.lower()\n    return s == s[::-1]\n" },
    { id: "fixed:count_chars", prompt: "", completion: "def count_chars(text, ch):\n    return sum(1 for c in text if c == ch)\n" }
];

/**
 * `eddy quant`: checks the files are quantisations of one model, runs (or reuses, as the same
 * config continues the same run) one identical study over all of them — one run, one
 * configuration per file, so instances, prompts, seeds and batch settings are shared — then
 * compares each file with the reference: score deltas, McNemar, flips, token drift on the
 * reference's own answers, and cost (size, memory, tokens/s).
 */
export async function runQuantStudy(opts: QuantStudyOptions): Promise<QuantReport> {
    const paths = opts.files.map((f) => path.resolve(f));
    const refPath = opts.reference ? path.resolve(opts.reference) : undefined;
    if (refPath && !paths.includes(refPath)) paths.unshift(refPath);
    if (paths.length < 2) throw new EddyError("give at least two GGUF files (quantisations of one model) to compare");
    const files = byPrecision(await checkSameModel(paths));
    const stems = files.map((f) => modelStem(f.path));
    const clash = stems.find((s, i) => stems.indexOf(s) !== i);
    if (clash) throw new EddyError(`two files are named ${clash}.gguf: the study labels models by file name, so rename one`);
    const reference = refPath ? (files.find((f) => f.path === refPath) as QuantFile) : (files[0] as QuantFile);
    const cfg = opts.study;
    if (cfg.temperatures.length !== 1) throw new EddyError("eddy quant compares files at one temperature: give a single --temperature");
    if (cfg.wrappers.length !== 1) throw new EddyError("eddy quant compares files with one prompt wrapper: give a single --wrapper");

    // The backend that runs model files and compares them by teacher forcing.
    const engine = teacherForcingBackend();
    // The KV-cache axis: one run per cache type (the type is part of a run's identity), every file in each.
    const kvs: (string | undefined)[] = opts.kvCaches && opts.kvCaches.length > 0 ? [...new Set(opts.kvCaches)] : [undefined];
    const refKv = kvs.includes("f16") ? "f16" : kvs[0];
    const ordered = [refKv, ...kvs.filter((k) => k !== refKv)];
    const dbPath = cfg.db ?? defaultDbPath();
    const outcomes: Outcome[] = [];
    const configurations: StudyConfiguration[] = [];
    const drifts: { kv: string | undefined; report: DriftReport }[] = [];
    const runIds: string[] = [];
    let texts: DriftText[] = [];
    let source: QuantReport["drift"]["source"] = "skipped";
    let templates: string[] = [];
    let study: StudyConfig = cfg;
    // The reference configuration's run first: its answers are the drift texts of every cache type.
    for (const kv of ordered) {
        study = { ...cfg, backend: engine.name, models: files.map((f) => f.path), ...onAxis(KV_CACHE_AXIS, kv) } as StudyConfig;
        const result = await runStudy(study, opts.hooks ?? {});
        if (result.status !== "complete") throw new EddyError(`run ${result.runId} was interrupted; the same command continues it`, 130, { next: sameCommand() });
        runIds.push(result.runId);
        // The one loader every report uses (eddy report, demo, compare): judged outcomes and run metadata.
        const loaded = loadStudy(dbPath, [result.runId]);
        for (const o of loaded.outcomes) outcomes.push(kv ? { ...o, model: configKey(o.model, kv) } : o);
        const info = loaded.runs[0]!;
        templates = info.templates.map((t) => t.id);
        const store = openStore(dbPath);
        let refConfig: (typeof info)["configurations"][number] | undefined;
        try {
            const speeds = generationSpeeds(store, result.runId);
            for (const c of info.configurations) {
                const speed = speeds.find((sp) => sp.configId === c.id);
                configurations.push({ modelPath: c.modelPath, kvCache: kv ?? null, quantization: c.quantization, promptTokensPerS: speed?.promptTokensPerS ?? null, generationTokensPerS: speed?.generationTokensPerS ?? null });
            }
            refConfig = info.configurations.find((c) => c.modelPath && path.resolve(c.modelPath) === reference.path);
            const limit = opts.driftTexts ?? 40;
            if (limit > 0 && kv === refKv) {
                const answers = refConfig ? storedAnswers(store, refConfig.id, limit) : [];
                texts = answers.map((a) => ({ id: `${a.template}#${a.instance}/${a.round}`, messages: a.messages, completion: a.response }));
                source = "reference answers";
                if (texts.length === 0) {
                    texts = FIXED_DRIFT_TEXTS;
                    source = "fixed texts";
                }
            }
        } finally {
            store.close();
        }
        const meta = refConfig?.metadata ?? {};
        if (texts.length > 0) {
            const threads = study.threads ?? (typeof meta.threads === "number" ? meta.threads : 1);
            const forcing = engine.forcing.options(study, meta);
            const report = await measureDrift(
                {
                    reference: reference.path,
                    candidates: files.map((f) => f.path),
                    texts,
                    threads,
                    backend: engine.name,
                    ...forcing,
                    // the reference keeps the reference configuration's cache; the files get this run's
                    ...(refKv ? { referenceKvCache: refKv } : {}),
                    ...(typeof meta.promptFormat === "string" ? { promptFormat: meta.promptFormat } : {}),
                    ...(study.contextSize ? { contextSize: study.contextSize } : {})
                },
                { ...(opts.onDriftProgress ? { onProgress: opts.onDriftProgress } : {}) }
            );
            drifts.push({ kv, report });
        }
    }

    const studySummary = {
        templates,
        instances: study.instances,
        rounds: study.rounds,
        seed: study.seed,
        temperature: study.temperatures[0] as number,
        wrapper: study.wrappers[0] as string,
        maxTokens: study.maxTokens
    };
    // One line per file and cache type, the reference's first.
    const entries = ordered.flatMap((kv) => files.map((f) => ({ ...f, kvCache: kv ?? null })));
    return buildQuantReport({
        runId: runIds[0]!,
        ...(runIds.length > 1 ? { runIds } : {}),
        db: path.resolve(dbPath),
        study: studySummary,
        files: entries,
        reference: reference.path,
        referenceKvCache: refKv ?? null,
        outcomes,
        ...(drifts.length > 0 ? { drift: drifts[0]!.report, drifts: drifts.map((d) => ({ kvCache: d.kv ?? null, report: d.report })) } : {}),
        driftSource: source,
        driftTexts: texts.length,
        configurations,
        bootstrapSeed: opts.bootstrapSeed ?? study.seed,
        bitsPerWeight: Object.fromEntries(await Promise.all(files.map(async (f) => [f.path, (await bitsPerWeight(f.path)).bitsPerWeight] as const)))
    });
}
