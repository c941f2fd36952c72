import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { normalizeStudyConfig } from "../../run/config.js";
import { runStudy } from "../../run/runStudy.js";
import { openStore } from "../../store/Store.js";
import { loadTemplate } from "../../templates/loadTemplates.js";
import { EddyError, oneLine } from "../../util/errors.js";
import { defaultDbPath } from "../../util/paths.js";
import { writePublishedVerdicts, type PublishedVerdict } from "../../store/publishedVerdicts.js";
import { libraryAt } from "../../templates/library.js";
import { HUMANEVAL_SUMMARY, type HumanEvalImportSummary } from "./importProblems.js";
import { MODEL_NAME, modelFileStem, recordProvenance, type EvalPlusJudged } from "../provenance.js";
import { evalResultsPath, readEvalPlusSamples, readEvalResultsFile, type EvalPlusStatus } from "./samples.js";
import { describeDatasetHash, describeVersion, evalPlusVersionOf, parseEvalPlusVersion, rulesAsOf } from "./evalplusVersions.js";
import { gatherEvidence, type Disagreeing } from "./evidence.js";
import { judgedResponses } from "../../store/publishedVerdicts.js";
import type { StudyProgress } from "../../run/runStudy.js";

import type { ReplayImportOptions } from "../replayImport.js";
import { replayedAnswers } from "../../inference/backends.js";

/** The source name published verdicts from EvalPlus carry. */
export const EVALPLUS_SOURCE = "EvalPlus";

/** `templates` is the folder `eddy import humaneval` wrote; `model` defaults to the samples file or folder name. */
export type SamplesImportOptions = ReplayImportOptions & {
    /** Which EvalPlus judged the results beside the samples (a release, a date, 'main'): its rules explain the disagreements; default: by the results' date. */
    evalplusVersion?: string;
    /** The replay run's progress, as `eddy run` shows it. */
    onProgress?: (p: StudyProgress) => void;
};

export interface SamplesImportSummary {
    runId: string;
    model: string;
    temperature: number;
    replay: string;
    templates: string[];
    rounds: number;
    samples: number;
    missing: number;
    /** The EvalPlus results file whose statuses were stored, if one was beside the samples. */
    published: string | null;
    /** With published results: which EvalPlus judged them, the datasets' md5 on each side, and how many disagreements were probed for their cause. */
    evalplus?: EvalPlusJudged & { datasetDiffers: boolean; disagreements: number };
}

function readSummary(folder: string): HumanEvalImportSummary {
    const file = path.join(folder, HUMANEVAL_SUMMARY);
    if (!existsSync(file)) throw new EddyError(`${folder} holds no ${HUMANEVAL_SUMMARY}: run 'eddy import humaneval <problems.jsonl> --out ${folder}' first`);
    try {
        return JSON.parse(readFileSync(file, "utf8")) as HumanEvalImportSummary;
    } catch (err) {
        throw new EddyError(`${file}: not JSON (${oneLine(err)})`);
    }
}

/** EvalPlus's verdict as a published verdict: correct when base and plus (where run) pass; its own timeout (the process stopped) is its harness's fault. */
function publishedOf(s: EvalPlusStatus): Pick<PublishedVerdict, "correct" | "stage" | "fault" | "detail"> {
    const correct = s.base === "pass" && (s.plus === null || s.plus === "pass");
    const stage = correct ? "passed" : s.base !== "pass" ? "fixed_tests" : "fuzzing";
    const failed = s.base !== "pass" ? s.baseFailRaw ?? s.baseFailTests.map((t) => JSON.stringify(t)) : s.plusFailRaw ?? s.plusFailTests.map((t) => JSON.stringify(t));
    const status = s.base !== "pass" ? s.base : s.plus;
    return { correct, stage, fault: !correct && status === "timeout" ? "timeout" : null, detail: `base ${s.base}, plus ${s.plus ?? "not run"}${failed.length ? `; failing input ${failed[0]!.slice(0, 200)}` : ""}` };
}

/**
 * Replays EvalPlus samples over problems imported by `eddy import humaneval`: one run, each task's
 * samples as rounds of its single instance, judged by eddy; the statuses of an EvalPlus results
 * file beside the samples are stored as published verdicts, so `eddy report` shows the agreement.
 */
export async function importEvalPlusSamples(source: string, opts: SamplesImportOptions): Promise<SamplesImportSummary> {
    const folder = path.resolve(opts.templates);
    const summary = readSummary(folder);
    const idOf = new Map(summary.templates.map((t) => [t.taskId, t.id]));
    const byFolderName = new Map(summary.templates.map((t) => [t.taskId.replace(/\//g, "_"), t.taskId]));
    const samples = readEvalPlusSamples(source, (name) => byFolderName.get(name));
    for (const s of samples) if (!idOf.has(s.taskId)) throw new EddyError(`${s.location}: task '${s.taskId}' is not among the problems imported into ${opts.templates}`);
    const resultsFile = evalResultsPath(source);
    const results = resultsFile ? readEvalResultsFile(resultsFile) : undefined;
    const statuses = results?.statuses;
    if (statuses)
        for (const s of samples)
            if (!statuses.get(s.taskId)?.[s.n]) throw new EddyError(`${resultsFile}: no result for ${s.taskId} sample ${s.n + 1} (the results do not belong to these samples)`);
    // An unknown temperature is stored as 0 (a configuration needs one) and exported as unknown.
    const temperature = opts.temperature ?? 0;
    const model = opts.model ?? path.basename(path.resolve(source)).replace(/\.jsonl(\.gz)?$/, "");
    if (!MODEL_NAME.test(model)) throw new EddyError(`model name '${model}' may only use letters, digits, '.', '_' and '-', as name or org/name: pass --model`);
    const stem = modelFileStem(model);
    const db = path.resolve(opts.db ?? defaultDbPath());
    const log = opts.onLog ?? (() => {});
    // Which EvalPlus judged, and against which dataset: the rules and the data the disagreements are read by.
    const given = opts.evalplusVersion !== undefined ? parseEvalPlusVersion(opts.evalplusVersion) : undefined;
    let judged: EvalPlusJudged | undefined;
    let datasetDiffers = false;
    if (results && resultsFile) {
        const version = evalPlusVersionOf(given, results.date);
        const imported = { hash: summary.datasetHash?.evalplus ?? null, fileHash: summary.datasetHash?.file ?? null, source: summary.source ?? null };
        judged = { results: path.resolve(resultsFile), date: results.date, hash: results.hash, imported, version };
        datasetDiffers = results.hash !== null && imported.hash !== null && results.hash !== imported.hash && results.hash !== imported.fileHash;
        if (datasetDiffers)
            log(
                `warning: ${path.basename(resultsFile)} was judged against another dataset than the one imported into ${opts.templates}: ${describeDatasetHash(results.hash!)} there, ${describeDatasetHash(imported.hash!, imported.source ? path.basename(imported.source) : undefined)} here (the agreement report says so; disagreements may be the dataset's)`
            );
    }

    const library = libraryAt(folder);
    const ids = [...new Set(samples.map((s) => idOf.get(s.taskId)!))];
    const prompts = new Map(ids.map((id) => [id, loadTemplate(library, id).question]));
    const lines = samples.map((s) => {
        const id = idOf.get(s.taskId)!;
        // EvalPlus's own rule: a completion is appended to the prompt.
        const code = s.solution ?? prompts.get(id)! + s.completion!;
        return { template: id, instance: 0, round: s.n, response: "```python\n" + code.replace(/\n*$/, "\n") + "```\n" };
    });
    const dir = path.join(path.resolve(opts.replayDir ?? path.join(path.dirname(db), "imports")), `${stem}_T_${temperature}`);
    mkdirSync(dir, { recursive: true });
    const replay = path.join(dir, `${stem}.jsonl`);
    writeFileSync(`${replay}.tmp`, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    renameSync(`${replay}.tmp`, replay);
    const rounds = Math.max(...samples.map((s) => s.n)) + 1;
    const config = normalizeStudyConfig({
        // The model's label is its name as given (org/name whole); the file name alone is the stem.
        ...replayedAnswers(replay, model === stem ? undefined : model),
        templates: ids,
        instances: 1,
        rounds,
        temperatures: [temperature],
        wrappers: ["completion"],
        seed: 1,
        db,
        ...(opts.judgeWorkers ? { judgeWorkers: opts.judgeWorkers } : {})
    });
    const result = await runStudy(config, { library, onLog: log, ...(opts.onProgress ? { onProgress: opts.onProgress } : {}) });
    recordProvenance(db, result.runId, { importedFrom: EVALPLUS_SOURCE, source: path.resolve(source), model, temperature: opts.temperature ?? null, ...(judged ? { evalplus: judged } : {}) });
    let disagreements = 0;
    if (statuses && judged) {
        const codeOf = (s: (typeof samples)[number]) => s.solution ?? prompts.get(idOf.get(s.taskId)!)! + s.completion!;
        const verdicts: PublishedVerdict[] = samples.map((s) => ({
            ...publishedOf(statuses.get(s.taskId)![s.n]!),
            templateId: idOf.get(s.taskId)!,
            instance: 0,
            round: s.n,
            source: EVALPLUS_SOURCE,
            extracted: codeOf(s),
            location: s.location
        }));
        // Where eddy and EvalPlus disagree, what each sample does on the input that decided, probed in the sandbox.
        const read = openStore(db);
        let eddy: ReturnType<typeof judgedResponses>;
        try {
            eddy = judgedResponses(read, [result.runId]);
        } finally {
            read.close();
        }
        const byId = new Map(summary.templates.map((t) => [t.id, t]));
        const differ: { k: number; d: Disagreeing }[] = [];
        samples.forEach((s, k) => {
            const v = verdicts[k]!;
            const e = eddy.get(`${result.runId}|${v.templateId}|0|${s.n}`);
            if (!e || e.missing === 1 || e.category === null || (e.category === "passed") === v.correct) return;
            differ.push({
                k,
                d: {
                    template: loadTemplate(library, v.templateId),
                    taskId: s.taskId,
                    round: s.n,
                    code: e.code ?? codeOf(s),
                    status: statuses.get(s.taskId)![s.n]!,
                    eddy: e.category,
                    eddyDetail: e.detail ?? "",
                    baseInputs: byId.get(v.templateId)?.fixedTests.base ?? 0
                }
            });
        });
        disagreements = differ.length;
        if (differ.length) {
            const found = await gatherEvidence(
                differ.map((x) => x.d),
                rulesAsOf(judged.version),
                { dataset: summary.dataset ?? "humaneval", ...(opts.judgeWorkers ? { workers: opts.judgeWorkers } : {}), onLog: log }
            );
            found.forEach((ev, j) => (verdicts[differ[j]!.k]!.evidence = ev));
        }
        const store = openStore(db);
        try {
            writePublishedVerdicts(store, result.runId, verdicts);
        } finally {
            store.close();
        }
        log(`EvalPlus's verdicts stored beside eddy's: ${samples.length - disagreements}/${samples.length} agree; disagreements read by the rules of ${describeVersion(judged.version)}`);
    }
    return {
        runId: result.runId,
        model,
        temperature,
        replay,
        templates: ids,
        rounds,
        samples: samples.length,
        missing: result.missing.length,
        published: resultsFile ?? null,
        ...(judged ? { evalplus: { ...judged, datasetDiffers, disagreements } } : {})
    };
}
