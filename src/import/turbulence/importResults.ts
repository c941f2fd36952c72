import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { normalizeStudyConfig } from "../../run/config.js";
import { runStudy } from "../../run/runStudy.js";
import { openStore } from "../../store/Store.js";
import { loadTemplate } from "../../templates/loadTemplates.js";
import type { Template } from "../../templates/types.js";
import { EddyError } from "../../util/errors.js";
import { defaultDbPath } from "../../util/paths.js";
import { writePublishedVerdicts, type PublishedVerdict } from "../store.js";
import { withTemplateFolders } from "./folders.js";
import { templateIdFor } from "./importQuestions.js";
import { readTurbulenceResults, type TurbulenceResponse } from "./results.js";

export interface ResultsImportOptions {
    /** The folder `eddy import turbulence` wrote (its templates/ and oracles/). */
    templates: string;
    db?: string;
    /** The model whose `<model>_results_<run>` folders to read, when the folder holds several. */
    model?: string;
    /** Overrides the temperature read from the folder name (`…_T_0`). */
    temperature?: number;
    /** Where the replay files go (default: `imports/` beside the database). */
    replayDir?: string;
    judgeWorkers?: number;
    onLog?: (line: string) => void;
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
    /** Wall time of the replay run and its judging throughput (from the study's own stats). */
    wallMs: number;
    verdictsPerS: number;
}

export interface ResultsImportSummary {
    model: string;
    temperature: number;
    runs: ImportedRun[];
}

/**
 * Reads one model's Turbulence results into replay runs with the same instances: each response
 * is matched to its instance by its recorded parameters, judged by eddy, and stored beside the
 * verdict Turbulence published for it.
 */
export async function importTurbulenceResults(dir: string, opts: ResultsImportOptions): Promise<ResultsImportSummary> {
    const results = readTurbulenceResults(dir, opts.model);
    const temperature = opts.temperature ?? results.temperature;
    if (temperature === undefined) throw new EddyError(`cannot tell the temperature from the folder name '${path.basename(path.resolve(dir))}' (…_T_<t>); pass --temperature`);
    const templatesDir = path.join(path.resolve(opts.templates), "templates");
    const oraclesDir = path.join(path.resolve(opts.templates), "oracles");
    if (!existsSync(templatesDir)) throw new EddyError(`${opts.templates} holds no templates/ folder: run 'eddy import turbulence <benchmark> --out ${opts.templates}' first`);
    const db = path.resolve(opts.db ?? defaultDbPath());
    const log = opts.onLog ?? (() => {});

    return withTemplateFolders(templatesDir, oraclesDir, async () => {
        const questions = [...new Set(results.responses.map((r) => r.question))].sort((a, b) => a - b);
        const templates = new Map<number, Template>();
        for (const n of questions) {
            try {
                templates.set(n, loadTemplate(templateIdFor(n)));
            } catch (err) {
                throw new EddyError(`no usable template for Q${n} in ${opts.templates} (${(err as Error).message}); run 'eddy import turbulence' on the benchmark first`);
            }
        }
        // Instance index = position of the tuple among the template's edge tuples (duplicates dropped), as sampleInstances orders them.
        const indexOf = new Map<number, Map<string, number>>();
        for (const [n, t] of templates) {
            const m = new Map<string, number>();
            for (const tuple of t.edge) if (!m.has(JSON.stringify(tuple))) m.set(JSON.stringify(tuple), m.size);
            indexOf.set(n, m);
        }
        const located = results.responses.map((r) => {
            const instance = indexOf.get(r.question)!.get(JSON.stringify(r.params));
            if (instance === undefined)
                throw new EddyError(`Q${r.question} ${r.verdict.location}: parameters ${JSON.stringify(r.params)} are not among the recorded tuples of ${templateIdFor(r.question)}`);
            return { ...r, instance };
        });

        // One run per neighbourhood size: a study asks every template for the same number of instances.
        const bySize = new Map<number, number[]>();
        for (const n of questions) {
            const size = indexOf.get(n)!.size;
            bySize.set(size, [...(bySize.get(size) ?? []), n]);
        }
        const runs: ImportedRun[] = [];
        const replayRoot = path.resolve(opts.replayDir ?? path.join(path.dirname(db), "imports"));
        for (const [size, ns] of [...bySize.entries()].sort((a, b) => a[0] - b[0])) {
            const mine = located.filter((r) => ns.includes(r.question));
            const rounds = Math.max(...mine.map((r) => r.round)) + 1;
            const folder = path.join(replayRoot, `${results.model}_T_${temperature}${bySize.size > 1 ? `_m${size}` : ""}`);
            mkdirSync(folder, { recursive: true });
            const replay = path.join(folder, `${results.model}.jsonl`);
            const lines = mine
                .filter((r) => r.response !== null)
                .map((r) => JSON.stringify({ template: templateIdFor(r.question), instance: r.instance, round: r.round, response: r.response }));
            writeFileSync(`${replay}.tmp`, lines.join("\n") + "\n");
            renameSync(`${replay}.tmp`, replay);
            const ids = ns.map(templateIdFor);
            const config = normalizeStudyConfig({
                backend: "replay",
                replay,
                templates: ids,
                instances: size,
                rounds,
                temperatures: [temperature],
                seed: 1,
                db,
                ...(opts.judgeWorkers ? { judgeWorkers: opts.judgeWorkers } : {})
            });
            const result = await runStudy(config, { onLog: log });
            const verdicts: PublishedVerdict[] = mine.map((r: TurbulenceResponse & { instance: number }) => ({ ...r.verdict, templateId: templateIdFor(r.question), instance: r.instance, round: r.round }));
            const store = openStore(db);
            try {
                writePublishedVerdicts(store, result.runId, verdicts);
            } finally {
                store.close();
            }
            runs.push({ runId: result.runId, replay, templates: ids, instances: size, rounds, responses: lines.length, missing: result.missing.length, wallMs: result.stats.wallMs, verdictsPerS: result.stats.judging.verdictsPerS });
        }
        return { model: results.model, temperature, runs };
    });
}
