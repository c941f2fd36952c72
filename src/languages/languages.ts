import { EddyError } from "../util/errors.js";
import type { Template } from "../templates/types.js";
import type { PromptWrapper } from "../prompts/PromptWrapper.js";

/**
 * The languages eddy asks and judges in. Python answers run in the judge's Python sandbox as
 * before; every other language runs its answer under a small harness of its own
 * (src/judge/python/eddy_judge/harness/) in the same sandbox, called with the same argument values
 * and compared on the trusted side by the template's comparator (src/judge/python/eddy_judge/wire.py).
 */
export const LANGUAGES = ["python", "javascript", "ruby", "php"] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = "python";

export interface LanguageInfo {
    /** As a question names it. */
    display: string;
    /** Fence info strings (lower case) that mark an answer block in this language. */
    fences: string[];
    /** The runtime's command (another language) and its Debian package; null for Python (the judge's own). */
    runtime: string | null;
    package: string | null;
    /** How the answer's function is declared, for the question. */
    declare: (fn: string, params: string[]) => string;
    /** Python's types as this language's answer receives and returns them. */
    types: string;
    /** Templates this language cannot be asked faithfully, and why. */
    excluded: Record<string, string>;
    /** A rule over the template's declared types (a type the language does not have), or null when it can be asked. */
    cannot?: (t: Template) => string | null;
}

// Measured on their edge tuples: answers up to 2^57 and 2^59.
const NEAR_2_63 = "its answers reach 2^59, next to PHP's 64-bit int limit, beyond which PHP silently turns integers into floats";
const BEYOND_2_53 = "its answers exceed 2^53, beyond JavaScript's exact Numbers (only a BigInt is faithful, and the question does not ask for one)";

export const LANGUAGE_INFO: Record<Language, LanguageInfo> = {
    python: { display: "Python", fences: ["python", "py", "python3"], runtime: null, package: null, declare: (fn, p) => `def ${fn}(${p.join(", ")})`, types: "", excluded: {} },
    javascript: {
        display: "JavaScript",
        fences: ["javascript", "js", "node", "nodejs", "mjs"],
        runtime: "node",
        package: "nodejs",
        declare: (fn, p) => `function ${fn}(${p.join(", ")})`,
        types:
            "Python's int and float are JavaScript Numbers, str is a string, list and tuple are Arrays, set is a Set, dict is a Map, True/False are true/false and None is null.",
        excluded: { math_grid_paths_avoiding: BEYOND_2_53, math_step_compositions: BEYOND_2_53 }
    },
    php: {
        display: "PHP",
        fences: ["php"],
        runtime: "php",
        package: "php-cli",
        declare: (fn, p) => `function ${fn}(${p.map((x) => "$" + x).join(", ")})`,
        types: "Python's int is an int, float a float, str a string, list and tuple are arrays (a list), dict is an array with keys, True/False are true/false and None is null.",
        excluded: { math_grid_paths_avoiding: NEAR_2_63, math_step_compositions: NEAR_2_63 },
        // PHP has no set: a set (argument or answer) cannot be passed or returned faithfully.
        cannot: (t) => (t.group === "set" || t.returns === "set" || t.returns === "frozenset" ? "PHP has no set type" : null)
    },
    ruby: {
        display: "Ruby",
        fences: ["ruby", "rb"],
        runtime: "ruby",
        package: "ruby",
        declare: (fn, p) => `def ${fn}(${p.join(", ")})`,
        types: "Python's int is an Integer, float a Float, str a String, list and tuple are Arrays, set is a Set, dict is a Hash, True/False are true/false and None is nil.",
        excluded: {}
    }
};

/** `--language` read from a flag or a config file: one of LANGUAGES, else a one-line error. */
export function parseLanguage(value: unknown): Language {
    const v = String(value).trim().toLowerCase();
    const alias: Record<string, Language> = { js: "javascript", node: "javascript", py: "python", rb: "ruby" };
    const lang = alias[v] ?? v;
    if (!(LANGUAGES as readonly string[]).includes(lang)) throw new EddyError(`unknown language '${String(value)}' (use ${LANGUAGES.join(", ")})`);
    return lang as Language;
}

/** Why template `t` cannot be asked in `lang`, or null when it can. */
export function unsupportedReason(t: Template, lang: Language): string | null {
    const info = LANGUAGE_INFO[lang];
    const why = info.excluded[t.id] ?? info.cannot?.(t) ?? undefined;
    return why === undefined ? null : `template ${t.id} is not asked in ${LANGUAGE_INFO[lang].display}: ${why}`;
}

/** The parameter names the question gives the function (`name(a, b)` in backticks), else a, b, c… */
function paramNames(question: string, t: Template): string[] {
    const m = new RegExp("`" + t.function + "\\(([^`)]*)\\)`").exec(question);
    const named = m ? m[1]!.split(",").map((s) => s.trim()).filter((s) => /^[A-Za-z_]\w*$/.test(s)) : [];
    return named.length === t.arity ? named : Array.from({ length: t.arity }, (_, i) => String.fromCharCode(97 + i));
}

/**
 * The question as asked in `lang`: "Python" becomes the language's name, and a paragraph gives
 * the function's signature in that language and how Python's types read there. Python's text is unchanged.
 */
export function questionFor(question: string, t: Template, lang: Language): string {
    if (lang === "python") return question;
    const info = LANGUAGE_INFO[lang];
    const sig = info.declare(t.function, paramNames(question, t));
    return (
        question.replace(/\bPython\b/g, info.display) +
        `\n\nAnswer in ${info.display}: define \`${sig}\` at the top level of plain ${info.display} code (no module system, no input or output). ${info.types}`
    );
}

/** A prompt wrapper speaking of `lang` where it speaks of Python (the default wrapper asks for "a single Python code block"). */
export function wrapperFor(w: PromptWrapper, lang: Language): PromptWrapper {
    if (lang === "python") return w;
    const name = LANGUAGE_INFO[lang].display;
    return { ...w, system: w.system.replace(/\bPython\b/g, name), user: w.user.replace(/\bPython\b/g, name) };
}
