/**
 * The answer languages are one registry (src/languages): languages.json lists them, one line each, and
 * each has a folder of its own. Nothing outside src/languages decides by a language's name, and a new
 * language is one folder and one line. (The judge's Python holds the same wall on its side:
 * test/judge/python/test_registry.py.)
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_LANGUAGE, LANGUAGES, languageInfo, readRegistry, REGISTRY_DIR } from "../../src/languages/languages.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SRC = readdirSync(path.join(ROOT, "src"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => `src/${f.split(path.sep).join("/")}`)
    .map((file) => ({ file, text: readFileSync(path.join(ROOT, file), "utf8") }));
const OUTSIDE = SRC.filter((s) => !s.file.startsWith("src/languages/"));

describe("the answer-language registry", () => {
    it("no file outside src/languages decides by a language's name: it asks the registry (DEFAULT_LANGUAGE, isJudgeLanguage, languageInfo)", () => {
        expect(OUTSIDE.length).toBeGreaterThan(100);
        expect(OUTSIDE.flatMap(({ file, text }) => text.split("\n").flatMap((line, i) => (namesLanguage(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])))).toEqual([]);
    });

    it("the language-name scan catches each form of the check it forbids, for every language of the registry", () => {
        // The names come from the registry, not from this test: a new language is scanned for too.
        expect(LANGUAGES.length).toBeGreaterThanOrEqual(4);
        for (const lang of LANGUAGES) {
            const caught = [
                `if (language !== "${lang}") return fromForeignBlocks(blocks, language, functionName);`,
                `const key = \`\${v}\${'${lang}' === language ? "" : language}\`;`,
                `    case "${lang}":`,
                `const language = req.language ?? "${lang}";`,
                `export function judgeRuntime(language: Language = "${lang}"): Promise<JudgeRuntime> {`,
                `    language: typeof m?.config?.language === "string" ? m.config.language : "${lang}",`,
                `return new ReferenceBackend(parts.solutions, [], "${lang}");`,
                `where.push("COALESCE(json_extract(r.config_json, '$.language'), '${lang}') = ?");`,
                `const info = { language: "${lang}", fences: [] };`,
                `if (["${lang}", "${LANGUAGES.find((l) => l !== lang)!}"].includes(language)) return;`,
                `.option("--language <lang>", "the answer's language: ${LANGUAGES.join(", ")}")`,
                `import { harness } from "../languages/${lang}/harness.js";`
            ];
            expect(caught.filter((l) => !namesLanguage(l))).toEqual([]);
        }
        // Naming a language in prose, an example or a comment is not deciding by it; nor is the judge's
        // Python (its interpreter, its version key) or a fence tag the extractor gives Python's bracket blocks.
        const fine = [
            `// the default language ("python") stays out of a run's identity`,
            ` * in another language ("javascript") the harness relays`,
            `.option("--translate <chain>", "a comma list of languages (e.g. python,javascript,ruby,python)")`,
            `export const PYTHON_KEY = "python";`,
            `if (k !== PYTHON_KEY) out[k] = v;`,
            `blocks.push({ lang: "python", code: body.join("\\n") });`,
            `const language = req.language ?? DEFAULT_LANGUAGE;`,
            `const pythonPath = pythonCommand(opts.python);`,
            `    return path.join(packageRoot(), "src", "judge", "python");`
        ];
        expect(fine.filter(namesLanguage)).toEqual([]);
    });

    it("lists each language once, and every folder of src/languages is one of them", () => {
        const list = JSON.parse(readFileSync(path.join(REGISTRY_DIR, "languages.json"), "utf8")) as { default: string; languages: string[] };
        const folders = readdirSync(REGISTRY_DIR).filter((f) => statSync(path.join(REGISTRY_DIR, f)).isDirectory());
        expect([...folders].sort()).toEqual([...list.languages].sort());
        expect([...LANGUAGES]).toEqual(list.languages);
        expect(DEFAULT_LANGUAGE).toBe(list.default);
        // One language is the judge's own (no runtime, no harness); each other one has its runtime and harness.
        expect(LANGUAGES.filter((l) => languageInfo(l).runtime === null)).toHaveLength(1);
        for (const l of LANGUAGES) {
            const rt = languageInfo(l).runtime;
            expect(readdirSync(path.join(REGISTRY_DIR, l)).sort(), l).toEqual(rt === null ? ["language.json"] : [`harness.${rt.ext}`, "language.json"]);
        }
    });

    describe("a new language is one folder and one line", () => {
        const scratch = mkdtempSync(path.join(tmpdir(), "eddy-registry-"));
        afterAll(() => rmSync(scratch, { recursive: true, force: true }));
        const copy = (name: string): string => {
            const dir = path.join(scratch, name);
            cpSync(REGISTRY_DIR, dir, { recursive: true, filter: (f) => !f.endsWith(".ts") });
            return dir;
        };
        const lua = {
            display: "Lua",
            aliases: [],
            fences: ["lua"],
            parameter: "{name}",
            declare: "function {function}({parameters})",
            types: "Python's list is a table.",
            excluded: {},
            runtime: { binary: "lua", package: "lua5.4", version: ["-v"], ext: "lua", flags: [], vmMb: 64, binds: [], resourceWords: ["not enough memory"] },
            reference: { bindings: "json", answer: "{solution}\n\nfunction {function}({parameters})\n  return solution({arguments})\nend\n" }
        };
        const addLua = (dir: string, files: Record<string, string>, line = true): void => {
            mkdirSync(path.join(dir, "lua"));
            for (const [f, text] of Object.entries(files)) writeFileSync(path.join(dir, "lua", f), text);
            if (line) {
                const list = JSON.parse(readFileSync(path.join(dir, "languages.json"), "utf8")) as { languages: string[] };
                writeFileSync(path.join(dir, "languages.json"), JSON.stringify({ ...list, languages: [...list.languages, "lua"] }, null, 4));
            }
        };

        it("is read from its folder once languages.json names it", () => {
            const dir = copy("added");
            addLua(dir, { "language.json": JSON.stringify(lua), "harness.lua": "-- reads the calls, writes the answers" });
            const r = readRegistry(dir);
            expect(r.languages.map((l) => l.name)).toEqual([...LANGUAGES, "lua"]);
            expect(r.languages.at(-1)!.runtime!.binary).toBe("lua");
        });

        it("is refused, in one line, without its harness, with a runtime but no reference, or under a name another language has", () => {
            const noHarness = copy("no-harness");
            addLua(noHarness, { "language.json": JSON.stringify(lua) });
            expect(() => readRegistry(noHarness)).toThrow(/^eddy's language registry: lua has no harness\.lua$/);
            const noReference = copy("no-reference");
            addLua(noReference, { "language.json": JSON.stringify({ ...lua, reference: null }), "harness.lua": "" });
            expect(() => readRegistry(noReference)).toThrow(/a runtime and a reference go together/);
            const twice = copy("twice");
            addLua(twice, { "language.json": JSON.stringify({ ...lua, aliases: ["rb"] }), "harness.lua": "" });
            expect(() => readRegistry(twice)).toThrow(/'rb' names two languages/);
            const typo = copy("typo");
            addLua(typo, { "language.json": JSON.stringify({ ...lua, runtime: { ...lua.runtime, vmMB: 64 } }), "harness.lua": "" });
            expect(() => readRegistry(typo)).toThrow(/lua\/language\.json: runtime/);
        });
    });
});

const NAME = `(?:${LANGUAGES.join("|")})`;
const LITERAL = String.raw`["'\`]${NAME}["'\`]`;
const FORMS: RegExp[] = [
    // compared: === "ruby", "php" !== x
    new RegExp(String.raw`[!=]==?\s*${LITERAL}|${LITERAL}\s*[!=]==?`),
    // switched on
    new RegExp(String.raw`\bcase\s+${LITERAL}\s*:`),
    // a default: ?? "python", a ternary's fallback, a trailing argument (a call's or SQL's COALESCE;
    // not a path's last folder: the judge's own is src/judge/python)
    new RegExp(String.raw`\?\?\s*${LITERAL}`),
    new RegExp(String.raw`\?[^?:]*:\s*${LITERAL}`),
    new RegExp(String.raw`^(?!.*\bpath\.(?:join|resolve)\().*,\s*${LITERAL}\s*\)`),
    // picked: language = "ruby", language: Language = "python", { language: "php" }
    new RegExp(String.raw`\blanguage\??\s*(?::\s*[\w.]+\s*)?[:=]\s*${LITERAL}`),
    // a list of them: ["python", "ruby"].includes(…)
    new RegExp(String.raw`\[\s*${LITERAL}\s*,\s*${LITERAL}`),
    // a language's folder reached from outside
    new RegExp(String.raw`(?:from\s+|import\()["'][^"']*\/languages\/${NAME}\/`)
];

/** A line that decides by a language's name, or copies the registry's list (every name on one line). */
function namesLanguage(line: string): boolean {
    if (/^\s*(?:\/\/|\*|\/\*\*)/.test(line)) return false;
    return FORMS.some((re) => re.test(line)) || LANGUAGES.every((l) => new RegExp(String.raw`\b${l}\b`).test(line));
}
