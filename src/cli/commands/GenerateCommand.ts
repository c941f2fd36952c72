import type { Command } from "commander";
import { decodingFor } from "../../inference/decoding.js";
import { BACKEND_NAMES, backendDescriptor, DEFAULT_BACKEND } from "../../inference/backends.js";
import type { GenerationRequest } from "../../inference/types.js";
import type { ChatMessage } from "../../vocabulary.js";
import { DEFAULT_WRAPPER_ID, loadWrapper, renderMessages } from "../../prompts/PromptWrapper.js";
import { EddyError } from "../../util/errors.js";
import { deriveSeed } from "../../util/seeds.js";
import { intSetting } from "../../util/settings.js";
import { parseStudySettings } from "../../run/config.js";
import { templateLibrary } from "../templateLibrary.js";
import { TEMPERATURE_OPTION, addBackendOptions, backendFlagValues } from "./studyOptions.js";

interface GenerateOptions {
    backend: string;
    model?: string;
    prompt?: string;
    template?: string;
    instance?: string;
    wrapper: string;
    temperature?: string;
    topK?: string;
    topP?: string;
    minP?: string;
    repeatPenalty?: string;
    seed: string;
    maxTokens: string;
    threads?: string;
    contextSize?: string;
    promptFormat: string;
    json?: boolean;
    /** Each backend's own flags (--gpu, --base-url, …), by their keys. */
    [backendFlag: string]: unknown;
}


/** `eddy generate`: one quick generation, to check a model works before a study. */
export function registerGenerateCommand(program: Command): void {
    const cmd = program
        .command("generate")
        .description("Generate one answer with a model: the response, the extracted code and the stats")
        .option("--backend <name>", `what answers: ${BACKEND_NAMES.join(" | ")}`, DEFAULT_BACKEND)
        .option("-m, --model <file|name>", "the model: a GGUF file with the llama backend (an hf: URI only with --allow-download), a served model's name with --backend server")
        .option("--prompt <text>", "the question to ask")
        .option("--template <id>", "ask a template's question instead (with --instance)")
        .option("--instance <i>", "instance index in the template's neighbourhood (seeded by --seed)")
        .option("--wrapper <id|file>", "prompt wrapper: system text and question framing", DEFAULT_WRAPPER_ID)
        .option(...TEMPERATURE_OPTION.one)
        .option("--top-k <k>", "top-k sampling")
        .option("--top-p <p>", "top-p (nucleus) sampling")
        .option("--min-p <p>", "min-p sampling")
        .option("--repeat-penalty <x>", "repeat penalty (off unless given)")
        .option("--seed <s>", "run seed: picks the instance and derives the sampling seed", "1")
        .option("--max-tokens <n>", "most tokens to generate", "512")
        .option("--threads <n>", "CPU threads (default: auto-tuned by a short measurement)")
        .option("--context-size <n>", "context size in tokens (default: min(trained, 4096))")
        .option("--prompt-format <fmt>", "auto | gguf-chat-template | plain-completion | a node-llama-cpp chat wrapper name", "auto")
        .option("--json", "print JSON to stdout")
        .addHelpText(
            "after",
            "\nExamples:\n  $ eddy generate --model models/eddy-tiny-f32.gguf --prompt 'Write a function add(a, b).'\n  $ eddy generate -m models/eddy-tiny-f32.gguf --template copy_block --instance 3 --temperature 0.8\n  $ eddy generate --backend server --base-url http://127.0.0.1:8080/v1 -m coder --prompt 'add(a, b)'"
        );
    addBackendOptions(cmd).action(async (opts: GenerateOptions) => {
        // The study settings' schema: the same names and bounds as eddy run (a backend's own flags included).
        const descriptor = backendDescriptor(opts.backend);
        const s = parseStudySettings({
            backend: descriptor.name, temperatures: opts.temperature ?? "0", topK: opts.topK, topP: opts.topP, minP: opts.minP, repeatPenalty: opts.repeatPenalty, seed: opts.seed,
            maxTokens: opts.maxTokens, threads: opts.threads, contextSize: opts.contextSize, promptFormat: opts.promptFormat, ...backendFlagValues(opts)
        });
        const models = opts.model === undefined ? [] : [descriptor.resolveModel(opts.model, process.cwd())];
        const missing = descriptor.missing({ ...s, models });
        if (missing) throw new EddyError(missing);
        if (descriptor.needsSolutions) throw new EddyError(`--backend ${descriptor.name} answers with the templates' model solutions: use eddy run`);
        const settings = { ...s, backend: descriptor.name, models };
        descriptor.checkSources(settings);
        if (s.temperatures?.length !== 1) throw new EddyError("give one --temperature");
        if ((opts.prompt === undefined) === (opts.template === undefined)) throw new EddyError("give either --prompt <text> or --template <id> --instance <i>");
        const runSeed = s.seed!;
        const wrapper = loadWrapper(opts.wrapper);
        let messages: ChatMessage[];
        let functionName: string | undefined;
        let task: GenerationRequest["task"];
        let seed = runSeed;
        if (opts.template !== undefined) {
            if (opts.instance === undefined) throw new EddyError("--template needs --instance <i>");
            const index = intSetting("--instance", opts.instance, 0);
            const { loadTemplate } = await import("../../templates/loadTemplates.js");
            const { sampleInstances } = await import("../../templates/instances.js");
            const t = loadTemplate(templateLibrary(), opts.template);
            // The neighbourhood is prefix-stable (a study of any size M > index asks this same instance),
            // so draw only as many as needed: a small domain must not fail for a small index.
            const instances = sampleInstances(t, index + 1, runSeed);
            const inst = instances[index];
            if (!inst) throw new EddyError(`template ${t.id} has no instance ${index}`);
            messages = renderMessages(wrapper, inst.question);
            functionName = t.function;
            task = { templateId: t.id, instance: index, round: 0, params: inst.params };
            seed = deriveSeed(runSeed, t.id, index, 0);
        } else messages = renderMessages(wrapper, opts.prompt!);

        // One query: one at a time (no contexts or connections made for others), in whatever mode the backend defaults to.
        const mode = settings.mode ?? "reproducible";
        const parallel = descriptor.parallelSetting(mode, 1);
        const { parts } = descriptor.readSources(settings);
        const backend = await descriptor.open({ ...settings, mode, groupSize: 1, ...(parallel ? { [parallel]: 1 } : {}) }, descriptor.modelSources({ models })[0] ?? { label: "" }, parts);
        try {
            const request: GenerationRequest = {
                id: "generate",
                messages,
                decoding: decodingFor(s, s.temperatures[0]!),
                seed,
                maxTokens: s.maxTokens!,
                ...(task ? { task } : {})
            };
            let result;
            for await (const r of backend.generate([request])) result = r;
            if (!result) throw new EddyError("the backend returned no result");
            if (result.stopReason === "error" || (result.stopReason === "context_full" && result.error)) throw new EddyError(result.error ?? "generation failed");
            const code = await extract(result.text, functionName);
            const meta = await backend.metadata();
            const tokPerS = result.genMs > 0 ? (result.generatedTokens / result.genMs) * 1000 : 0;
            if (opts.json) {
                process.stdout.write(JSON.stringify({ messages, seed, result, code, tokensPerSecond: tokPerS, metadata: meta }, null, 2) + "\n");
                return;
            }
            process.stdout.write(`--- response ---\n${result.text}\n--- extracted code ---\n${code ?? "(none found)"}\n--- stats ---\n`);
            process.stdout.write(
                `stop: ${result.stopReason}, prompt ${result.promptTokens} tokens, generated ${result.generatedTokens} tokens, ` +
                    `first token ${result.ttftMs.toFixed(0)} ms, total ${result.genMs.toFixed(0)} ms (${tokPerS.toFixed(0)} tok/s)\n` +
                    `${descriptor.describe(meta)}, seed ${seed}\n`
            );
        } finally {
            await backend.close();
        }
    });
}

/** The answer's code as the judge would see it (loaded lazily, like the rest of the command's modules). */
async function extract(text: string, functionName: string | undefined): Promise<string | null> {
    const { extractCode } = await import("../../extract/extractCode.js");
    return extractCode(text, functionName);
}
