import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { EddyError } from "../util/errors.js";
import { packageRoot } from "../util/paths.js";
import type { Template } from "../templates/types.js";
import type { PromptWrapper } from "../prompts/PromptWrapper.js";

/**
 * The languages eddy asks and judges in: a registry, read once from src/languages. `languages.json`
 * names them, one line each, and the default; each has a folder, src/languages/<name>/, holding its
 * `language.json` (how a question asks for it, its runtime, how a reference answer calls a translated
 * solution) and, for a language with a runtime, its harness (`harness.<ext>`), which runs the answer in
 * the judge's sandbox behind a relay (src/judge/python/eddy_sandbox/relay.py), called with the same
 * argument values and compared on the trusted side by the template's comparator. The judge's Python
 * reads the same files at its start-up (src/judge/python/eddy_judge/languages.py). A new language is
 * one folder and one line in languages.json; nothing outside this folder names a language
 * (test/languages/registry.test.ts).
 *
 * The one language without a runtime is the judge's own (Python): questions and prompt wrappers are
 * written in it, its answers run in the sandbox's own interpreter, and its references are the
 * oracle's own functions.
 */
export const REGISTRY_DIR = path.join(packageRoot(), "src", "languages");

declare const languageBrand: unique symbol;
/** A language of the registry (parseLanguage, LANGUAGES, DEFAULT_LANGUAGE): never a bare string. */
export type Language = string & { readonly [languageBrand]: true };

const runtimeSchema = z
    .object({
        /** The runtime's command and the Debian package that provides it. */
        binary: z.string().min(1),
        package: z.string().min(1),
        /** Arguments that make it print its version on one line (a study records it: src/queue/judgeRuntime.ts). */
        version: z.array(z.string()),
        /** The extension of the language's files: its harness, the answer, the oracles' translations. */
        ext: z.string().regex(/^[a-z0-9]+$/),
        /** Arguments before the harness file; {mb} is the answer's memory budget. */
        flags: z.array(z.string()),
        /** Address space the runtime needs on top of the answer's memory budget (MB; V8 reserves a lot). */
        vmMb: z.number().int().nonnegative(),
        /** Read-only paths the runtime reads at start-up besides /usr/lib, bound into the sandbox when present. */
        binds: z.array(z.string()),
        /** How the runtime says it ran out of memory or stack where its harness cannot (a resource verdict). */
        resourceWords: z.array(z.string()),
        note: z.string().optional()
    })
    .strict();

const languageSchema = z
    .object({
        /** As a question names it. */
        display: z.string().min(1),
        /** Other names `--language` accepts. */
        aliases: z.array(z.string().regex(/^[a-z0-9_]+$/)),
        /** Fence info strings (lower case) that mark an answer block in this language; the first is the one eddy writes. */
        fences: z.array(z.string().regex(/^[^A-Z\s]+$/)).min(1),
        /** One parameter as the language writes it ({name} in it). */
        parameter: z.string().includes("{name}"),
        /** How the answer's function is declared, for the question ({function} and {parameters} in it). */
        declare: z.string().includes("{function}").includes("{parameters}"),
        /** Python's types as this language's answer receives and returns them ("" for the judge's own). */
        types: z.string(),
        /** Templates this language cannot be asked faithfully, and why. */
        excluded: z.record(z.string(), z.string()),
        /** Templates it cannot be asked by their declared types: an argument group or a return type the language does not have. */
        cannot: z.object({ groups: z.array(z.string()), returns: z.array(z.string()), why: z.string().min(1) }).strict().optional(),
        /** Its runtime; null for the judge's own language. */
        runtime: runtimeSchema.nullable(),
        /** How a reference answer calls the oracle's translated `solution` (the judge renders it); null for the judge's own. */
        reference: z.object({ bindings: z.enum(["json", "named"]), answer: z.string().includes("{solution}") }).strict().nullable()
    })
    .strict();

type LanguageInfo = z.infer<typeof languageSchema> & { name: Language };

function readJson(file: string): unknown {
    try {
        return JSON.parse(readFileSync(file, "utf8"));
    } catch (err) {
        throw new EddyError(`eddy's language registry: cannot read ${file} (${err instanceof Error ? err.message : String(err)})`);
    }
}

function parsed<T>(schema: z.ZodType<T>, value: unknown, file: string): T {
    const r = schema.safeParse(value);
    if (!r.success) throw new EddyError(`eddy's language registry: ${file}: ${r.error.issues.map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`).join("; ")}`);
    return r.data;
}

/** The registry at `dir`, checked: what the judge's Python reads from the same files must agree. */
export function readRegistry(dir: string): { default: Language; languages: LanguageInfo[] } {
    const listFile = path.join(dir, "languages.json");
    const list = parsed(z.object({ default: z.string(), languages: z.array(z.string().regex(/^[a-z][a-z0-9_]*$/)).min(1) }).strict(), readJson(listFile), listFile);
    const languages = list.languages.map((name) => {
        const file = path.join(dir, name, "language.json");
        const info = { ...parsed(languageSchema, readJson(file), file), name: name as Language };
        if ((info.runtime === null) !== (info.reference === null)) throw new EddyError(`eddy's language registry: ${file}: a runtime and a reference go together (neither: the judge's own language)`);
        if (info.runtime && !readdirSync(path.join(dir, name)).includes(`harness.${info.runtime.ext}`)) throw new EddyError(`eddy's language registry: ${name} has no harness.${info.runtime.ext}`);
        return info;
    });
    const names = languages.flatMap((l) => [l.name, ...l.aliases]);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice !== undefined) throw new EddyError(`eddy's language registry: '${twice}' names two languages`);
    if (languages.filter((l) => l.runtime === null).length !== 1) throw new EddyError("eddy's language registry: exactly one language has no runtime (the judge's own)");
    if (!list.languages.includes(list.default)) throw new EddyError(`eddy's language registry: the default '${list.default}' is not one of its languages`);
    return { default: list.default as Language, languages };
}

const REGISTRY = readRegistry(REGISTRY_DIR);
const INFO = new Map(REGISTRY.languages.map((l) => [l.name, l]));
/** The judge's own language, in which questions and wrappers are written ("a Python function"). */
const WRITTEN_IN = new RegExp(String.raw`\b${REGISTRY.languages.find((l) => l.runtime === null)!.display}\b`, "g");

/** Every language, in the registry's order. */
export const LANGUAGES: readonly Language[] = REGISTRY.languages.map((l) => l.name);
/**
 * The language of a run or request that names none, and of every run stored before languages (a run's
 * identity leaves it out): changing it would relabel those.
 */
export const DEFAULT_LANGUAGE: Language = REGISTRY.default;

/** The language a stored run records (its config's `language`), or the default where it records none. */
export function recordedLanguage(language: unknown): string {
    return typeof language === "string" ? language : DEFAULT_LANGUAGE;
}

export function languageInfo(lang: Language): LanguageInfo {
    const info = INFO.get(lang);
    if (!info) throw new EddyError(`unknown language '${lang}'`);
    return info;
}

/** The judge's own language (no runtime of its own): questions are written in it, its answers run in the judge's Python. */
export function isJudgeLanguage(lang: Language): boolean {
    return languageInfo(lang).runtime === null;
}

/** The registry's files, in a fixed order: the judge reads them too, so they are part of its version (workerScript.ts judgeVersion). */
export function registryFiles(): string[] {
    return ["languages.json", ...LANGUAGES.flatMap((l) => readdirSync(path.join(REGISTRY_DIR, l)).sort().map((f) => `${l}/${f}`))];
}

/** `--language` read from a flag or a config file: one of LANGUAGES (or an alias of one), else a one-line error. */
export function parseLanguage(value: unknown): Language {
    const v = String(value).trim().toLowerCase();
    const lang = REGISTRY.languages.find((l) => l.name === v || l.aliases.includes(v));
    if (!lang) throw new EddyError(`unknown language '${String(value)}' (use ${LANGUAGES.join(", ")})`);
    return lang.name;
}

/** Why template `t` cannot be asked in `lang`, or null when it can. */
export function unsupportedReason(t: Template, lang: Language): string | null {
    const info = languageInfo(lang);
    const cannot = info.cannot && (info.cannot.groups.includes(t.group) || (t.returns !== undefined && info.cannot.returns.includes(t.returns))) ? info.cannot.why : undefined;
    const why = info.excluded[t.id] ?? cannot;
    return why === undefined ? null : `template ${t.id} is not asked in ${info.display}: ${why}`;
}

/** The parameter names the question gives the function (`name(a, b)` in backticks), else a, b, c… */
function paramNames(question: string, t: Template): string[] {
    const m = new RegExp("`" + t.function + "\\(([^`)]*)\\)`").exec(question);
    const named = m ? m[1]!.split(",").map((s) => s.trim()).filter((s) => /^[A-Za-z_]\w*$/.test(s)) : [];
    return named.length === t.arity ? named : Array.from({ length: t.arity }, (_, i) => String.fromCharCode(97 + i));
}

/** `fn`'s declaration in `lang`, with these parameter names. */
function declaration(info: LanguageInfo, fn: string, params: string[]): string {
    const parameters = params.map((p) => info.parameter.replaceAll("{name}", p)).join(", ");
    return info.declare.replace(/\{(function|parameters)\}/g, (_, k: string) => (k === "function" ? fn : parameters));
}

/**
 * The question as asked in `lang`: "Python" becomes the language's name, and a paragraph gives
 * the function's signature in that language and how Python's types read there. The judge's own
 * language's text is unchanged.
 */
export function questionFor(question: string, t: Template, lang: Language): string {
    if (isJudgeLanguage(lang)) return question;
    const info = languageInfo(lang);
    const sig = declaration(info, t.function, paramNames(question, t));
    return (
        question.replace(WRITTEN_IN, info.display) +
        `\n\nAnswer in ${info.display}: define \`${sig}\` at the top level of plain ${info.display} code (no module system, no input or output). ${info.types}`
    );
}

/** A prompt wrapper speaking of `lang` where it speaks of Python (the default wrapper asks for "a single Python code block"). */
export function wrapperFor(w: PromptWrapper, lang: Language): PromptWrapper {
    if (isJudgeLanguage(lang)) return w;
    const name = languageInfo(lang).display;
    return { ...w, system: w.system.replace(WRITTEN_IN, name), user: w.user.replace(WRITTEN_IN, name) };
}
