import { execFileSync, spawnSync, type SpawnSyncReturns } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listFiles, type KitManifest } from "../../src/kit/manifest.js";
import { unwrapMessages } from "../support/messages.js";

/**
 * The install kit for real: built from the current tree by the built CLI, checked, then installed
 * from the archive alone inside a network namespace with no network, an empty npm cache and an
 * empty HOME, where `eddy demo` must run to completion.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "dist", "cli", "bin.js");
const work = mkdtempSync(path.join(tmpdir(), "eddy-kit-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): SpawnSyncReturns<string> {
    return spawnSync(cmd, args, { encoding: "utf8", cwd: opts.cwd ?? work, env: opts.env ?? process.env, maxBuffer: 64 << 20 });
}

/** How to enter a network namespace with no network here: as root, or as a mapped root in a user namespace. */
function netnsPrefix(): string[] | undefined {
    for (const flags of [["-n"], ["-r", "-n"]]) if (run("unshare", [...flags, "true"]).status === 0) return ["unshare", ...flags, "--"];
    return undefined;
}
const netns = netnsPrefix();
if (!netns) console.warn("SKIPPED: kit offline install test: network namespaces (unshare -n) are not available here");

let archive = "";
let folder = "";

beforeAll(() => {
    const started = Date.now();
    // gzip level 1: the suite's time goes to the install path, which is what is tested.
    // A model to carry: a copy of eddy's tiny model under a name of its own.
    copyFileSync(path.join(root, "models", "eddy-tiny-q4_0.gguf"), path.join(work, "carried.gguf"));
    const r = run(process.execPath, [bin, "kit", "--out", path.join(work, "eddy-kit.tgz"), "--gzip-level", "1", "--models", path.join(work, "carried.gguf"), "--json"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const result = JSON.parse(r.stdout) as { archive: string; folder: string; archiveBytes: number };
    archive = result.archive;
    folder = result.folder;
    console.log(`kit built in ${((Date.now() - started) / 1000).toFixed(1)} s: ${(result.archiveBytes / 1e6).toFixed(1)} MB`);
}, 600_000);

/** A copy of the archive with one byte changed at `at` (a fraction of its size). */
function tamperedCopy(name: string, at: number): string {
    const file = path.join(work, name);
    copyFileSync(archive, file);
    const fd = openSync(file, "r+");
    try {
        const pos = Math.floor(statSync(file).size * at);
        const b = Buffer.alloc(1);
        readSync(fd, b, 0, 1, pos);
        b[0] = b[0]! ^ 0xff;
        writeSync(fd, b, 0, 1, pos);
    } finally {
        closeSync(fd);
    }
    return file;
}

describe("eddy kit", () => {
    it("verifies the kit it built", () => {
        const r = run(process.execPath, [bin, "kit", "verify", archive]);
        expect(r.status).toBe(0);
        expect(r.stdout).toMatch(/^ok: .*eddy-kit\.tgz: \d+ files match the manifest \(eddy \d+\.\d+\.\d+, linux-x64, llama\.cpp linux-x64,/);
    });

    it("refuses the archive with one byte changed, naming where it failed", () => {
        const r = run(process.execPath, [bin, "kit", "verify", tamperedCopy("flipped.tgz", 0.4)]);
        expect(r.status).not.toBe(0);
        expect(r.stdout).toBe("");
        expect(unwrapMessages(r.stderr)).toMatch(/^eddy: kit verify: .*flipped\.tgz refused: \S+/);
        rmSync(path.join(work, "flipped.tgz"));
    });

    it("refuses the archive truncated", () => {
        const file = path.join(work, "truncated.tgz");
        copyFileSync(archive, file);
        truncateSync(file, Math.floor(statSync(file).size / 3));
        const r = run(process.execPath, [bin, "kit", "verify", file]);
        expect(r.status).not.toBe(0);
        expect(unwrapMessages(r.stderr)).toMatch(/^eddy: kit verify: .*truncated\.tgz refused: .*truncated or corrupt/);
        rmSync(file);
    });
});

describe.skipIf(!netns)("installing from the kit with no network", () => {
    const offline = path.join(work, "offline");
    const kitDir = () => path.join(offline, folder);

    it("installs from the archive alone and runs eddy demo to completion", () => {
        for (const d of ["home", "npm-cache", "lab"]) mkdirSync(path.join(offline, d), { recursive: true });
        // python3 by its real path: version managers' shims look under HOME, which is empty here.
        const python = execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();
        const env = {
            PATH: [path.dirname(python), path.dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(":"),
            HOME: path.join(offline, "home"),
            npm_config_cache: path.join(offline, "npm-cache"),
            LANG: "C.UTF-8"
        };
        const script = [
            "set -e",
            // The namespace really has no network: a connection fails before any packet leaves.
            `node -e 'require("net").connect(53, "1.1.1.1").on("error", (e) => { console.log("network: " + e.code); }).on("connect", () => process.exit(9))'`,
            `tar xzf ${JSON.stringify(archive)}`,
            `./${folder}/install.sh --prefix ${JSON.stringify(path.join(offline, "prefix"))}`,
            "cd lab",
            // The demo's own templates (one per problem group), at 2 instances and 1 round: what is tested is that it runs, not how much.
            `${JSON.stringify(path.join(offline, "prefix", "bin", "eddy"))} demo --instances 2 --rounds 1 --db ${JSON.stringify(path.join(offline, "lab", "demo.db"))}`,
            `${JSON.stringify(path.join(offline, "prefix", "bin", "eddy"))} models list`
        ].join("\n");
        const started = Date.now();
        const r = run(netns![0]!, [...netns!.slice(1), "env", "-i", ...Object.entries(env).map(([k, v]) => `${k}=${v}`), "sh", "-c", script], { cwd: offline });
        console.log(`offline extract + install + doctor + demo: ${((Date.now() - started) / 1000).toFixed(1)} s`);
        if (r.status !== 0) console.error(r.stdout.slice(-4000), r.stderr.slice(-4000));
        expect(r.status).toBe(0);
        expect(r.stdout).toMatch(/^network: (ENETUNREACH|EHOSTUNREACH|ECONNREFUSED|EACCES)/m);
        // install.sh: verified, installed, then eddy doctor.
        expect(unwrapMessages(r.stderr)).toMatch(/^kit: \d+ files match manifest\.json/m);
        expect(r.stdout).toContain(`eddy ${JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).version} installed in ${path.join(offline, "prefix")}`);
        expect(r.stdout).toMatch(/^judge isolation +\S+/m);
        expect(r.stdout).toMatch(/^llama\.cpp +v\S+ via node-llama-cpp \d/m);
        // eddy demo: the reference backend scores a perfect row, and the report is written.
        expect(r.stdout).toMatch(/^[\s│]*reference t=0\b.*\b1\.0+\b.*\b1\.0+\b.*\b1\.0+\b/m);
        expect(r.stdout).toContain(`database: ${path.join(offline, "lab", "demo.db")}`);
        expect(existsSync(path.join(offline, "lab", "reports", "demo.html"))).toBe(true);
        // The carried model is installed where the installed eddy looks for models.
        expect(r.stdout).toMatch(/^\W*carried\.gguf\b.*\bllama\b/m);
        // Nothing came from (or went into) npm's cache.
        expect(readdirSync(path.join(offline, "npm-cache"))).toEqual([]);
    }, 600_000);

    it("carries the target's binaries only, and no dev dependencies", () => {
        const m = JSON.parse(readFileSync(path.join(kitDir(), "manifest.json"), "utf8")) as KitManifest;
        const paths = new Set(m.files.map((f) => f.path));
        for (const p of ["install.sh", "eddy/dist/cli/bin.js", "models/carried.gguf", "eddy/templates/list_every_kth.yaml", "eddy/oracles/list_every_kth.py", "eddy/node_modules/better-sqlite3/build/Release/better_sqlite3.node", "node-headers/include/node/node_version.h"])
            expect(paths, p).toContain(p);
        // The Python judge, whole, as it is in the tree now, and the language registry it reads.
        for (const dir of ["src/judge/python", "src/languages"]) for (const f of listFiles(path.join(root, dir), (r) => r.includes("__pycache__"))) expect(paths).toContain(`eddy/${dir}/${f}`);
        const all = [...paths];
        expect(all.some((p) => p.startsWith("eddy/node_modules/@node-llama-cpp/linux-x64/bins/"))).toBe(true);
        expect(all.some((p) => p.startsWith("eddy/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/"))).toBe(true);
        for (const absent of ["eddy/node_modules/@node-llama-cpp/linux-x64-cuda/", "eddy/node_modules/onnxruntime-node/bin/napi-v6/darwin/", "eddy/node_modules/onnxruntime-node/bin/napi-v6/win32/", "eddy/node_modules/vitest/", "eddy/node_modules/typescript/"])
            expect(all.filter((p) => p.startsWith(absent)), absent).toEqual([]);
        expect(m.node.modules).toBe(process.versions.modules);
    });

    it("says what the machine lacks, one line each, and installs nothing", () => {
        // A PATH with the tools install.sh uses and a real node, but no python3, compiler or make.
        const tools = path.join(offline, "tools");
        mkdirSync(tools, { recursive: true });
        for (const t of ["sh", "dirname", "sed", "head", "cat", "cp", "mkdir", "rm", "mv", "chmod", "readlink"]) {
            const where = run("sh", ["-c", `command -v ${t}`]).stdout.trim();
            if (where) symlinkSync(where, path.join(tools, t));
        }
        symlinkSync(process.execPath, path.join(tools, "node"));
        const prefix = path.join(offline, "prefix-lacking");
        const r = run(path.join(tools, "sh"), [path.join(kitDir(), "install.sh"), "--prefix", prefix], { env: { PATH: tools, HOME: offline } });
        expect(r.status).toBe(1);
        expect(unwrapMessages(r.stderr).split("\n").filter((l) => l.startsWith("missing: "))).toEqual(["missing: python3 >= 3.11 on PATH for the judge (not found)"]);
        expect(unwrapMessages(r.stderr)).toContain("install.sh: 1 missing prerequisite(s); nothing was installed");
        expect(existsSync(prefix)).toBe(false);

        // Too old: a node and a python3 that report old versions.
        const old = path.join(offline, "old");
        mkdirSync(old, { recursive: true });
        writeFileSync(path.join(old, "node"), '#!/bin/sh\n[ "$1" = "-p" ] && { echo "18.19.0 linux-x64 108"; exit 0; }\nexit 1\n');
        writeFileSync(path.join(old, "python3"), '#!/bin/sh\n[ "$1" = "--version" ] && { echo "Python 3.8.10"; exit 0; }\nexit 1\n');
        chmodSync(path.join(old, "node"), 0o755);
        chmodSync(path.join(old, "python3"), 0o755);
        const o = run(path.join(tools, "sh"), [path.join(kitDir(), "install.sh"), "--prefix", prefix], { env: { PATH: `${old}:${tools}`, HOME: offline } });
        expect(o.status).toBe(1);
        expect(unwrapMessages(o.stderr).split("\n").filter((l) => l.startsWith("missing: "))).toEqual([
            "missing: node >= 20.0.0 (found 18.19.0)",
            "missing: python3 >= 3.11 for the judge (found Python 3.8.10)"
        ]);
        expect(existsSync(prefix)).toBe(false);
    });

    it("refuses a kit folder with one byte changed, naming the file, before installing anything", () => {
        const file = path.join(kitDir(), "eddy", "dist", "cli", "bin.js");
        const text = readFileSync(file);
        text[text.length - 2] = text[text.length - 2]! ^ 0x01;
        writeFileSync(file, text);
        const prefix = path.join(offline, "prefix-damaged");
        const r = run("sh", [path.join(kitDir(), "install.sh"), "--prefix", prefix]);
        expect(r.status).toBe(3);
        expect(unwrapMessages(r.stderr)).toContain("eddy: kit refused: eddy/dist/cli/bin.js: sha256 differs from the manifest");
        expect(unwrapMessages(r.stderr)).toContain("nothing was installed");
        expect(existsSync(prefix)).toBe(false);
        const v = run(process.execPath, [bin, "kit", "verify", kitDir()]);
        expect(v.status).not.toBe(0);
        expect(unwrapMessages(v.stderr)).toMatch(/refused: eddy\/dist\/cli\/bin\.js: sha256 differs/);
    });
});
