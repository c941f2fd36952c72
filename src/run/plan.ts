import { selectTemplates } from "../templates/loadTemplates.js";
import { sampleInstances } from "../templates/instances.js";
import { loadWrapper, renderMessages, type PromptWrapper } from "../prompts/PromptWrapper.js";
import type { TemplateLibrary } from "../templates/library.js";
import type { Template } from "../templates/types.js";
import type { StoredInstance } from "../store/types.js";
import { backendDescriptor , type ModelSource } from "../inference/backends.js";
import type { StudyConfig } from "./config.js";
import { DEFAULT_LANGUAGE, questionFor, unsupportedReason, wrapperFor } from "../languages/languages.js";
import { EddyError } from "../util/errors.js";

/** What a study will ask, before anything runs. */
export interface StudyPlan {
    templates: Template[];
    /** Instances per template id. */
    instances: Map<string, StoredInstance[]>;
    wrappers: { id: string; wrapper: PromptWrapper }[];
    /** Model labels (file stems, or the backend name for reference/replay). */
    models: ModelSource[];
    /** Queries in all: models × templates × M × temperatures × wrappers × R. */
    queries: number;
    /** Rough prompt tokens over all queries (characters ÷ 4; no tokenizer is loaded for a plan). */
    promptTokensEstimate: number;
    /** Upper bound on generated tokens: queries × max tokens. */
    maxGeneratedTokens: number;
    /** Selected templates left out because the run's language cannot ask them faithfully (why, one line each). */
    skipped: string[];
    /** One line naming the templates whose neighbourhood holds fewer than M instances (all of them are used), or null. */
    small: string | null;
}

/** The note a plan and `templates validate` give, once, for neighbourhoods smaller than M. */
export function smallNeighbourhoodNote(counts: { id: string; n: number }[], m: number): string | null {
    const small = counts.filter((c) => c.n < m);
    if (small.length === 0) return null;
    const shown = small.slice(0, 6).map((c) => `${c.id} (${c.n})`).join(", ");
    return `${small.length} template(s) hold fewer than ${m} instances, and all they hold are used: ${shown}${small.length > 6 ? ", …" : ""}`;
}

/** Resolve templates, sample instances (or take the stored ones) and load wrappers. */
export function planStudy(c: StudyConfig, library: TemplateLibrary, stored?: (templateId: string) => StoredInstance[]): StudyPlan {
    const language = c.language ?? DEFAULT_LANGUAGE;
    const chosen = selectTemplates(library, c.templates);
    // A template that cannot be asked faithfully in the language is left out (said in `skipped`);
    // when none is left, the run cannot start.
    const skipped = chosen.map((t) => unsupportedReason(t, language)).filter((r): r is string => r !== null);
    const templates = chosen.filter((t) => unsupportedReason(t, language) === null);
    if (templates.length === 0) throw new EddyError(skipped[0] ?? "no template selected");
    const instances = new Map<string, StoredInstance[]>();
    for (const t of templates) {
        const have = stored?.(t.id) ?? [];
        instances.set(
            t.id,
            have.length >= c.instances
                ? have.slice(0, c.instances)
                : sampleInstances(t, c.instances, c.seed).map((i) => ({ templateId: t.id, index: i.index, params: i.params, bindings: i.bindings, question: questionFor(i.question, t, language) }))
        );
    }
    const wrappers = c.wrappers.map((w) => loadWrapper(w)).map((wrapper) => ({ id: wrapper.id, wrapper: wrapperFor(wrapper, language) }));
    // Labels: a model file's stem (with its folder where stems collide), the replay file's, or the backend's name.
    const models = backendDescriptor(c.backend).modelSources(c);
    let queries = 0;
    let promptChars = 0;
    for (const t of templates)
        for (const inst of instances.get(t.id)!)
            for (const w of wrappers) {
                const chars = renderMessages(w.wrapper, inst.question).reduce((n, m) => n + m.content.length, 0);
                const k = models.length * c.temperatures.length * c.rounds;
                queries += k;
                promptChars += chars * k;
            }
    const small = smallNeighbourhoodNote(templates.map((t) => ({ id: t.id, n: instances.get(t.id)!.length })), c.instances);
    return { templates, instances, wrappers, models, queries, promptTokensEstimate: Math.ceil(promptChars / 4), maxGeneratedTokens: queries * c.maxTokens, skipped, small };
}

