import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import { gzipSync } from "node:zlib";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { helpTree } from "../support/docsHelpTexts.js";

/**
 * Examples are tests: every command line in README.md's and docs/*.md's shell blocks, and every
 * `$ eddy …` line in every command's `--help`, runs as written in a fresh shell from (a mirror of) the
 * repository root. Files a user would bring are stood in for by eddy's tiny models, the reference
 * backend and the fixtures written below; the examples say so beside themselves.
 *
 * The sources run in one order: README.md (a walkthrough), then the pages of docs/ in the order
 * docs/README.md lists them (each page a walkthrough of its own), then the help texts. A command line
 * runs once in the whole suite, in the first source that shows it; a later source skips it. That order
 * is computed from the texts alone, so the test files (README, the pages, the help texts) run side by
 * side, each in a sandbox of its own.
 */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BIN = path.join(ROOT, "dist/cli/bin.js");

/** Lines that are not run here, each with the reason (and where else it is covered). */
const NOT_RUN: [pattern: RegExp, why: string][] = [
    [/^npm (install|ci)\b/, "installs the project: it is what CI itself does before the tests"],
    [/^scripts\/setup\.sh\b/, "installs system packages and the project (what CI does first; each sandbox starts with its --system part where something is missing); test/docs/freshMachine.test.ts runs it on a machine without bubblewrap, test/docs/hints.test.ts its --check"],
    [/^npm test\b|^npx vitest\b/, "runs this very suite (or a lane of it)"],
    [/^npm run (build|lint)\b/, "builds or lints the project: CI lints before the tests (.ci/run) and the suite builds dist/ first (test/globalSetup.ts)"],
    [/^npm start\b/, "is `eddy demo`, which runs below"],
    [/^npm link\b/, "puts eddy on PATH: stood in for by the `eddy` this test puts first on PATH"],
    [/^npm run bench:|^npx tsx scripts\//, "benchmarks and measurements are scripts, not tests"],
    [/install\.sh\b|^tar .*eddy-kit|^~\/eddy\/bin\/eddy\b/, "installing from a kit is tested end to end, offline, in test/kit/install.test.ts"],
    [/^eddy kit( |$)/, "building a kit (about 100 MB) is tested end to end in test/kit/install.test.ts"],
    [/--base-url http:\/\/127\.0\.0\.1:8080\b/, "needs a model served at that address: test/inference/server.test.ts runs these commands against a real llama-server it starts"],
    [/^eddy view\b/, "serves until stopped: test/view runs it from the command line and drives it in Chromium"],
    [/^eddy worker\b|--queue\b/, "needs a lab's Redis: test/queue runs `eddy worker` and `eddy run --queue` against a real redis-server"],
    [/^scripts\/build-llama-(tools|server)\.sh\b/, "builds llama.cpp's tools (minutes, once per release): .ci/run runs it before the tests, and the examples use what it built (EDDY_LLAMA_TOOLS)"],
    ...(llamaToolsDir() || process.env.CI === "true"
        ? []
        : ([[/ --types /, "needs llama.cpp's llama-quantize, not built on this machine (scripts/build-llama-tools.sh): test/quant/make.test.ts says so too"]] as [RegExp, string][])),
    [/^eddy templates validate( --strength)?( --json)?$/, "validates all shipped templates (minutes): test/templates/shipped.test.ts does this on every `npm test`"]
];

export interface Example {
    source: string;
    command: string;
}

/** A source of examples: README.md, a docs page, or the help texts. */
export interface Source {
    name: string;
    examples: () => Example[];
}

/** What makes two command lines the same: the command without a trailing comment, its spaces collapsed. */
export function commandKey(command: string): string {
    return command
        .replace(/\s+#\s.*$/, "")
        .replace(/\s+/g, " ")
        .trim();
}

/**
 * Command lines of a Markdown file's ```bash blocks: comment lines dropped, a line ending in `\`
 * joined with the next (as the shell does), trailing comments dropped.
 */
export function markdownExamples(file: string): Example[] {
    const text = readFileSync(path.join(ROOT, file), "utf8");
    const out: Example[] = [];
    for (const block of text.matchAll(/```(?:bash|sh|shell)\n([\s\S]*?)```/g)) {
        const joined = block[1]!.replace(/\s*\\\n\s*/g, " ");
        for (const raw of joined.split("\n")) {
            const command = raw.replace(/\s+#\s.*$/, "").trim();
            if (command === "" || command.startsWith("#")) continue;
            out.push({ source: file, command });
        }
    }
    return out;
}

/** The pages of docs/ (not its design notes), in the order docs/README.md links them, then any it does not. */
export function docPages(): string[] {
    const all = readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md") && f !== "README.md");
    const index = readFileSync(path.join(ROOT, "docs/README.md"), "utf8");
    const listed = [...index.matchAll(/\]\(([\w-]+\.md)\)/g)].map((m) => m[1]!).filter((f, i, a) => all.includes(f) && a.indexOf(f) === i);
    return [...listed, ...all.filter((f) => !listed.includes(f)).sort()].map((f) => `docs/${f}`);
}

/** The pages whose examples study eddy's tiny models (about a minute between them): a test file of their own. */
export const MODEL_PAGES = ["docs/quantisation.md", "docs/loops-and-mutation.md"];

/** README.md, then every docs page: the sources whose commands the help texts need not run again. */
export function markdownSources(): Source[] {
    return ["README.md", ...docPages()].map((file) => ({ name: file, examples: () => markdownExamples(file) }));
}

/** The folder scripts/build-llama-tools.sh filled for this llama.cpp release (the sandbox's HOME has no cache), if any. */
function llamaToolsDir(): string | undefined {
    const release = String((JSON.parse(readFileSync(path.join(ROOT, "node_modules/node-llama-cpp/llama/binariesGithubRelease.json"), "utf8")) as { release: unknown }).release);
    const root = process.env.EDDY_LLAMA_TOOLS_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "eddy", "llama-tools");
    const dir = path.join(root, release);
    return ["llama-quantize", "llama-imatrix"].every((t) => existsSync(path.join(dir, t))) ? dir : undefined;
}

/** One test file's sandbox: its HOME, the `eddy` on its PATH, and the fixtures its sources name. */
class Sandbox {
    readonly dir = mkdtempSync(path.join(os.tmpdir(), "eddy-examples-"));
    private readonly shimDir = path.join(this.dir, ".bin");
    private readonly fixtures = path.join(this.dir, "fixtures");
    private made = 0;

    constructor(texts: string) {
        // What `npm link` puts on PATH: an `eddy` that runs this checkout's built CLI.
        mkdirSync(this.shimDir);
        writeFileSync(path.join(this.shimDir, "eddy"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
        chmodSync(path.join(this.shimDir, "eddy"), 0o755);
        // Where README's first command leaves a user (its `npm start` judged a study): the judge's host factor measured
        // on a quiet moment and stored in the user's cache. This machine's, where the runner's cache has it; else each
        // sandbox measures it, and on a busy machine (nothing is stored then) every judge pool measures it again.
        const factor = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "eddy", "host-factor.json");
        if (existsSync(factor)) {
            mkdirSync(path.join(this.dir, ".cache", "eddy"), { recursive: true });
            copyFileSync(factor, path.join(this.dir, ".cache", "eddy", "host-factor.json"));
        }
        mkdirSync(this.fixtures);
        this.writeFixtures(texts);
    }

    env(): NodeJS.ProcessEnv {
        const tools = llamaToolsDir();
        return {
            PATH: `${this.shimDir}:${process.env.PATH ?? ""}`,
            ...(tools ? { EDDY_LLAMA_TOOLS: tools } : {}),
            HOME: this.dir,
            // A fresh shell: none of the test runner's EDDY_* settings leak into the examples.
            ...(process.env.EDDY_PYTHON ? { EDDY_PYTHON: process.env.EDDY_PYTHON } : {}),
            LANG: "C.UTF-8"
        };
    }

    /**
     * A working folder: the repository root mirrored (so that files the examples write land in the
     * sandbox; models/ one level deeper, so that models eddy writes on demand do too), with the fixtures.
     */
    workdir(name: string): string {
        // Short: eddy prints paths under it, and its lines must fit 100 columns.
        const work = path.join(this.dir, `w${this.made++}`);
        process.stdout.write(`${name}: in ${work}\n`);
        mkdirSync(work);
        for (const entry of readdirSync(ROOT)) {
            if ([".eddy", ".git", "models"].includes(entry)) continue;
            symlinkSync(path.join(ROOT, entry), path.join(work, entry));
        }
        // What a fresh checkout's models/ holds once `npm start` ran: its README and eddy's tiny GGUF models (nothing
        // an earlier run wrote there, such as a quantisation ladder; the tiny embedding model is written on demand).
        mkdirSync(path.join(work, "models"));
        for (const m of readdirSync(path.join(ROOT, "models")).filter((f) => f === "README.md" || /^eddy-tiny-[\w-]+\.gguf$/.test(f))) {
            symlinkSync(path.join(ROOT, "models", m), path.join(work, "models", m));
        }
        cpSync(this.fixtures, work, { recursive: true });
        return work;
    }

    /** Files the examples name that a user would bring (a database only where a source names it: each is a study). */
    private writeFixtures(texts: string): void {
        const work = this.workdir("prepare");
        // Two nodes' databases for the `eddy merge` examples, and a study for `--db study.db` (the reference backend stands in for models).
        // The nodes' and the USB sticks' are merged into one lab.db, each a run of its own; study.db is only read (runs
        // list, export): a copy of node1's, the same study the same command makes.
        for (const [db, templates] of [["node1/eddy.db", "list_every_kth"], ["study.db", "list_every_kth"], ["node2/eddy.db", "list_rotate_right"], ["usb/a.db", "list_every_kth"], ["usb/b.db", "list_rotate_right"]] as const) {
            if (!texts.includes(db) && !(db.startsWith("usb/") && texts.includes("usb/"))) continue;
            mkdirSync(path.dirname(path.join(this.fixtures, db)), { recursive: true });
            const node1 = path.join(this.fixtures, "node1/eddy.db");
            if (db === "study.db" && existsSync(node1)) {
                copyFileSync(node1, path.join(this.fixtures, db));
                continue;
            }
            execFileSync(process.execPath, [BIN, "run", "--backend", "reference", "--templates", templates, "--instances", "2", "--rounds", "1", "--db", path.join(this.fixtures, db), "--no-progress"], { cwd: work, env: this.env(), stdio: "ignore" });
        }
        const f = (name: string, content: string | Buffer): void => writeFileSync(path.join(this.fixtures, name), content);
        f("answer.py", "def every_kth(values):\n    return values[2::3]\n");
        f("answer.md", "```python\ndef every_kth(values):\n    return values[2::3]\n```\n");
        f("response.md", "Here it is:\n\n```python\ndef every_kth(values):\n    return values[0::1]\n```\n");
        const answers = [0, 1, 2].map((instance) => JSON.stringify({ template: "list_every_kth", instance, round: 0, response: "```python\ndef every_kth(values):\n    return values[::2]\n```" }));
        f("answers.jsonl", answers.join("\n") + "\n");
        // EvalPlus's release files and a model's samples, stood in for by eddy's original problems in their layout
        // (test/import/evalplus-sample): gzip'd as the releases are, with the published-verdicts file beside the samples.
        const plus = path.join(ROOT, "test/import/evalplus-sample");
        f("HumanEvalPlus-v0.1.10.jsonl.gz", gzipSync(readFileSync(path.join(plus, "HumanEvalPlus-eddy.jsonl"))));
        f("MbppPlus-v0.2.0.jsonl.gz", gzipSync(readFileSync(path.join(plus, "MbppPlus-eddy.jsonl"))));
        for (const name of ["samples.jsonl", "samples.eval_results.json"]) f(name, readFileSync(path.join(plus, name)));
        rmSync(work, { recursive: true, force: true });
    }

    remove(): void {
        rmSync(this.dir, { recursive: true, force: true });
    }
}

/**
 * Each sandbox starts where README's first command leaves a user: on a machine without bubblewrap (or
 * python3, or a compiler) that command installs it first, so this does too (its system part; npm
 * install is what CI did before the tests). Where it cannot, the examples stop at the one line it
 * printed, naming the command that would, rather than failing every study with the same refusal.
 */
function setUpMachine(): void {
    const setup = path.join(ROOT, "scripts/setup.sh");
    if (spawnSync(setup, ["--check"], { encoding: "utf8" }).status === 0) return;
    const r = spawnSync(setup, ["--system"], { encoding: "utf8", timeout: 600_000 });
    if (r.status !== 0) throw new Error(`README's first command could not set this machine up: ${`${r.stderr ?? ""}`.trim().split("\n").at(-1)}`);
}

function notRunReason(command: string): string | undefined {
    const bare = command.replace(/^npx /, "");
    return NOT_RUN.find(([p]) => p.test(command) || p.test(bare))?.[1];
}

/** Generous: CI machines run these beside the rest of the suite; the slowest example takes ~110 s there. */
const EXAMPLE_LIMIT_MS = 240_000;

/** Columns every table and message fits (terminals may be wider, logs are read at this width). */
const WIDTH = 100;

/**
 * Output that is data, not a table or message: JSON, CSV, Markdown and JSONL on stdout, and a model's
 * own text (`eddy generate` prints what the model wrote). Its stderr is still held to the width.
 */
const DATA_ON_STDOUT = /--json\b|--format (json|jsonl|csv|md|evalplus|inspect)\b|^eddy export\b(?!.*--out)|^eddy generate\b|^eddy judge\b.*--json/;

/** Lines of `text` wider than WIDTH columns (code points), with their width. */
function tooWide(text: string): string[] {
    return text.split("\n").flatMap((l) => ([...l].length > WIDTH ? [`${[...l].length} cols: ${l.slice(0, 140)}`] : []));
}

function runExample(ex: Example, cwd: string, env: NodeJS.ProcessEnv): { status: number | string | null; output: string; ms: number; wide: string[] } {
    const t0 = performance.now();
    const r = spawnSync("bash", ["-c", ex.command], { cwd, env, encoding: "utf8", timeout: EXAMPLE_LIMIT_MS });
    // A killed example says so: "exited null" hid a timeout on a loaded CI machine.
    const status = r.status ?? (r.signal ? `killed by ${r.signal} (limit ${EXAMPLE_LIMIT_MS / 1000} s)` : null);
    const wide = [...(DATA_ON_STDOUT.test(ex.command) ? [] : tooWide(r.stdout ?? "")), ...tooWide(r.stderr ?? "")];
    return { status, output: `${r.stdout ?? ""}${r.stderr ?? ""}`.slice(-2000), ms: performance.now() - t0, wide };
}

interface Outcome {
    failures: string[];
    ran: number;
    elsewhere: number;
    wide: string[];
}

/**
 * Runs each example of one source in order in `cwd`, but those `skip` holds (run by an earlier source, or
 * earlier in this one), adding each to `skip`; prints what was not run and the slowest.
 */
function runSource(name: string, examples: Example[], skip: Set<string>, cwd: string, env: NodeJS.ProcessEnv): Outcome {
    const out: Outcome = { failures: [], ran: 0, elsewhere: 0, wide: [] };
    const skipped: string[] = [];
    const times: [number, string][] = [];
    for (const ex of examples) {
        const key = commandKey(ex.command);
        if (skip.has(key)) {
            out.elsewhere++;
            continue;
        }
        skip.add(key);
        const why = notRunReason(ex.command);
        if (why) {
            skipped.push(`${ex.command}  (${why})`);
            continue;
        }
        const r = runExample(ex, cwd, env);
        out.ran++;
        times.push([r.ms, ex.command]);
        if (r.status !== 0) out.failures.push(`${ex.source}: \`${ex.command}\` exited ${r.status}\n${r.output}`);
        if (r.wide.length) out.wide.push(`${ex.source}: \`${ex.command}\`:\n  ${r.wide.join("\n  ")}`);
    }
    const total = times.reduce((s, [ms]) => s + ms, 0);
    process.stdout.write(
        `${name}: ran ${out.ran} in ${(total / 1000).toFixed(1)} s, ${out.elsewhere} run by an earlier source or line, not run ${skipped.length}:\n` +
            skipped.map((s) => `  ${s}\n`).join("") +
            `  slowest (EDDY_EXAMPLES_TIMES=1: all):\n${times
                .sort((a, b) => b[0] - a[0])
                .slice(0, process.env.EDDY_EXAMPLES_TIMES ? undefined : 5)
                .map(([ms, c]) => `    ${(ms / 1000).toFixed(1)}s  ${c}\n`)
                .join("")}`
    );
    return out;
}

/** The command lines of the sources before `name` in the suite's order (README.md, the docs pages, the help texts). */
function earlierKeys(name: string): Set<string> {
    const order = markdownSources();
    const at = order.findIndex((s) => s.name === name);
    return new Set(order.slice(0, at < 0 ? order.length : at).flatMap((s) => s.examples().map((e) => commandKey(e.command))));
}

/**
 * Registers one test per Markdown file: its command lines in order (a walkthrough, each line may need the
 * one before it), in a working folder of its own in this file's sandbox, but the lines an earlier source
 * runs. Every table and message they print fits 100 columns.
 */
export function markdownSuite(title: string, files: () => string[], least: { examples: number; ran: number }): void {
    let box: Sandbox | undefined;
    beforeAll(() => {
        setUpMachine();
        box = new Sandbox(files().map((f) => readFileSync(path.join(ROOT, f), "utf8")).join("\n"));
    }, 180_000);
    afterAll(() => box?.remove());
    describe(title, () => {
        it("every command line exits 0, and every table and message fits 100 columns", () => {
            let examples = 0;
            let ran = 0;
            const failures: string[] = [];
            const wide: string[] = [];
            for (const file of files()) {
                const own = markdownExamples(file);
                examples += own.length;
                const r = runSource(file, own, earlierKeys(file), box!.workdir(file), box!.env());
                ran += r.ran;
                failures.push(...r.failures);
                wide.push(...r.wide);
            }
            expect(failures).toEqual([]);
            expect(wide).toEqual([]);
            expect(examples).toBeGreaterThanOrEqual(least.examples);
            expect(ran).toBeGreaterThanOrEqual(least.ran);
        }, 900_000);
    });
}

/**
 * The help texts whose examples study models or import benchmarks (the slower half): a test file of their
 * own, beside the other commands' (helpSuite's `part`).
 */
export const STUDY_COMMANDS = ["quant", "audit", "import", "loop", "mutate"];

/**
 * The help text of `eddy` and of every command (and subcommand) `take` takes, found by walking `--help` itself
 * (in one process: helpTree).
 */
function helpTexts(env: NodeJS.ProcessEnv, take: (command: string) => boolean): { name: string; text: string }[] {
    return helpTree(env)
        .filter(({ words }) => take(words[0] ?? ""))
        .map(({ words, text }) => ({ name: ["eddy", ...words].join(" "), text }));
}

/** `$ eddy …` lines of a help text (the examples block). */
function helpExamples(name: string, text: string): Example[] {
    return text
        .split("\n")
        .map((l) => /^\s+\$ (.+)$/.exec(l)?.[1]?.trim())
        .filter((c): c is string => c !== undefined)
        .map((command) => ({ source: `${name} --help`, command }));
}

/**
 * Registers the help texts' examples: every `$ eddy …` line of every command's --help (`studies`: of the
 * STUDY_COMMANDS; else of `eddy` itself and every other command), in the order the help tree lists
 * them, in one working folder. A line README.md or a docs page shows is run there, not here (about a
 * third of the help lines, some of the slowest): it would test nothing new.
 */
export function helpSuite(part: "studies" | "others", least: { examples: number; ran: number }): void {
    const take = (command: string): boolean => STUDY_COMMANDS.includes(command) === (part === "studies");
    let box: Sandbox | undefined;
    let helps: { name: string; text: string }[] = [];
    beforeAll(() => {
        setUpMachine();
        helps = helpTexts({ PATH: process.env.PATH, LANG: "C.UTF-8", HOME: os.tmpdir() }, take);
        box = new Sandbox(helps.map((h) => h.text).join("\n"));
    }, 180_000);
    afterAll(() => box?.remove());
    describe("examples run as written", () => {
        it(`every command's --help (${part === "studies" ? STUDY_COMMANDS.join(", ") : "the other commands"}): every example exits 0`, () => {
            const fromHelp = helps.flatMap((h) => helpExamples(h.name, h.text));
            // Every command has at least one example.
            const topLevel = helps.filter((h) => h.name.split(" ").length === 2);
            const withoutExamples = topLevel.filter((h) => !fromHelp.some((e) => new RegExp(`(^|[|;&] *)(npx )?${h.name}( |$)`).test(e.command)));
            expect(withoutExamples.map((h) => h.name)).toEqual([]);
            // `eddy --help` and every command with subcommands (audit, import, loop, mutate…) show examples of their own,
            // not only in their subcommands' help.
            const groups = helps.filter((h) => h.text.includes("\nCommands:\n"));
            expect(groups.filter((h) => helpExamples(h.name, h.text).length === 0).map((h) => h.name)).toEqual([]);
            expect(fromHelp.length).toBeGreaterThanOrEqual(least.examples);
            const { failures, ran } = runSource(`--help texts (${part})`, fromHelp, earlierKeys("--help"), box!.workdir("help"), box!.env());
            expect(failures).toEqual([]);
            expect(ran).toBeGreaterThanOrEqual(least.ran);
        }, 900_000);
    });
}
