import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BACKEND_IDENTITY_SETTINGS, BACKEND_NAMES, BACKEND_OPERATIONAL_SETTINGS, BACKEND_OPTIONS } from "../src/inference/backends.js";

/** Walls of the code drawn in README "Layout", checked by reading the sources (no build, no process). */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const sources = (dir: string): { file: string; text: string }[] =>
    readdirSync(path.join(ROOT, dir), { recursive: true, encoding: "utf8" })
        .filter((f) => f.endsWith(".ts"))
        .map((f) => `${dir}/${f.split(path.sep).join("/")}`)
        .map((file) => ({ file, text: readFileSync(path.join(ROOT, file), "utf8") }));
const SRC = sources("src");
/** `file:line: text` of every line of `files` that matches `re`. */
const hits = (files: { file: string; text: string }[], re: RegExp): string[] => files.flatMap(({ file, text }) => text.split("\n").flatMap((line, i) => (re.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])));

describe("code structure", () => {
    it("one HTML page shell owns the document and its Content-Security-Policy", () => {
        expect([...new Set(hits(SRC, /Content-Security-Policy"|<!doctype/i).map((h) => h.split(":")[0]))]).toEqual(["src/report/page.ts"]);
    });

    it("no backend name is compared outside src/inference: callers ask the backend's descriptor", () => {
        const outside = SRC.filter((s) => !s.file.startsWith("src/inference/"));
        expect(outside.flatMap(({ file, text }) => text.split("\n").flatMap((line, i) => (comparesBackendName(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])))).toEqual([]);
    });

    it("the backend-name scan catches each form of the check it forbids", () => {
        const caught = [
            `if (config.backend === "llama") return;`,
            `const x = c.backend !== 'replay' ? a : b;`,
            `if ("reference" === run.backend) {}`,
            `    case "replay":`,
            `const sha = backend instanceof ReplayBackend ? backend.sha256 : null;`,
            `if (!["llama", "reference", "replay"].includes(backend)) throw x;`,
            `(stored.backend ?? "llama") === "llama"`
        ];
        expect(caught.filter((l) => !comparesBackendName(l))).toEqual([]);
        // Naming a backend is not comparing one; a settings key that happens to share a name is not a backend.
        expect([`{ ...common, backend: "replay", replay: simulated }`, `else if (k === "replay" || k === "db") out[k] = v;`].filter(comparesBackendName)).toEqual([]);
    });

    it("no file outside src/inference reads a backend's own setting or imports a backend's folder: it asks the descriptor", () => {
        const outside = SRC.filter((s) => !s.file.startsWith("src/inference/"));
        expect(outside.length).toBeGreaterThan(100);
        expect(outside.flatMap(({ file, text }) => text.split("\n").flatMap((line, i) => (touchesBackendInternals(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])))).toEqual([]);
    });

    it("no file outside src/inference picks a backend by its name: it asks the registry (DEFAULT_BACKEND, teacherForcingBackend, replayedAnswers, demoStudies)", () => {
        const outside = SRC.filter((s) => !s.file.startsWith("src/inference/"));
        expect(outside.flatMap(({ file, text }) => text.split("\n").flatMap((line, i) => (picksBackendByName(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])))).toEqual([]);
        const caught = [`{ ...common, backend: "replay", replay: simulated }`, `const study = studyConfigFromFlags({ ...flags, backend: "llama" });`, `config.backend = 'server';`, `backend?: "reference",`];
        expect(caught.filter((l) => !picksBackendByName(l))).toEqual([]);
        // A backend named in a help text or a label is not a pick.
        expect([`.option("--backend <name>", "what answers (default llama)")`, `["server", srv.engine]`, `backend: DEFAULT_BACKEND,`].filter(picksBackendByName)).toEqual([]);
    });

    it("no file outside src/inference declares a backend's flag: a command takes them from the descriptors (addBackendOptions)", () => {
        const outside = SRC.filter((s) => !s.file.startsWith("src/inference/"));
        expect(outside.flatMap(({ file, text }) => text.split("\n").flatMap((line, i) => (declaresBackendFlag(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])))).toEqual([]);
        // The scan sees each form a declaration takes, for every backend's flags (read from the registry).
        expect(OWN_FLAGS).toEqual(expect.arrayContaining(["--replay", "--base-url", "--concurrency", "--gpu", "--groups", "--sequences"]));
        const caught = [`.option("--gpu <kind>", "GPU backend", "auto")`, `    .requiredOption("--base-url <url>", "the server")`, `.option("--groups <n>", "lockstep groups", collect, [] as string[])`, `cmd.option("--replay <file>")`];
        expect(caught.filter((l) => !declaresBackendFlag(l))).toEqual([]);
        // A study's own flag whose name begins like a backend's is not one of them; an example naming one is not a declaration.
        expect([`.option("--group-size <G>", "members per group")`, `$ eddy run --backend server --base-url http://127.0.0.1:8080/v1 --model m`].filter(declaresBackendFlag)).toEqual([]);
    });

    it("the backend-internals scan catches each way in: a backend's setting read off the settings, a backend's folder imported", () => {
        // Every backend's keys are covered, a new backend's included (read from the registry, not listed here).
        expect(OWN_KEYS).toEqual(expect.arrayContaining(["replay", "baseUrl", "concurrency", "gpu", "sequences"]));
        const caught = [
            `const replay = config.replay === undefined ? undefined : path.resolve(baseDir, config.replay);`,
            `    ...(c.baseUrl ? { url: c.baseUrl } : {}),`,
            `const n = settings["concurrency"] ?? 1;`,
            `if (s.gpu !== undefined) out.gpu = s.gpu;`,
            `batchSize: meta.batchSize`,
            `import { ReplayBackend } from "../inference/replay/ReplayBackend.js";`,
            `const { createServerBackend } = await import("../../inference/server/ServerBackend.js");`
        ];
        expect(caught.filter((l) => !touchesBackendInternals(l))).toEqual([]);
        // The study's own settings, a judge's concurrency and the registry are not a backend's internals.
        const fine = [
            `const groupSize = descriptor.scheduling(mode) === "lockstep" ? (s.groupSize ?? DEFAULT_GROUP_SIZE) : undefined;`,
            `await Promise.all(Array.from({ length: Math.min(opts.concurrency, todo.length) }, worker));`,
            `import { backendDescriptor } from "../inference/backends.js";`,
            `// the replay file (config.replay) is read by its descriptor`
        ];
        expect(fine.filter(touchesBackendInternals)).toEqual([]);
    });

    it("inference does not import the judge (the reference backend is handed a solution source)", () => {
        expect(hits(SRC.filter((s) => s.file.startsWith("src/inference/")), /from "[^"]*\/judge\//)).toEqual([]);
    });

    it("the shared vocabulary is imported from src/vocabulary.ts, not through re-exporting types files", () => {
        expect(hits(SRC.filter((s) => s.file.endsWith("/types.ts")), /^export .* from "[./]*vocabulary\.js"/)).toEqual([]);
    });

    it("src/templates has no import cycle, and reaches into the judge only for the Python command", () => {
        const templates = SRC.filter((s) => s.file.startsWith("src/templates/"));
        expect(cycles(templates)).toEqual([]);
        // The detector finds the cycle taxonomy ⇄ types had (a type-only import counts: it is still an arrow back).
        const pair = [
            { file: "src/t/types.ts", text: 'import type { ReturnType } from "./taxonomy.js";\n' },
            { file: "src/t/taxonomy.ts", text: 'import type { ProblemGroup } from "./types.js";\n' }
        ];
        expect(cycles(pair)).toEqual(["src/t/taxonomy.ts → src/t/types.ts"]);
        // inputSeed and paramTuple describe an instance: they live in src/templates, which the judge imports, not the reverse.
        expect(hits(templates, /from "[^"]*\/judge\/(?!workerScript\.js")/)).toEqual([]);
    });

    it("the template library is read from the environment at the CLI edge only", () => {
        expect(hits(SRC.filter((s) => !s.file.startsWith("src/cli/")), /process\.env(?:\.|\[["'])EDDY_(?:TEMPLATES|ORACLES)\b/)).toEqual([]);
        expect([...new Set(hits(SRC, /process\.env(?:\.|\[["'])EDDY_(?:TEMPLATES|ORACLES)\b/).map((h) => h.split(":")[0]))]).toEqual(["src/cli/templateLibrary.ts"]);
    });

    it("nothing below the CLI imports src/cli: text widths and wrapping live in src/util", () => {
        const below = SRC.filter((s) => !s.file.startsWith("src/cli/"));
        expect(hits(below, /from "[^"]*\/cli\/|import\("[^"]*\/cli\//)).toEqual([]);
        expect(hits(SRC, /export function (?:wrapText|displayWidth)\b/).map((h) => h.split(":")[0])).toEqual(["src/util/textWidth.ts", "src/util/textWidth.ts"]);
    });

    it("no command imports another command (shared code lives outside src/cli/commands)", () => {
        const commands = SRC.filter((s) => s.file.startsWith("src/cli/commands/"));
        const offenders = commands.flatMap(({ file, text }) =>
            [...text.matchAll(/from "(\.[^"]*)"/g)]
                .map((m) => path.posix.join(path.posix.dirname(file), m[1]!))
                .filter((target) => /Command\.js$/.test(target) && !isSubcommandOf(file, target))
                .map((target) => `${file} imports ${target}`)
        );
        expect(offenders).toEqual([]);
    });
});

/** A command group (kit, templates) registers its own subcommands: those imports are its structure, not a cross-command one. */
function isSubcommandOf(file: string, target: string): boolean {
    const dir = path.posix.dirname(file);
    return path.posix.basename(file) === `${capitalise(path.posix.basename(dir))}Command.ts` && target.startsWith(dir + "/");
}
function capitalise(s: string): string {
    return s.charAt(0).toUpperCase() + s.slice(1);
}

const BACKEND_LITERAL = String.raw`["'](?:${BACKEND_NAMES.join("|")})["']`;
const COMPARED = new RegExp(String.raw`[!=]==?\s*${BACKEND_LITERAL}|${BACKEND_LITERAL}\s*[!=]==?`);
const CASE = new RegExp(String.raw`\bcase\s+${BACKEND_LITERAL}\s*:`);
const INSTANCEOF = /\binstanceof\s+(?:Llama|Replay|Reference|Server)Backend\b/;
const NAME_LIST = new RegExp(String.raw`\[\s*${BACKEND_LITERAL}\s*,\s*${BACKEND_LITERAL}`);

/** A line that decides by a backend's name: compares one, switches on one, tests a backend's class, or lists the names. */
function comparesBackendName(line: string): boolean {
    return (/backend/i.test(line) && COMPARED.test(line)) || CASE.test(line) || INSTANCEOF.test(line) || NAME_LIST.test(line);
}


/** The settings the backends own (each declares them in its descriptor). */
const OWN_KEYS = Object.keys({ ...BACKEND_IDENTITY_SETTINGS, ...BACKEND_OPERATIONAL_SETTINGS });
const SETTINGS_OBJECT = String.raw`\b(?:config|c|s|settings|study|stored|raw|flags|f|o|merged|meta|w)`;
const OWN_READ = new RegExp(String.raw`${SETTINGS_OBJECT}(?:\.|\?\.)(?:${OWN_KEYS.join("|")})\b|${SETTINGS_OBJECT}\[["'](?:${OWN_KEYS.join("|")})["']\]`);
const BACKEND_FOLDER = new RegExp(String.raw`from\s+"[^"]*\/inference\/(?:${BACKEND_NAMES.join("|")})\/|import\("[^"]*\/inference\/(?:${BACKEND_NAMES.join("|")})\/`);

const PICKED = new RegExp(String.raw`\bbackend\??\s*[:=]\s*${BACKEND_LITERAL}`);

/** A line that sets a backend by its name (a study's settings, a config) instead of asking the registry. */
function picksBackendByName(line: string): boolean {
    return PICKED.test(line);
}

/** Every backend's flags, by their long names. */
const OWN_FLAGS = BACKEND_OPTIONS.map((o) => o.flags.split(/[ ,]+/).find((f) => f.startsWith("--"))!);
const FLAG_DECLARED = new RegExp(String.raw`\.(?:option|requiredOption)\(\s*["'](?:-\w,\s*)?(?:${OWN_FLAGS.join("|")})[\s"']`);

/** A line that declares a backend's flag on a command itself (commander's option or requiredOption). */
function declaresBackendFlag(line: string): boolean {
    return FLAG_DECLARED.test(line);
}

/** A line that reaches past the descriptor: reads a backend's own setting off a settings object, or imports a backend's folder. */
function touchesBackendInternals(line: string): boolean {
    if (/^\s*(?:\/\/|\*|\/\*\*)/.test(line)) return false;
    return OWN_READ.test(line) || BACKEND_FOLDER.test(line);
}

/** Import cycles among `files` (relative imports only), each as the chain of files that closes it. */
function cycles(files: { file: string; text: string }[]): string[] {
    const known = new Set(files.map((f) => f.file));
    const edges = new Map(
        files.map(({ file, text }) => [
            file,
            [...text.matchAll(/^(?:import|export)\s[^;]*?from "(\.[^"]+)\.js"/gm)].map((m) => path.posix.join(path.posix.dirname(file), `${m[1]!}.ts`)).filter((t) => known.has(t))
        ])
    );
    const found = new Set<string>();
    const walk = (file: string, chain: string[]): void => {
        const at = chain.indexOf(file);
        if (at >= 0) {
            const loop = chain.slice(at);
            // One name per cycle, whichever file it was entered from.
            const start = loop.indexOf([...loop].sort()[0]!);
            found.add([...loop.slice(start), ...loop.slice(0, start)].join(" → "));
            return;
        }
        for (const next of edges.get(file) ?? []) walk(next, [...chain, file]);
    };
    for (const f of known) walk(f, []);
    return [...found];
}
