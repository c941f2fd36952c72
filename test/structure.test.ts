import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

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

    it("inference does not import the judge (the reference backend is handed a solution source)", () => {
        expect(hits(SRC.filter((s) => s.file.startsWith("src/inference/")), /from "[^"]*\/judge\//)).toEqual([]);
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

const BACKEND_LITERAL = String.raw`["'](?:llama|replay|reference)["']`;
const COMPARED = new RegExp(String.raw`[!=]==?\s*${BACKEND_LITERAL}|${BACKEND_LITERAL}\s*[!=]==?`);
const CASE = new RegExp(String.raw`\bcase\s+${BACKEND_LITERAL}\s*:`);
const INSTANCEOF = /\binstanceof\s+(?:Llama|Replay|Reference)Backend\b/;
const NAME_LIST = new RegExp(String.raw`\[\s*${BACKEND_LITERAL}\s*,\s*${BACKEND_LITERAL}`);

/** A line that decides by a backend's name: compares one, switches on one, tests a backend's class, or lists the names. */
function comparesBackendName(line: string): boolean {
    return (/backend/i.test(line) && COMPARED.test(line)) || CASE.test(line) || INSTANCEOF.test(line) || NAME_LIST.test(line);
}
