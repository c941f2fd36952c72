import type { ChatMessage } from "../vocabulary.js";
import { languageInfo, parseLanguage, questionFor, type Language } from "../languages/languages.js";
import type { Template } from "../templates/types.js";
import { EddyError } from "../util/errors.js";

/**
 * EvaLOOP's translation loop (SPEC §7, paper 002 §6) over a chain of languages L0 → L1 → … → Lm:
 * step 1 answers the question in L0; every later step asks the model to translate its own last
 * passing code into the chain's next language (after Lm comes L1 again). Loop k is the steps
 * 2 + (k−1)m … 1 + km: it is sustained when every one of its translations passes. Similarity is
 * not measured: s = 1. A stored step's `loop` column holds its step number.
 */

/** `--translate python,javascript,ruby,python`: at least two languages, each known. */
export function parseChain(value: unknown): Language[] {
    const parts = (Array.isArray(value) ? value : String(value).split(",")).map((s) => String(s).trim()).filter(Boolean);
    if (parts.length < 2) throw new EddyError(`--translate needs at least two languages, comma-separated (got '${String(value)}')`);
    return parts.map(parseLanguage);
}

/** The language of step `step` (1-based). */
export function stepLanguage(chain: readonly Language[], step: number): Language {
    if (step <= 1) return chain[0]!;
    const m = chain.length - 1;
    return chain[((step - 2) % m) + 1]!;
}

/** Steps of N full loops: the first answer, then m translations per loop. */
export function stepsFor(chain: readonly Language[], maxLoops: number): number {
    return 1 + maxLoops * (chain.length - 1);
}

/** l: full loops sustained, from the number of consecutive passing steps from the first. */
export function sustainedLoops(passedSteps: number, chain: readonly Language[]): number {
    return passedSteps <= 0 ? 0 : Math.floor((passedSteps - 1) / (chain.length - 1));
}

/** What a task of a translation loop does next, from its stored steps. */
export type TranslationNext = { kind: "code"; loop: number; language: Language; question: string; from?: Language; code?: string } | { kind: "done" };

export function nextTranslation(
    t: Template,
    firstQuestion: string,
    steps: readonly { loop: number; category: string; code: string | null }[],
    chain: readonly Language[],
    maxLoops: number
): TranslationNext {
    const last = steps[steps.length - 1];
    if (!last) return { kind: "code", loop: 1, language: chain[0]!, question: questionFor(firstQuestion, t, chain[0]!) };
    if (last.category !== "passed" || last.loop >= stepsFor(chain, maxLoops)) return { kind: "done" };
    const from = stepLanguage(chain, last.loop);
    const to = stepLanguage(chain, last.loop + 1);
    return { kind: "code", loop: last.loop + 1, language: to, question: translationPrompt(t, last.code ?? "", from, to), from, code: last.code ?? "" };
}

/** The request to translate passing code into another language (the loop's next step). */
export function translationPrompt(t: Template, code: string, from: Language, to: Language): string {
    const a = languageInfo(from);
    const b = languageInfo(to);
    return (
        `Translate the following ${a.display} code into ${b.display}. Keep the function name \`${t.function}\`, its ${t.arity} parameter(s) and what it returns. ` +
        (b.types ? b.types + " " : "") +
        `Answer with the ${b.display} code in a single code block.\n` +
        "```" + a.fences[0] + "\n" + code.trimEnd() + "\n```"
    );
}

/** Translation requests go to the model as they are: the wrapper's system prompt names one language. */
export function translationMessages(prompt: string): ChatMessage[] {
    return [{ role: "user", content: prompt }];
}
