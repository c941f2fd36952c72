import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { JudgePool } from "../../judge/JudgePool.js";
import { normalizeStudyConfig } from "../../run/config.js";
import { runStudy } from "../../run/runStudy.js";
import { openStore } from "../../store/Store.js";
import { loadTemplate } from "../../templates/loadTemplates.js";
import type { Template } from "../../templates/types.js";
import type { ParamValue } from "../../vocabulary.js";
import { EddyError } from "../../util/errors.js";
import { defaultDbPath } from "../../util/paths.js";
import { makeTempDir } from "../../util/tempDir.js";
import { judgedResponses, writePublishedReruns, writePublishedVerdicts, type PublishedVerdict } from "../../store/publishedVerdicts.js";
import { libraryAt } from "../../templates/library.js";
import { templateIdFor } from "./importQuestions.js";
import type { ReplayImportOptions } from "../replayImport.js";
import type { Skipped } from "./layout.js";
import { embeddedTemplates } from "./oracleSource.js";
import { parsePythonValue } from "./pythonRepr.js";
import { rerunPublishedTests, type RerunRequest } from "./rerun.js";
import { readTurbulenceResults, type TurbulenceResponse } from "./results.js";
import { replayedAnswers } from "../../inference/backends.js";

/**
 * `templates` is the folder `eddy import turbulence` wrote; `model` picks whose `<model>_results_<run>`
 * folders to read when there are several; `temperature` overrides the folder name's `…_T_0` (needed for `…_T_D`).
 */
export interface ResultsImportOptions extends ReplayImportOptions {
    /** Seeds of the re-run of the published test where eddy and Turbulence disagree (0: no re-run). */
    rerunSeeds?: number;
    /** Stop at the first response that cannot be imported (default: skip it and say why). */
    strict?: boolean;
}

/** One replay run made by the import (one per distinct neighbourhood size). */
export interface ImportedRun {
    runId: string;
    replay: string;
    templates: string[];
    instances: number;
    rounds: number;
    responses: number;
    missing: number;
    /** Disagreements whose published test was re-run in the sandbox. */
    reruns: number;
    /** Wall time of the replay run and its judging throughput (from the study's own stats). */
    wallMs: number;
    verdictsPerS: number;
}

export interface ResultsImportSummary {
    model: string;
    temperature: number;
    runs: ImportedRun[];
    /** How many responses were read in each form (openai, anthropic, mistral, cohere, json, text, …). */
    forms: Record<string, number>;
    /** Responses and questions left out, and why. */
    skipped: Skipped[];
}

export const DEFAULT_RERUN_SEEDS = 20;

/**
 * Reads one model's Turbulence results into replay runs with the same instances: each response
 * is decoded from its published file, matched to its instance by its recorded parameters, judged
 * by eddy, and stored beside the verdict Turbulence published for it. Where the two disagree, the
 * published test is re-run in eddy's sandbox on the response and on the model solution. Every
 * import makes new runs with new replay files: earlier imports are never touched.
 */
export async function importTurbulenceResults(dir: string, opts: ResultsImportOptions): Promise<ResultsImportSummary> {
    const results = readTurbulenceResults(dir, opts.model);
    const folderName = path.basename(path.resolve(dir));
    const temperature = opts.temperature ?? results.temperature;
    if (temperature === undefined)
        throw new EddyError(
            results.temperatureLabel
                ? `the folder name '${folderName}' ends in _T_${results.temperatureLabel}: Turbulence's D is the provider's default temperature, which its files do not record; pass --temperature <t> (the value the provider used)`
                : `cannot tell the temperature from the folder name '${folderName}' (…_T_<t>); pass --temperature <t>`
        );
    const library = libraryAt(path.resolve(opts.templates));
    if (!existsSync(library.templates)) throw new EddyError(`${opts.templates} holds no templates/ folder: run 'eddy import turbulence <benchmark> --out ${opts.templates}' first`);
    const db = path.resolve(opts.db ?? defaultDbPath());
    const log = opts.onLog ?? (() => {});
    const skipped = [...results.skipped];
    const skip = (location: string, reason: string): void => {
        if (opts.strict) throw new EddyError(`${location}: ${reason}`);
        skipped.push({ location, reason });
    };
    if (opts.strict && skipped.length) throw new EddyError(`${skipped[0]!.location}: ${skipped[0]!.reason}`);

    const questions = [...new Set(results.responses.map((r) => r.question))].sort((a, b) => a - b);
    const templates = new Map<number, Template>();
    for (const n of questions) {
        try {
            templates.set(n, loadTemplate(library, templateIdFor(n)));
        } catch (err) {
            const count = results.responses.filter((r) => r.question === n).length;
            skip(`Q${n}`, `no usable template ${templateIdFor(n)} in ${opts.templates} (${(err as Error).message}); its ${count} response(s) are left out`);
        }
    }
    // Instance index = position of the tuple among the template's edge tuples (duplicates dropped), as sampleInstances orders them.
    const indexOf = new Map<number, Map<string, number>>();
    for (const [n, t] of templates) {
        const m = new Map<string, number>();
        for (const tuple of t.edge) if (!m.has(matchKey(tuple))) m.set(matchKey(tuple), m.size);
        indexOf.set(n, m);
    }
    const located: (TurbulenceResponse & { instance: number })[] = [];
    for (const r of results.responses) {
        const index = indexOf.get(r.question);
        if (!index) continue;
        const instance = index.get(matchKey(r.params));
        if (instance === undefined) skip(r.verdict.location, `parameters ${JSON.stringify(r.params)} are not among the recorded tuples of ${templateIdFor(r.question)}`);
        else located.push({ ...r, instance });
    }
    for (const s of skipped) log(`skipped: ${s.location}: ${s.reason}`);
    if (located.length === 0) throw new EddyError(`nothing could be imported from ${dir}${skipped.length ? ` (${skipped.length} skipped; first: ${skipped[0]!.location}: ${skipped[0]!.reason})` : ""}`);

    // One run per neighbourhood size: a study asks every template for the same number of instances.
    const bySize = new Map<number, number[]>();
    for (const n of new Set(located.map((r) => r.question))) {
        const size = indexOf.get(n)!.size;
        bySize.set(size, [...(bySize.get(size) ?? []), n]);
    }
    const runs: ImportedRun[] = [];
    // A folder of its own per import: a re-import never rewrites an earlier run's replay file.
    const importId = `${new Date().toISOString().replace(/[-:]/g, "").slice(0, 15)}-${randomBytes(3).toString("hex")}`;
    const replayRoot = path.join(path.resolve(opts.replayDir ?? path.join(path.dirname(db), "imports")), `${results.model}_T_${temperature}`, importId);
    for (const [size, ns] of [...bySize.entries()].sort((a, b) => a[0] - b[0])) {
        const mine = located.filter((r) => ns.includes(r.question)).sort((a, b) => a.question - b.question || a.round - b.round || a.instance - b.instance);
        const rounds = Math.max(...mine.map((r) => r.round)) + 1;
        mkdirSync(replayRoot, { recursive: true });
        const replay = path.join(replayRoot, `${results.model}${bySize.size > 1 ? `_m${size}` : ""}.jsonl`);
        const lines = mine
            .filter((r) => r.response !== null)
            .map((r) => JSON.stringify({ template: templateIdFor(r.question), instance: r.instance, round: r.round, response: r.response }));
        writeFileSync(`${replay}.tmp`, lines.join("\n") + "\n", { flag: "wx" });
        renameSync(`${replay}.tmp`, replay);
        const ids = ns.map(templateIdFor);
        const config = normalizeStudyConfig({
            ...replayedAnswers(replay),
            templates: ids,
            instances: size,
            rounds,
            temperatures: [temperature],
            seed: 1,
            db,
            fresh: true,
            ...(opts.judgeWorkers ? { judgeWorkers: opts.judgeWorkers } : {})
        });
        const result = await runStudy(config, { library, onLog: log });
        const verdicts: PublishedVerdict[] = mine.map((r) => ({ ...r.verdict, templateId: templateIdFor(r.question), instance: r.instance, round: r.round, raw: r.raw, form: r.form }));
        const store = openStore(db);
        let reruns = 0;
        try {
            writePublishedVerdicts(store, result.runId, verdicts);
            reruns = await rerunDisagreements(store, result.runId, verdicts, templates, opts, log);
        } finally {
            store.close();
        }
        runs.push({
            runId: result.runId,
            replay,
            templates: ids,
            instances: size,
            rounds,
            responses: lines.length,
            missing: result.missing.length,
            reruns,
            wallMs: result.stats.wallMs,
            verdictsPerS: result.stats.judging.verdictsPerS
        });
    }
    const forms: Record<string, number> = {};
    for (const r of located) if (r.form) forms[r.form] = (forms[r.form] ?? 0) + 1;
    return { model: results.model, temperature, runs, forms, skipped };
}

/**
 * A tuple as both sides compare it: template values held as Python text (`"974.0"`, `"[1.5, 2.0]"`)
 * read back, so that they meet the JSON numbers of the published reports (974).
 */
function matchKey(tuple: ParamValue[]): string {
    return JSON.stringify(tuple.map((v) => (typeof v === "string" && /^[-\d[(.]/.test(v) ? (parsePythonValue(v) ?? v) : v)));
}

/**
 * Where eddy and Turbulence disagree, re-runs the published test (seeded) on the response and on
 * the model solution, sandboxed; records the outcome beside the published verdict. Returns how many
 * were re-run.
 */
async function rerunDisagreements(
    store: ReturnType<typeof openStore>,
    runId: string,
    verdicts: PublishedVerdict[],
    templates: Map<number, Template>,
    opts: ResultsImportOptions,
    log: (line: string) => void
): Promise<number> {
    const seeds = opts.rerunSeeds ?? DEFAULT_RERUN_SEEDS;
    if (seeds <= 0) return 0;
    const eddy = judgedResponses(store, [runId]);
    const byId = new Map([...templates.values()].map((t) => [t.id, t]));
    const todo: { p: PublishedVerdict; request: RerunRequest }[] = [];
    for (const p of verdicts) {
        const e = eddy.get(`${runId}|${p.templateId}|${p.instance}|${p.round}`);
        if (!e || e.category === null || e.missing === 1 || (e.category === "passed") === p.correct) continue;
        const t = byId.get(p.templateId);
        const sources = t ? embeddedTemplates(readFileSync(t.oracleFile, "utf8")) : undefined;
        const code = p.extracted?.trim() ? p.extracted : e.code;
        if (!t || !sources || !code) continue;
        todo.push({ p, request: { tests: sources.tests, solution: sources.solution, function: t.function, params: JSON.parse(e.params_json) as ParamValue[], code } });
    }
    if (todo.length === 0) return 0;
    log(`re-running the published test on ${todo.length} disagreement(s), ${seeds} seed(s) each, in the sandbox`);
    const tmp = makeTempDir(tmpdir(), "eddy-rerun-");
    const pool = await JudgePool.start({ ...(opts.judgeWorkers ? { workers: opts.judgeWorkers } : {}) });
    try {
        const outcomes = await rerunPublishedTests(
            pool,
            tmp.path,
            todo.map((x) => x.request),
            seeds
        );
        writePublishedReruns(
            store,
            runId,
            todo.map((x, i) => ({ templateId: x.p.templateId, instance: x.p.instance, round: x.p.round, rerun: outcomes[i]! }))
        );
    } finally {
        await pool.close();
        tmp.dispose();
    }
    return todo.length;
}
