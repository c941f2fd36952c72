import { createHash } from "node:crypto";
import { isJudged } from "../vocabulary.js";
import { backendDescriptor, isBackendName } from "../inference/backends.js";
import { scoresOverInstances, type RateScore } from "../scores/rates.js";
import { EXPORTED_SCORES, score as scoreColumn } from "../report/scoreTable.js";
import { bootstrapMeanInterval } from "../stats/bootstrap.js";
import { instanceRateInterval, type Interval } from "../stats/wilson.js";
import type { Store } from "../store/Store.js";
import { askedMessages } from "../store/outcomes.js";
import { configurationResponses, instanceQuestions, type ConfigurationResponses, type ResponseRow } from "./responses.js";
import type { ExportFormat } from "./types.js";
import { provenanceOf } from "../import/provenance.js";

/**
 * Every Eval Ever (evaleval/every_eval_ever, schema 0.3.0): an aggregate log
 * (eval.schema.json) and its per-instance sidecar (instance_level_eval.schema.json), one JSON
 * object per response. Both schemas are closed: only their fields are written.
 */
export const EEE_SCHEMA_VERSION = "0.3.0";

/** The two files of one export and where they go, relative to the output folder (the datastore's data/<collection>/<developer>/<model>/ layout). */
export interface EeeExport {
    aggregatePath: string;
    samplesPath: string;
    aggregate: Record<string, unknown>;
    samples: string;
}

/** additional_details values must be strings. */
function strings(o: Record<string, unknown>): Record<string, string> {
    return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
}

/** A stable UUID (version-4 form, as the datastore's file names require) from a text. */
function stableUuid(text: string): string {
    const h = createHash("sha256").update(text).digest("hex");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${"89ab"[parseInt(h[16]!, 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A path component the datastore accepts. */
function component(s: string): string {
    return s.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[-.]+|-+$/g, "") || "unknown";
}

/** A judged answer, as every command counts one (src/vocabulary.ts): a model verdict. */
const judged = (r: ResponseRow): boolean => isJudged(r.category);

/** A score's description as every report gives it (the one table of scores), as a mean over templates here. */
const describe = (name: RateScore): string => `${scoreColumn(name).description}; mean over templates`;

/** The Every Eval Ever aggregate and instance records of one configuration of a run. */
export function eeeExport(store: Store, { run, configuration: c, rows }: ConfigurationResponses, retrievedAt: Date = new Date()): EeeExport {
    const asked = askedMessages(store, c.id);
    const meta = (c.metadata ?? {}) as Record<string, unknown> & { model?: { quantization?: string; architecture?: string } };
    const decoding = (c.decoding ?? {}) as Record<string, unknown>;
    // Answers imported from another harness: the model as that harness named it, and only what is known of their generation.
    const imported = provenanceOf(c.metadata);
    const developer = imported?.model.includes("/") ? component(imported.model.split("/")[0]!) : "unknown";
    const modelName = imported ? imported.model.split("/").pop()! : c.model;
    const modelId = imported?.model.includes("/") ? imported.model : `${developer}/${component(modelName)}`;
    const evaluationId = `eddy/${run.id}/${c.label}`;
    const uuid = stableUuid(evaluationId);
    const dir = `data/eddy/${developer}/${component(modelName)}`;
    const samplesPath = `${dir}/${uuid}_samples.jsonl`;

    // Per template, its instances' {c, n} over judged responses: the unit eddy's scores average over.
    const byTemplate = new Map<string, Map<number, { c: number; n: number }>>();
    for (const r of rows.filter(judged)) {
        const m = byTemplate.get(r.template) ?? new Map<number, { c: number; n: number }>();
        const i = m.get(r.instance) ?? { c: 0, n: 0 };
        i.n++;
        if (r.category === "passed") i.c++;
        m.set(r.instance, i);
        byTemplate.set(r.template, m);
    }
    const perTemplate = [...byTemplate.values()].map((m) => scoresOverInstances([...m.values()]));
    const allInstances = [...byTemplate.values()].flatMap((m) => [...m.values()]);
    const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);

    const generationArgs = imported
        ? { ...(imported.temperature !== null ? { temperature: imported.temperature } : {}) }
        : {
        temperature: c.temperature,
        ...(typeof decoding.topP === "number" ? { top_p: decoding.topP } : {}),
        ...(typeof decoding.topK === "number" ? { top_k: decoding.topK } : {}),
        ...(typeof meta.maxTokens === "number" && meta.maxTokens >= 1 ? { max_tokens: meta.maxTokens } : {}),
        prompt_template: c.wrapper
    };
    const generationDetails = imported
        ? strings({ imported_from: imported.importedFrom, unknown: (c.metadata?.provenance as { unknown?: string[] } | undefined)?.unknown ?? [] })
        : strings({ seed: run.seed, wrapper: c.wrapper, decoding: c.decoding });
    const result = (score: RateScore) => {
        const values = perTemplate.map((s) => s[score]);
        const interval: Interval =
            score === "RLPR" && byTemplate.size === 1 ? instanceRateInterval(allInstances) : bootstrapMeanInterval(values, { seed: run.seed });
        const method = score === "RLPR" && byTemplate.size === 1 ? "Wilson at the instances' effective sample size" : "seeded percentile bootstrap over templates (2000 resamples)";
        const ok = Number.isFinite(interval.lo) && Number.isFinite(interval.hi);
        return {
            evaluation_result_id: score.toLowerCase(),
            evaluation_name: `eddy ${score}`,
            source_data: { dataset_name: "eddy templates", source_type: "other", additional_details: strings({ templates: [...byTemplate.keys()], instances: allInstances.length }) },
            evaluation_timestamp: run.created,
            metric_config: {
                evaluation_description: describe(score),
                metric_id: `eddy.${score.toLowerCase()}`,
                metric_name: score,
                metric_kind: "accuracy",
                metric_unit: "proportion",
                lower_is_better: false,
                score_type: "continuous",
                min_score: 0,
                max_score: 1
            },
            score_details: {
                score: mean(values),
                details: strings({ templates: values.length, responses_judged: rows.filter(judged).length, responses: rows.length }),
                uncertainty: {
                    ...(ok ? { confidence_interval: { lower: interval.lo, upper: interval.hi, confidence_level: 0.95, method } } : {}),
                    num_samples: values.length
                }
            },
            generation_config: { generation_args: generationArgs, additional_details: generationDetails }
        };
    };
    // Each instance record holds one response's pass (1) or fail (0): the aggregate it belongs to is this share.
    const judgedRows = rows.filter(judged);
    const passResult = {
        evaluation_result_id: "pass",
        evaluation_name: "eddy pass",
        source_data: { dataset_name: "eddy templates", source_type: "other", additional_details: strings({ templates: [...byTemplate.keys()], instances: allInstances.length }) },
        evaluation_timestamp: run.created,
        metric_config: {
            evaluation_description: "Share of the judged responses that pass every test (each instance record holds its response's 1 or 0)",
            metric_id: "eddy.pass",
            metric_name: "pass",
            metric_kind: "accuracy",
            metric_unit: "proportion",
            lower_is_better: false,
            score_type: "continuous",
            min_score: 0,
            max_score: 1
        },
        score_details: {
            score: judgedRows.length ? judgedRows.filter((r) => r.category === "passed").length / judgedRows.length : 0,
            details: strings({ responses_judged: judgedRows.length, responses: rows.length }),
            uncertainty: { num_samples: judgedRows.length }
        },
        generation_config: { generation_args: generationArgs, additional_details: generationDetails }
    };

    const questions = imported ? instanceQuestions(store, run.id, rows) : undefined;
    const samples = rows
        .map((r) =>
            JSON.stringify({
                schema_version: EEE_SCHEMA_VERSION,
                evaluation_id: evaluationId,
                model_id: modelId,
                evaluation_name: "eddy pass",
                evaluation_result_id: "pass",
                sample_id: `${r.template}/${r.instance}/${r.round}`,
                interaction_type: "single_turn",
                input: {
                    // Imported answers: the problem's text (the prompt they were generated from is unknown).
                    raw: questions ? (questions.get(`${r.template}|${r.instance}`) ?? "") : (asked.get(`${r.template}|${r.instance}|${r.round}`) ?? []).filter((m) => m.role === "user").map((m) => m.content).join("\n\n"),
                    reference: []
                },
                output: { raw: [r.response] },
                answer_attribution: [{ turn_idx: 0, source: "output.raw", extracted_value: r.code ?? "", extraction_method: "eddy: the Python code block defining the asked function", is_terminal: true }],
                evaluation: { score: r.category === "passed" ? 1 : 0, is_correct: r.category === "passed" },
                token_usage: { input_tokens: Number(r.prompt_tokens ?? 0), output_tokens: Number(r.generated_tokens ?? 0), total_tokens: Number(r.prompt_tokens ?? 0) + Number(r.generated_tokens ?? 0) },
                performance: { generation_time_ms: Math.max(0, Number(r.gen_ms ?? 0)) },
                error: judged(r) ? null : `${r.category}: ${r.detail}`,
                metadata: strings({ template: r.template, group: r.group, instance: r.instance, params: r.params, round: r.round, seed: r.seed, category: r.category, detail: r.detail })
            }) + "\n"
        )
        .join("");
    const aggregate = {
        schema_version: EEE_SCHEMA_VERSION,
        evaluation_id: evaluationId,
        evaluation_timestamp: run.created,
        retrieved_timestamp: String(Math.floor(retrievedAt.getTime() / 1000)),
        source_metadata: { source_name: "eddy", source_type: "evaluation_run", source_organization_name: "local", evaluator_relationship: "third_party" },
        eval_library: { name: "eddy", version: run.eddyVersion, additional_details: strings({ run: run.id, backend: run.backend, isolation: run.isolationLevel }) },
        model_info: {
            name: modelName,
            id: modelId,
            developer,
            ...(imported
                ? {
                      inference_platform: "unknown",
                      inference_engine: { name: "unknown" },
                      additional_details: { deployment_type: "unknown", model_availability: "unknown", ...strings({ imported_from: imported.importedFrom, source: imported.source, rejudged_by: "eddy replay" }) }
                  }
                : {
                      inference_platform: "local",
                      inference_engine: { name: isBackendName(run.backend) ? backendDescriptor(run.backend).engine : `eddy ${run.backend}`, ...(typeof meta.llamaCppRelease === "string" ? { version: meta.llamaCppRelease } : {}) },
                      additional_details: {
                          deployment_type: "self_deployed",
                          model_availability: "open_weights",
                          ...strings({ quantization: c.quantization ?? meta.model?.quantization, model_sha256: c.modelSha256, model_path: c.modelPath, architecture: meta.model?.architecture, node_llama_cpp: meta.nodeLlamaCppVersion, threads: meta.threads })
                      }
                  })
        },
        evaluation_results: [...EXPORTED_SCORES.map((c) => result(c.name as RateScore)), passResult],
        detailed_evaluation_results: { format: "jsonl", file_path: samplesPath, hash_algorithm: "sha256", checksum: createHash("sha256").update(samples).digest("hex"), total_rows: rows.length }
    };
    return { aggregatePath: `${dir}/${uuid}.json`, samplesPath, aggregate, samples };
}

/** `--format eee`: the aggregate and its per-instance records, into the --out folder. */
export const EEE_FORMAT: ExportFormat = {
    id: "eee",
    help: "Every Eval Ever aggregate + per-instance records, into the --out folder",
    oneConfiguration: true,
    folder: true,
    write: ({ store, runId, config }) => {
        const e = eeeExport(store, configurationResponses(store, runId, config));
        return {
            files: [
                { path: e.aggregatePath, body: JSON.stringify(e.aggregate, null, 1) + "\n" },
                { path: e.samplesPath, body: e.samples }
            ]
        };
    }
};
