import type { PromptWrapper } from "../prompts/PromptWrapper.js";

/**
 * Semantic-preserving mutations of a prompt wrapper (SPEC §8): each changes how the instruction
 * is put, never what it asks, and never touches the question (`{{question}}` stays whole).
 * Operations are grouped by kind; a variant applies at most one operation of each kind, in a
 * fixed kind order, so a variant is described by its list of operation names.
 */
export interface MutationOp {
    /** Unique name, recorded with the variant. */
    name: string;
    kind: "paraphrase" | "casing" | "delimiters" | "output-format" | "order";
    apply(w: PromptWrapper): PromptWrapper;
}

const Q = "{{question}}";

/** Word- and phrase-level paraphrases (whole words, case kept at the start). */
const PARAPHRASES: [RegExp, string][][] = [
    [
        [/\bYou are an expert Python programmer\b/g, "You are a skilled Python developer"],
        [/\bAnswer with\b/g, "Reply with"],
        [/\bDo not write\b/g, "Don't include"],
        [/\bdefines the requested function\b/g, "defines the function asked for"]
    ],
    [
        [/\bYou are an expert Python programmer\b/g, "Act as an experienced Python programmer"],
        [/\bAnswer with\b/g, "Respond with"],
        [/\bDo not write\b/g, "Leave out"],
        [/\bexplanations\b/g, "explanatory text"]
    ],
    [
        [/\ba single\b/g, "exactly one"],
        [/\bDo not write comments, explanations or examples\b/g, "Write no comments, no explanations and no examples"]
    ]
];

const OUTPUT_FORMATS = [
    "Put the whole answer in one ```python fenced code block.",
    "Output format: a single fenced Python code block and nothing else."
];

function mapText(w: PromptWrapper, f: (s: string) => string): PromptWrapper {
    // The placeholder is kept out of every text transformation.
    return { ...w, system: f(w.system), user: w.user.split(Q).map(f).join(Q) };
}

function withDelimiters(w: PromptWrapper, open: string, close: string): PromptWrapper {
    return { ...w, user: w.user.split(Q).join(`${open}${Q}${close}`) };
}

/** The built-in operations, grouped by kind. */
export const OPERATIONS: MutationOp[] = [
    ...PARAPHRASES.map((rules, i): MutationOp => ({
        name: `paraphrase-${i + 1}`,
        kind: "paraphrase",
        apply: (w) => mapText(w, (s) => rules.reduce((t, [re, to]) => t.replace(re, to), s))
    })),
    { name: "upper-case", kind: "casing", apply: (w) => mapText(w, (s) => s.toUpperCase()) },
    { name: "lower-case", kind: "casing", apply: (w) => mapText(w, (s) => s.toLowerCase()) },
    { name: "tags-lower", kind: "delimiters", apply: (w) => withDelimiters(w, "<question>\n", "\n</question>") },
    { name: "tags-upper", kind: "delimiters", apply: (w) => withDelimiters(w, "<QUESTION>\n", "\n</QUESTION>") },
    { name: "triple-quotes", kind: "delimiters", apply: (w) => withDelimiters(w, 'Task:\n"""\n', '\n"""') },
    { name: "markdown-heading", kind: "delimiters", apply: (w) => withDelimiters(w, "### Task\n", "\n") },
    ...OUTPUT_FORMATS.map((sentence, i): MutationOp => ({
        name: `output-format-${i + 1}`,
        kind: "output-format",
        apply: (w) => ({ ...w, system: replaceOutputSentence(w.system, sentence) })
    })),
    {
        name: "instructions-after-question",
        kind: "order",
        apply: (w) => (w.system.trim() === "" ? w : { ...w, system: "", user: `${w.user}\n\n${w.system}` })
    },
    {
        name: "instructions-before-question",
        kind: "order",
        apply: (w) => (w.system.trim() === "" ? w : { ...w, system: "", user: `${w.system}\n\n${w.user}` })
    },
    {
        name: "numbered-list",
        kind: "order",
        apply: (w) => ({ ...w, system: sentences(w.system).map((s, i) => `${i + 1}. ${s}`).join("\n") })
    }
];

const KIND_ORDER: MutationOp["kind"][] = ["paraphrase", "output-format", "casing", "order", "delimiters"];

function sentences(text: string): string[] {
    return text.replace(/\s+/g, " ").trim().split(/(?<=[.!?])\s+/).filter((s) => s !== "");
}

/** Swap the sentence that states the answer's form (mentions "code block"/"block") for another wording, or add one. */
function replaceOutputSentence(system: string, sentence: string): string {
    const ss = sentences(system);
    const i = ss.findIndex((s) => /code block|block/i.test(s));
    if (i >= 0) ss[i] = sentence;
    else ss.push(sentence);
    return ss.join(" ");
}

/** One candidate variant: the operations and the resulting wrapper. */
export interface Candidate {
    operations: string[];
    wrapper: PromptWrapper;
}

/**
 * Candidate variants of `original`, deterministic and in a fixed order: first every single
 * operation, then pairs and triples of operations of different kinds; duplicates (same
 * system and user text) and no-ops are dropped. At most `limit` candidates.
 */
export function candidateVariants(original: PromptWrapper, limit: number): Candidate[] {
    const byKind = KIND_ORDER.map((k) => OPERATIONS.filter((op) => op.kind === k));
    const combos: MutationOp[][] = [];
    const pick = (kindIndex: number, chosen: MutationOp[], size: number): void => {
        if (chosen.length === size) {
            combos.push(chosen);
            return;
        }
        for (let k = kindIndex; k < byKind.length; k++) for (const op of byKind[k]!) pick(k + 1, [...chosen, op], size);
    };
    for (const size of [1, 2, 3]) pick(0, [], size);
    const seen = new Set([key(original)]);
    const out: Candidate[] = [];
    for (const ops of combos) {
        if (out.length >= limit) break;
        const wrapper = ops.reduce((w, op) => op.apply(w), original);
        const k = key(wrapper);
        if (seen.has(k)) continue;
        seen.add(k);
        out.push({ operations: ops.map((o) => o.name), wrapper });
    }
    return out;
}

const key = (w: PromptWrapper): string => JSON.stringify([w.system, w.user]);

/** The instruction text of a wrapper as embedded for the similarity check: system and user text, question left out. */
export function instructionText(w: PromptWrapper): string {
    return [w.system, w.user.split(Q).join(" ")].map((s) => s.trim()).filter(Boolean).join("\n");
}
