import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import path from "node:path";
import { openStore } from "../../store/Store.js";
import { modelStem } from "../../store/outcomes.js";
import { runStudy, type StudyHooks } from "../../run/runStudy.js";
import type { StudyConfig } from "../../run/config.js";
import { sameCommand } from "../../util/commandLine.js";
import { EddyError } from "../../util/errors.js";
import { axisValueOf, KV_CACHE_AXIS, onAxis, studySources, teacherForcingBackend } from "../../inference/backends.js";
import { defaultDbPath } from "../../util/paths.js";
import { measureDrift } from "../drift/measureDrift.js";
import type { DriftReport, DriftText } from "../drift/types.js";
import { checkSameModel, type QuantFile } from "../models/checkSameModel.js";
import { byPrecision } from "../models/precision.js";
import { storedAnswers } from "../../store/quantStudy.js";
import type { QuantReport } from "./types.js";
import { bitsPerWeight } from "../make/makeLadder.js";
import { quantReportFromStore, readStoredStudy, recordStoredStudy, type StoredQuantStudy } from "./storedStudy.js";

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
    /** KV-cache types to study every file with (each file once per type, configurations of the one run), e.g. ["f16", "q8_0", "q4_0"]; default: llama.cpp's own. */
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
    // The KV-cache axis: every file once per cache type, each a configuration of the one run; the reference
    // configuration is the reference file with f16 (or the first type given).
    const kvs: (string | undefined)[] = opts.kvCaches && opts.kvCaches.length > 0 ? [...new Set(opts.kvCaches)] : [undefined];
    const refKv = kvs.includes("f16") ? "f16" : kvs[0];
    const ordered = [refKv, ...kvs.filter((k) => k !== refKv)];
    const given = ordered.filter((k): k is string => k !== undefined);
    const study = { ...cfg, backend: engine.name, models: files.map((f) => f.path), ...onAxis(KV_CACHE_AXIS, given) } as StudyConfig;
    const dbPath = cfg.db ?? defaultDbPath();
    const result = await runStudy(study, opts.hooks ?? {});
    if (result.status !== "complete") throw new EddyError(`run ${result.runId} was interrupted; the same command continues it`, 130, { next: sameCommand() });
    const runId = result.runId;

    // How the run labels each file under each cache type (one type alone is the run's setting, not an axis).
    const sources = studySources(study);
    const kvOf = (s: (typeof sources)[number]): string | undefined => axisValueOf(s, KV_CACHE_AXIS) ?? (given.length === 1 ? given[0] : undefined);
    const labelOf = (file: string, kv: string | undefined): string => {
        const s = sources.find((x) => x.path === file && kvOf(x) === kv);
        if (!s) throw new Error(`no configuration of ${file}${kv ? ` with a ${kv} cache` : ""} in the study`);
        return s.label;
    };
    const entries = ordered.flatMap((kv) => files.map((f) => ({ ...f, kvCache: kv ?? null, label: labelOf(f.path, kv) })));

    // Drift: the reference configuration's own answers, teacher-forced through every file under each cache type.
    let texts: DriftText[] = [];
    let source: QuantReport["drift"]["source"] = "skipped";
    let meta: Record<string, unknown> = {};
    let previous: StoredQuantStudy | undefined;
    const store = openStore(dbPath);
    try {
        previous = readStoredStudy(store, runId);
        const refConfig = store.configurations(runId).find((c) => c.model === labelOf(reference.path, refKv));
        meta = refConfig?.metadata_json ? (JSON.parse(refConfig.metadata_json) as Record<string, unknown>) : {};
        const limit = opts.driftTexts ?? 40;
        if (limit > 0) {
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
    const drifts: { kvCache: string | null; report: DriftReport; job: string }[] = [];
    if (texts.length > 0)
        for (const kv of ordered) {
            const threads = study.threads ?? (typeof meta.threads === "number" ? meta.threads : 1);
            // this cache type's settings: the files get it, the reference keeps the reference configuration's
            const forcing = engine.forcing.options({ ...study, ...onAxis(KV_CACHE_AXIS, kv) } as StudyConfig, meta);
            const job = {
                reference: reference.path,
                candidates: files.map((f) => f.path),
                texts,
                threads,
                backend: engine.name,
                ...forcing,
                ...(refKv ? { referenceKvCache: refKv } : {}),
                ...(typeof meta.promptFormat === "string" ? { promptFormat: meta.promptFormat } : {}),
                ...(study.contextSize ? { contextSize: study.contextSize } : {})
            };
            // The same command again on a complete run: the drift measured last time on the same texts, files and
            // settings is the drift (teacher forcing is deterministic), not measured again (two model loads per file).
            const key = driftJobKey(job);
            const kept = previous?.drift.reports.find((r) => r.kvCache === (kv ?? null) && r.job === key);
            const report = kept ? kept.report : await measureDrift(job, { ...(opts.onDriftProgress ? { onProgress: opts.onDriftProgress } : {}) });
            drifts.push({ kvCache: kv ?? null, report, job: key });
        }

    const run = readRunSummary(dbPath, runId);
    const stored: StoredQuantStudy = {
        version: 1,
        study: {
            templates: run.templates,
            instances: study.instances,
            rounds: study.rounds,
            seed: study.seed,
            temperature: study.temperatures[0] as number,
            wrapper: study.wrappers[0] as string,
            maxTokens: study.maxTokens
        },
        reference: reference.path,
        referenceKvCache: refKv ?? null,
        files: entries,
        bitsPerWeight: Object.fromEntries(await Promise.all(files.map(async (f) => [f.path, (await bitsPerWeight(f.path)).bitsPerWeight] as const))),
        drift: { source, texts: texts.length, reports: drifts },
        bootstrapSeed: opts.bootstrapSeed ?? study.seed
    };
    // Recorded with the run, and the report read back from the store: what the viewer draws is what this prints.
    const writable = openStore(dbPath);
    try {
        recordStoredStudy(writable, runId, stored);
        return { ...quantReportFromStore(writable, runId, stored), db: path.resolve(dbPath) };
    } finally {
        writable.close();
    }
}

/** What a drift measurement was made of: its job (files, texts, settings) and each file as it is on disk now. */
function driftJobKey(job: { reference: string; candidates: string[] }): string {
    const files = [...new Set([job.reference, ...job.candidates])].map((f) => {
        const st = statSync(f);
        return [f, st.size, st.mtimeMs];
    });
    return createHash("sha256").update(JSON.stringify({ job, files })).digest("hex");
}

/** The templates a run asked, in its order. */
function readRunSummary(dbPath: string, runId: string): { templates: string[] } {
    const store = openStore(dbPath, { readonly: true });
    try {
        return { templates: store.runTemplates(runId).map((t) => t.template_id) };
    } finally {
        store.close();
    }
}
