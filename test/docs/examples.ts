import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import { gzipSync } from "node:zlib";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Examples are tests: every `$ eddy …` line in every command's `--help`, and every command line in
 * README.md's shell blocks, runs as written in a fresh shell from (a mirror of) the repository root.
 * Files a user would bring are stood in for by eddy's tiny models, the reference backend and the
 * fixtures written below; the examples say so beside themselves. One sandbox: README.md's lines in
 * order (a walkthrough), then every help text's.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BIN = path.join(ROOT, "dist/cli/bin.js");

/** README lines that are not run here, each with the reason (and where else it is covered). */
const NOT_RUN: [pattern: RegExp, why: string][] = [
    [/^npm (install|ci)\b/, "installs the project: it is what CI itself does before the tests"],
    [/^scripts\/setup\.sh\b/, "installs system packages and the project (what CI does first; the walkthrough starts with its --system part where something is missing); test/docs/freshMachine.test.ts runs it on a machine without bubblewrap, test/docs/hints.test.ts its --check"],
    [/^npm test\b/, "runs this very suite"],
    [/^npm start\b/, "is `eddy demo`, which runs below"],
    [/^npm link\b/, "puts eddy on PATH: stood in for by the `eddy` this test puts first on PATH"],
    [/^npm run bench:/, "benchmarks are scripts, not tests"],
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

interface Example {
    source: string;
    command: string;
}

let sandbox = "";
let shimDir = "";

/** The folder scripts/build-llama-tools.sh filled for this llama.cpp release (the sandbox's HOME has no cache), if any. */
function llamaToolsDir(): string | undefined {
    const release = String((JSON.parse(readFileSync(path.join(ROOT, "node_modules/node-llama-cpp/llama/binariesGithubRelease.json"), "utf8")) as { release: unknown }).release);
    const root = process.env.EDDY_LLAMA_TOOLS_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "eddy", "llama-tools");
    const dir = path.join(root, release);
    return ["llama-quantize", "llama-imatrix"].every((t) => existsSync(path.join(dir, t))) ? dir : undefined;
}

const env = (): NodeJS.ProcessEnv => ({
    PATH: `${shimDir}:${process.env.PATH ?? ""}`,
    ...(llamaToolsDir() ? { EDDY_LLAMA_TOOLS: llamaToolsDir() } : {}),
    HOME: sandbox,
    // A fresh shell: none of the test runner's EDDY_* settings leak into the examples.
    ...(process.env.EDDY_PYTHON ? { EDDY_PYTHON: process.env.EDDY_PYTHON } : {}),
    LANG: "C.UTF-8"
});

/** The help text of every command and subcommand, found by walking `--help` itself. */
function helpTexts(): { name: string; text: string }[] {
    const out: { name: string; text: string }[] = [];
    const visit = (words: string[]): void => {
        const text = execFileSync(process.execPath, [BIN, ...words, "--help"], { encoding: "utf8", env: env() });
        out.push({ name: ["eddy", ...words].join(" "), text });
        const commands = text.split("\nCommands:\n")[1];
        if (!commands) return;
        for (const line of commands.split("\n")) {
            const m = /^ {2}([a-z][\w-]*)\b/.exec(line);
            if (m && m[1] !== "help") visit([...words, m[1]!]);
        }
    };
    visit([]);
    return out;
}

/** `$ eddy …` lines of a help text (the examples block). */
function helpExamples(name: string, text: string): Example[] {
    return text
        .split("\n")
        .map((l) => /^\s+\$ (.+)$/.exec(l)?.[1]?.trim())
        .filter((c): c is string => c !== undefined)
        .map((command) => ({ source: `${name} --help`, command }));
}

/** Command lines of README.md's ```bash blocks (comment lines and trailing comments dropped). */
function readmeExamples(): Example[] {
    const text = readFileSync(path.join(ROOT, "README.md"), "utf8");
    const out: Example[] = [];
    for (const block of text.matchAll(/```(?:bash|sh|shell)\n([\s\S]*?)```/g)) {
        for (const raw of block[1]!.split("\n")) {
            const command = raw.replace(/\s+#\s.*$/, "").trim();
            if (command === "" || command.startsWith("#")) continue;
            out.push({ source: "README.md", command });
        }
    }
    return out;
}

function notRunReason(command: string): string | undefined {
    const bare = command.replace(/^npx /, "");
    return NOT_RUN.find(([p]) => p.test(command) || p.test(bare))?.[1];
}

/**
 * The walkthrough starts where README's first command leaves a user: on a machine without bubblewrap
 * (or python3, or a compiler) that command installs it first, so this does too (its system part; npm
 * install is what CI did before the tests). Where it cannot, the walkthrough stops at the one line it
 * printed, naming the command that would, rather than failing every study with the same refusal.
 */
function setUpMachine(): void {
    const setup = path.join(ROOT, "scripts/setup.sh");
    if (spawnSync(setup, ["--check"], { encoding: "utf8" }).status === 0) return;
    const r = spawnSync(setup, ["--system"], { encoding: "utf8", timeout: 600_000 });
    if (r.status !== 0) throw new Error(`README's first command could not set this machine up: ${`${r.stderr ?? ""}`.trim().split("\n").at(-1)}`);
}

function prepareSandbox(): void {
    setUpMachine();
    sandbox = mkdtempSync(path.join(os.tmpdir(), "eddy-examples-"));
    // What `npm link` puts on PATH: an `eddy` that runs this checkout's built CLI.
    shimDir = path.join(sandbox, ".bin");
    mkdirSync(shimDir);
    writeFileSync(path.join(shimDir, "eddy"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(path.join(shimDir, "eddy"), 0o755);
    // The repository root, mirrored so that files the examples write land in the sandbox.
    const work = path.join(sandbox, "repo");
    mkdirSync(work);
    for (const entry of readdirSync(ROOT)) {
        if (entry === ".eddy" || entry === ".git") continue;
        symlinkSync(path.join(ROOT, entry), path.join(work, entry));
    }
    writeExampleFixtures(work);
}

/** Files the examples name that a user would bring. */
function writeExampleFixtures(work: string): void {
    // Two nodes' databases for the `eddy merge` examples, and a study for `--db study.db` (the reference backend stands in for models).
    for (const [db, templates] of [["study.db", "list_every_kth"], ["node1/eddy.db", "list_every_kth"], ["node2/eddy.db", "list_rotate_right"], ["usb/a.db", "list_every_kth"], ["usb/b.db", "list_rotate_right"]] as const) {
        mkdirSync(path.dirname(path.join(work, db)), { recursive: true });
        execFileSync(process.execPath, [BIN, "run", "--backend", "reference", "--templates", templates, "--instances", "2", "--rounds", "1", "--db", db, "--no-progress"], { cwd: work, env: env(), stdio: "ignore" });
    }
    writeFileSync(path.join(work, "answer.py"), "def every_kth(values):\n    return values[2::3]\n");
    writeFileSync(path.join(work, "answer.md"), "```python\ndef every_kth(values):\n    return values[2::3]\n```\n");
    writeFileSync(path.join(work, "response.md"), "Here it is:\n\n```python\ndef every_kth(values):\n    return values[0::1]\n```\n");
    const answers = [0, 1, 2].flatMap((instance) =>
        JSON.stringify({ template: "list_every_kth", instance, round: 0, response: "```python\ndef every_kth(values):\n    return values[::2]\n```" })
    );
    writeFileSync(path.join(work, "answers.jsonl"), answers.join("\n") + "\n");
    // EvalPlus's release files and a model's samples, stood in for by eddy's original problems in their layout
    // (test/import/evalplus-sample): gzip'd as the releases are, with the published-verdicts file beside the samples.
    const plus = path.join(ROOT, "test/import/evalplus-sample");
    writeFileSync(path.join(work, "HumanEvalPlus-v0.1.10.jsonl.gz"), gzipSync(readFileSync(path.join(plus, "HumanEvalPlus-eddy.jsonl"))));
    writeFileSync(path.join(work, "MbppPlus-v0.2.0.jsonl.gz"), gzipSync(readFileSync(path.join(plus, "MbppPlus-eddy.jsonl"))));
    for (const f of ["samples.jsonl", "samples.eval_results.json"]) writeFileSync(path.join(work, f), readFileSync(path.join(plus, f)));
}

/** Generous: CI machines run these beside the rest of the suite; the slowest example takes ~110 s there. */
const EXAMPLE_LIMIT_MS = 240_000;

/** Columns every table and message fits (the issue's rule; terminals may be wider, logs are read at this width). */
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

function runExample(ex: Example): { status: number | string | null; output: string; ms: number; wide: string[] } {
    const t0 = performance.now();
    const r = spawnSync("bash", ["-c", ex.command], { cwd: path.join(sandbox, "repo"), env: env(), encoding: "utf8", timeout: EXAMPLE_LIMIT_MS });
    // A killed example says so: "exited null" hid a timeout on a loaded CI machine.
    const status = r.status ?? (r.signal ? `killed by ${r.signal} (limit ${EXAMPLE_LIMIT_MS / 1000} s)` : null);
    const wide = [...(DATA_ON_STDOUT.test(ex.command) ? [] : tooWide(r.stdout ?? "")), ...tooWide(r.stderr ?? "")];
    return { status, output: `${r.stdout ?? ""}${r.stderr ?? ""}`.slice(-2000), ms: performance.now() - t0, wide };
}

/**
 * Runs each example not run before, in order, adding it to `seen`; returns the failures (with output)
 * after printing what was not run and the slowest.
 */
function runAll(examples: Example[], seen: Set<string>): { failures: string[]; ran: number; repeated: number; wide: string[] } {
    const failures: string[] = [];
    const wide: string[] = [];
    const skipped: string[] = [];
    const times: [number, string][] = [];
    let ran = 0;
    let repeated = 0;
    for (const ex of examples) {
        if (seen.has(ex.command)) {
            repeated++;
            continue;
        }
        seen.add(ex.command);
        const why = notRunReason(ex.command);
        if (why) {
            skipped.push(`${ex.command}  (${why})`);
            continue;
        }
        const r = runExample(ex);
        ran++;
        times.push([r.ms, ex.command]);
        if (r.status !== 0) failures.push(`${ex.source}: \`${ex.command}\` exited ${r.status}\n${r.output}`);
        if (r.wide.length) wide.push(`${ex.source}: \`${ex.command}\`:\n  ${r.wide.join("\n  ")}`);
    }
    process.stdout.write(`examples: ran ${ran}, ${repeated} already run, not run ${skipped.length}:\n${skipped.map((s) => `  ${s}`).join("\n")}\n`);
    const slowest = times.sort((a, b) => b[0] - a[0]).slice(0, 5);
    process.stdout.write(`slowest examples:\n${slowest.map(([ms, c]) => `  ${(ms / 1000).toFixed(1)}s  ${c}`).join("\n")}\n`);
    return { failures, ran, repeated, wide };
}

/**
 * Registers the suite: README.md's command lines in order (a walkthrough, each line may need the one
 * before it), then every command's --help examples in the order the help tree lists them, in one
 * sandbox. A command line that README and a help text share runs once: the help text's copy is the
 * same command in a sandbox that has already run it (about a fifth of the help lines, some of the
 * slowest), so running it again would test nothing new.
 */
export function examplesSuite(): void {
    const seen = new Set<string>();
    beforeAll(prepareSandbox, 180_000);
    afterAll(() => {
        if (sandbox) rmSync(sandbox, { recursive: true, force: true });
    });
    describe("examples run as written", () => {
        it("README.md: every command line exits 0", () => {
            const fromReadme = readmeExamples();
            expect(fromReadme.length).toBeGreaterThan(10);
            const { failures, ran, wide } = runAll(fromReadme, seen);
            expect(failures).toEqual([]);
            expect(ran).toBeGreaterThan(20);
            // The width test: every table and message of the walkthrough fits 100 columns.
            expect(wide).toEqual([]);
        }, 900_000);

        it("every command's --help: every example exits 0", () => {
            const helps = helpTexts();
            const fromHelp = helps.flatMap((h) => helpExamples(h.name, h.text));
            // Every command has at least one example (the issue's "covers every command").
            const topLevel = helps.filter((h) => h.name.split(" ").length === 2);
            const withoutExamples = topLevel.filter((h) => !fromHelp.some((e) => new RegExp(`(^|[|;&] *)(npx )?${h.name}( |$)`).test(e.command)));
            expect(withoutExamples.map((h) => h.name)).toEqual([]);
            // Issue #47: `eddy --help` and every command with subcommands (audit, import, loop, mutate…) show examples of
            // their own, not only in their subcommands' help.
            const groups = helps.filter((h) => h.text.includes("\nCommands:\n"));
            expect(groups.filter((h) => helpExamples(h.name, h.text).length === 0).map((h) => h.name)).toEqual([]);
            expect(fromHelp.length).toBeGreaterThan(40);
            const { failures, ran } = runAll(fromHelp, seen);
            expect(failures).toEqual([]);
            expect(ran).toBeGreaterThan(40);
        }, 900_000);
    });
}
