import type { Backend, BackendMetadata, GenerationRequest, GenerationResult } from "../types.js";
import type { Template } from "../../templates/types.js";
import type { ParamValue } from "../../vocabulary.js";
import { DEFAULT_LANGUAGE, languageInfo, type Language } from "../../languages/languages.js";

/** What the reference backend needs from the judge: the model solution rendered as answer source. */
export interface SolutionSource {
    answerSource(t: Template, bindings: Record<string, ParamValue>, which?: string, language?: Language): Promise<string>;
}

/**
 * Answers every question with the oracle's model solution, in a ```python fence, as a model
 * would. A self-check of the whole pipeline: a study on it must score AS = 1 on every template.
 * In another language it answers with the oracle's hand-written translation
 * (oracles/translations/<id>.<ext>); a template without one gets an error for its requests.
 */
export class ReferenceBackend implements Backend {
    /** Backend name recorded with runs. */
    readonly name = "reference";
    private readonly templates: Map<string, Template>;

    constructor(
        private readonly judge: SolutionSource,
        templates: Template[],
        private readonly language: Language = DEFAULT_LANGUAGE
    ) {
        this.templates = new Map(templates.map((t) => [t.id, t]));
    }

    /** Nothing about a model: the answers are the oracle's. */
    async metadata(): Promise<BackendMetadata> {
        return { backend: "reference", promptFormat: "none", mode: "reproducible" };
    }

    /** One answer per request, in request order. */
    async *generate(requests: AsyncIterable<GenerationRequest> | Iterable<GenerationRequest>): AsyncIterable<GenerationResult> {
        for await (const req of requests) {
            const start = performance.now();
            const base = { id: req.id, promptTokens: 0, ttftMs: 0 };
            const t = req.task && this.templates.get(req.task.templateId);
            if (!req.task || !t) {
                yield { ...base, text: "", stopReason: "error", generatedTokens: 0, genMs: 0, error: `reference backend: no template for request ${req.id}` };
                continue;
            }
            const bindings = Object.fromEntries(t.params.map((p, i) => [p.name, req.task!.params[i]!]));
            try {
                const language = req.task.language ?? this.language;
                const src = await this.judge.answerSource(t, bindings, "solution", language);
                const text = "```" + languageInfo(language).fences[0] + "\n" + src.trimEnd() + "\n```\n";
                yield { ...base, text, stopReason: "eos", generatedTokens: 0, genMs: performance.now() - start };
            } catch (err) {
                yield { ...base, text: "", stopReason: "error", generatedTokens: 0, genMs: 0, error: `reference backend: ${err instanceof Error ? err.message : String(err)}` };
            }
        }
    }

    /** Nothing to release. */
    async close(): Promise<void> {}
}
