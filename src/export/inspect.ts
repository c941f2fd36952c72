import type { Store } from "../store/Store.js";
import type { ChatMessage } from "../vocabulary.js";
import { askedMessages } from "../store/outcomes.js";
import { provenanceOf } from "../import/provenance.js";
import { configurationResponses, instanceQuestions, type ConfigurationResponses, type ResponseRow } from "./responses.js";
import type { ExportFormat } from "./types.js";

/**
 * An inspect_ai eval log in its JSON form (log format version 2), shaped after the log schema
 * inspect published (src/inspect_ai/_view/www/log-schema.json; vendored for the tests in
 * test/export/fixtures): EvalLog { version, status, eval: EvalSpec, plan, results, stats, samples }.
 * Every field the schema lists is written (null where eddy has nothing), as inspect writes them.
 */

// GenerateConfig's fields (all nullable); eddy fills those it records.
const GENERATE_CONFIG_FIELDS = [
    "max_retries", "timeout", "attempt_timeout", "max_connections", "system_message", "max_tokens", "top_p", "temperature",
    "stop_seqs", "best_of", "frequency_penalty", "presence_penalty", "logit_bias", "seed", "top_k", "num_choices", "logprobs",
    "top_logprobs", "parallel_tool_calls", "internal_tools", "max_tool_output", "cache_prompt", "verbosity", "effort",
    "reasoning_effort", "reasoning_tokens", "reasoning_summary", "reasoning_history", "response_schema", "extra_headers",
    "extra_body", "modalities", "cache", "batch"
];
const EVAL_CONFIG_FIELDS = [
    "limit", "sample_id", "sample_shuffle", "epochs", "epochs_reducer", "approval", "fail_on_error", "continue_on_fail",
    "retry_on_error", "message_limit", "token_limit", "time_limit", "working_limit", "cost_limit", "max_samples",
    "max_dataset_memory", "max_tasks", "max_subprocesses", "max_sandboxes", "sandbox_cleanup", "log_samples", "log_realtime",
    "log_images", "log_model_api", "log_buffer", "log_shared", "score_display"
];

function nulls(keys: string[], set: Record<string, unknown>): Record<string, unknown> {
    return { ...Object.fromEntries(keys.map((k) => [k, null])), ...set };
}

/** inspect's ChatCompletionChoice stop reasons, from eddy's. */
function stopReason(r: string): string {
    if (r === "eos" || r === "stop") return "stop";
    if (r === "max_tokens" || r === "length") return "max_tokens";
    if (r === "context" || r === "model_length") return "model_length";
    return "unknown";
}

function message(m: ChatMessage): Record<string, unknown> {
    const base = { id: null, content: m.content, source: "input", metadata: null, role: m.role };
    return m.role === "user" ? { ...base, tool_call_id: null } : base;
}

function usage(input: number, output: number): Record<string, unknown> {
    return { input_tokens: input, output_tokens: output, total_tokens: input + output, input_tokens_cache_write: null, input_tokens_cache_read: null, reasoning_tokens: null, total_cost: null };
}

const STATUS: Record<string, string> = { complete: "success", failed: "error", interrupted: "cancelled", running: "started" };

function sample(r: ResponseRow, model: string, input: ChatMessage[]): Record<string, unknown> {
    const assistant = { id: null, content: r.response, source: "generate", metadata: null, role: "assistant", tool_calls: null, model };
    const tokens = usage(Number(r.prompt_tokens ?? 0), Number(r.generated_tokens ?? 0));
    const passed = r.category === "passed";
    return {
        id: `${r.template}/${r.instance}`,
        epoch: r.round + 1,
        input: input.map(message),
        choices: null,
        target: "",
        sandbox: null,
        files: null,
        setup: null,
        messages: [...input.map(message), assistant],
        output: {
            model,
            choices: [{ message: assistant, stop_reason: stopReason(String(r.stop_reason)), logprobs: null }],
            completion: r.response,
            usage: tokens,
            time: Number(r.gen_ms ?? 0) / 1000,
            metadata: null,
            error: null
        },
        scores: {
            eddy: {
                value: passed ? "C" : "I",
                answer: r.code,
                explanation: `${r.category}: ${r.detail}`,
                metadata: { category: r.category, judge_category: r.judge_category ?? null },
                history: []
            }
        },
        metadata: { template: r.template, group: r.group, instance: r.instance, params: r.params, round: r.round, seed: r.seed, category: r.category, detail: r.detail },
        store: {},
        events: [],
        timelines: null,
        model_usage: { [model]: tokens },
        role_usage: {},
        started_at: null,
        completed_at: null,
        total_time: null,
        working_time: null,
        uuid: null,
        invalidation: null,
        error: null,
        error_retries: null,
        attachments: {},
        events_data: null,
        limit: null
    };
}

/** The inspect_ai eval log (JSON) of one configuration of a run: one sample per response. */
export function inspectLog(store: Store, { run, configuration: c, rows }: ConfigurationResponses): Record<string, unknown> {
    // Answers imported from another harness: only what is known of their generation is written (null: unknown).
    const imported = provenanceOf(c.metadata);
    const model = imported ? (imported.model.includes("/") ? imported.model : `unknown/${imported.model}`) : `eddy/${c.model}`;
    const asked = askedMessages(store, c.id);
    // The prompt the model saw is unknown for imported answers: the problem's text stands alone, with no system message.
    const questions = imported ? instanceQuestions(store, run.id, rows) : undefined;
    const input = (r: ResponseRow): ChatMessage[] =>
        questions ? [{ role: "user", content: questions.get(`${r.template}|${r.instance}`) ?? "" }] : (asked.get(`${r.template}|${r.instance}|${r.round}`) ?? []);
    const samples = rows.map((r) => sample(r, model, input(r)));
    const decoding = (c.decoding ?? {}) as Record<string, unknown>;
    const meta = c.metadata ?? {};
    const generate = nulls(
        GENERATE_CONFIG_FIELDS,
        imported
            ? { temperature: imported.temperature }
            : {
                  temperature: c.temperature,
                  ...(typeof decoding.topP === "number" ? { top_p: decoding.topP } : {}),
                  ...(typeof decoding.topK === "number" ? { top_k: decoding.topK } : {}),
                  ...(typeof meta.maxTokens === "number" ? { max_tokens: meta.maxTokens } : {}),
                  seed: run.seed
              }
    );
    const ids = [...new Set(samples.map((s) => s.id as string))];
    const rounds = Math.max(0, ...rows.map((r) => r.round + 1));
    const passed = rows.filter((r) => r.category === "passed").length;
    const inTokens = rows.reduce((n, r) => n + Number(r.prompt_tokens ?? 0), 0);
    const outTokens = rows.reduce((n, r) => n + Number(r.generated_tokens ?? 0), 0);
    return {
        version: 2,
        status: STATUS[run.status] ?? "started",
        eval: {
            eval_set_id: null,
            eval_id: `${run.id}-${c.id}`,
            run_id: run.id,
            created: run.created,
            task: "eddy",
            task_id: run.id,
            task_version: 0,
            task_file: null,
            task_display_name: `eddy run ${run.id}`,
            task_registry_name: null,
            task_attribs: {},
            task_args: {},
            task_args_passed: {},
            solver: null,
            solver_args: null,
            solver_args_passed: null,
            tags: null,
            dataset: { name: "eddy templates", location: null, samples: ids.length, sample_ids: ids, shuffled: false },
            sandbox: null,
            model,
            model_generate_config: generate,
            model_base_url: null,
            model_args: imported ? { imported_from: imported.importedFrom, source: imported.source } : { model_path: c.modelPath, model_sha256: c.modelSha256, quantization: c.quantization, backend: run.backend },
            model_roles: null,
            config: nulls(EVAL_CONFIG_FIELDS, { epochs: rounds }),
            revision: null,
            packages: { eddy: run.eddyVersion },
            metadata: imported
                ? { eddy_config: run.config, configuration: c.label, provenance: c.metadata?.provenance, isolation: run.isolationLevel }
                : { eddy_config: run.config, configuration: c.label, wrapper: c.wrapper, decoding: c.decoding, backend_metadata: c.metadata, isolation: run.isolationLevel },
            scorers: null,
            metrics: null
        },
        plan: {
            name: "plan",
            steps: imported
                ? [{ solver: "imported", params: { from: imported.importedFrom, source: imported.source }, params_passed: {} }]
                : [
                      { solver: "eddy/prompt_wrapper", params: { wrapper: c.wrapper }, params_passed: { wrapper: c.wrapper } },
                      { solver: "generate", params: {}, params_passed: {} }
                  ],
            finish: null,
            config: generate
        },
        results: {
            total_samples: samples.length,
            completed_samples: samples.length,
            early_stopping: null,
            scores: [
                {
                    name: "eddy",
                    scorer: "eddy",
                    reducer: null,
                    scored_samples: samples.length,
                    unscored_samples: 0,
                    params: {},
                    metrics: { accuracy: { name: "accuracy", value: samples.length ? passed / samples.length : 0, params: {}, metadata: null } },
                    metadata: null
                }
            ],
            metadata: null
        },
        stats: { started_at: run.created, completed_at: run.updated, model_usage: { [model]: usage(inTokens, outTokens) }, role_usage: {} },
        error: null,
        invalidated: false,
        log_updates: null,
        tags: [],
        metadata: {},
        samples,
        reductions: null,
        etag: null,
        eval_set_info: null
    };
}

/** `--format inspect`: an inspect_ai eval log (JSON), for `inspect view`. */
export const INSPECT_FORMAT: ExportFormat = {
    id: "inspect",
    help: "an inspect_ai eval log, JSON",
    oneConfiguration: true,
    folder: false,
    write: ({ store, runId, config }) => ({ text: JSON.stringify(inspectLog(store, configurationResponses(store, runId, config)), null, 1) + "\n" })
};
