import type { Command } from "commander";
import type { GpuChoice } from "../../inference/llama/types.js";
import type { ChatMessage, GenerationRequest } from "../../inference/types.js";
import { DEFAULT_WRAPPER_ID, loadWrapper, renderMessages } from "../../prompts/PromptWrapper.js";
import { EddyError } from "../../util/errors.js";
import { deriveSeed } from "../../util/seeds.js";

interface GenerateOptions {
    model: string;
    prompt?: string;
    template?: string;
    instance?: string;
    wrapper: string;
    temperature: string;
    topK?: string;
    topP?: string;
    minP?: string;
    repeatPenalty?: string;
    seed: string;
    maxTokens: string;
    threads?: string;
    gpu: string;
    gpuLayers?: string;
    contextSize?: string;
    promptFormat: string;
    allowDownload?: boolean;
    json?: boolean;
}

const GPU_CHOICES = ["auto", "cuda", "metal", "vulkan", "cpu"];

/** `eddy generate`: one quick generation, to check a model works before a study. */
export function registerGenerateCommand(program: Command): void {
    program
        .command("generate")
        .description("Generate one answer with a model: the response, the extracted code and the stats")
        .requiredOption("--model <file>", "GGUF model file (an hf: URI only with --allow-download)")
        .option("--prompt <text>", "the question to ask")
        .option("--template <id>", "ask a template's question instead (with --instance)")
        .option("--instance <i>", "instance index in the template's neighbourhood (seeded by --seed)")
        .option("--wrapper <id|file>", "prompt wrapper: system text and question framing", DEFAULT_WRAPPER_ID)
        .option("--temperature <t>", "sampling temperature; 0 = greedy", "0")
        .option("--top-k <k>", "top-k sampling")
        .option("--top-p <p>", "top-p (nucleus) sampling")
        .option("--min-p <p>", "min-p sampling")
        .option("--repeat-penalty <x>", "repeat penalty (off unless given)")
        .option("--seed <s>", "run seed: picks the instance and derives the sampling seed", "1")
        .option("--max-tokens <n>", "most tokens to generate", "512")
        .option("--threads <n>", "CPU threads (default: auto-tuned by a short measurement)")
        .option("--gpu <kind>", `GPU backend: ${GPU_CHOICES.join("|")}`, "auto")
        .option("--gpu-layers <n>", "layers to offload to the GPU (number or max)")
        .option("--context-size <n>", "context size in tokens (default: min(trained, 4096))")
        .option("--prompt-format <fmt>", "auto | gguf-chat-template | plain-completion | a node-llama-cpp chat wrapper name", "auto")
        .option("--allow-download", "allow downloading an hf: model URI into models/")
        .option("--json", "print JSON to stdout")
        .addHelpText(
            "after",
            "\nExamples:\n  $ eddy generate --model models/eddy-tiny-f32.gguf --prompt 'Write a function add(a, b).'\n  $ eddy generate --model model.gguf --template sum_index_range --instance 3 --temperature 0.8 --seed 7 --json"
        )
        .action(async (opts: GenerateOptions) => {
            if (!GPU_CHOICES.includes(opts.gpu)) throw new EddyError(`--gpu must be one of ${GPU_CHOICES.join(", ")}, got '${opts.gpu}'`);
            if ((opts.prompt === undefined) === (opts.template === undefined)) throw new EddyError("give either --prompt <text> or --template <id> --instance <i>");
            const runSeed = int(opts.seed, "--seed", 0);
            const wrapper = loadWrapper(opts.wrapper);
            let messages: ChatMessage[];
            let functionName: string | undefined;
            let task: GenerationRequest["task"];
            let seed = runSeed;
            if (opts.template !== undefined) {
                if (opts.instance === undefined) throw new EddyError("--template needs --instance <i>");
                const index = int(opts.instance, "--instance", 0);
                const { loadTemplate } = await import("../../templates/loadTemplates.js");
                const { sampleInstances } = await import("../../templates/instances.js");
                const t = loadTemplate(opts.template);
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

            const { createLlamaBackend } = await import("../../inference/llama/LlamaBackend.js");
            const backend = await createLlamaBackend({
                modelPath: opts.model,
                gpu: opts.gpu as GpuChoice,
                sequences: 1,
                promptFormat: opts.promptFormat,
                ...(opts.threads !== undefined ? { threads: int(opts.threads, "--threads", 1) } : {}),
                ...(opts.gpuLayers !== undefined ? { gpuLayers: opts.gpuLayers === "max" ? "max" : int(opts.gpuLayers, "--gpu-layers", 0) } : {}),
                ...(opts.contextSize !== undefined ? { contextSize: int(opts.contextSize, "--context-size", 16) } : {}),
                ...(opts.allowDownload ? { allowDownload: true } : {})
            });
            try {
                const request: GenerationRequest = {
                    id: "generate",
                    messages,
                    decoding: {
                        temperature: num(opts.temperature, "--temperature"),
                        ...(opts.topK !== undefined ? { topK: int(opts.topK, "--top-k", 1) } : {}),
                        ...(opts.topP !== undefined ? { topP: num(opts.topP, "--top-p") } : {}),
                        ...(opts.minP !== undefined ? { minP: num(opts.minP, "--min-p") } : {}),
                        ...(opts.repeatPenalty !== undefined ? { repeatPenalty: num(opts.repeatPenalty, "--repeat-penalty") } : {})
                    },
                    seed,
                    maxTokens: int(opts.maxTokens, "--max-tokens", 1),
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
                        `model: ${meta.model?.architecture} ${meta.model?.quantization}, ${meta.gpu}, ${meta.threads} threads, prompt format ${meta.promptFormat}, seed ${seed}\n`
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

function int(v: string, name: string, min: number): number {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new EddyError(`${name} must be an integer >= ${min}, got '${v}'`);
    return n;
}

function num(v: string, name: string): number {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new EddyError(`${name} must be a non-negative number, got '${v}'`);
    return n;
}
