import { createHash } from "node:crypto";
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { EddyError } from "../../util/errors.js";
import { packageRoot } from "../../util/paths.js";

/** The llama.cpp programs eddy runs itself, built by scripts/build-llama-tools.sh from the source node-llama-cpp ships. */
export type LlamaToolName = "llama-server" | "llama-quantize" | "llama-imatrix";

/** A tool found on this machine, with the llama.cpp it was built from. */
export interface LlamaTool {
    /** Absolute path of the binary. */
    path: string;
    /** llama.cpp release (node-llama-cpp's tag), e.g. v0.5.0. */
    release: string;
    /** llama.cpp commit the tools were built from, when the folder records it. */
    commit: string | null;
}

/** The llama.cpp release node-llama-cpp's binaries (and its bundled source) are. */
export function llamaCppRelease(): string {
    // node-llama-cpp's entry is <package>/dist/index.js; its `exports` do not name package.json
    const dir = path.join(path.dirname(path.dirname(fileURLToPath(import.meta.resolve("node-llama-cpp")))), "llama");
    return String(JSON.parse(readFileSync(path.join(dir, "binariesGithubRelease.json"), "utf8")).release);
}

/** The same 12 hex digits scripts/build-llama-tools.sh writes to cpu-flags: sha256 of /proc/cpuinfo's first flags line (or the machine name). */
export function cpuFlagsDigest(): string {
    let line: string | undefined;
    try {
        line = readFileSync("/proc/cpuinfo", "utf8").split("\n").find((l) => l.startsWith("flags"));
    } catch {
        line = undefined;
    }
    return createHash("sha256").update(`${line ?? os.machine()}\n`).digest("hex").slice(0, 12);
}

/** The cache folder the build script writes (EDDY_LLAMA_TOOLS_CACHE or ~/.cache/eddy/llama-tools), per release. */
export function llamaToolsCacheDir(env: NodeJS.ProcessEnv = process.env, release = llamaCppRelease()): string {
    const root = env.EDDY_LLAMA_TOOLS_CACHE ?? path.join(env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "eddy", "llama-tools");
    return path.join(root, release);
}

/** The command that builds the tools, as a person would type it. */
export function buildToolsCommand(): string {
    return `${path.join(packageRoot(), "scripts", "build-llama-tools.sh")}`;
}

function executable(p: string): boolean {
    try {
        accessSync(p, constants.X_OK);
        return true;
    } catch {
        return false;
    }
}

/**
 * Where a tool is, or why not. Looked for, in order: EDDY_LLAMA_TOOLS (a folder holding the binaries, e.g. the
 * kit's `llama-tools/` after install), the build script's cache for this llama.cpp release (only when built for
 * this CPU's flags), and the `llama-tools/` folder in eddy's own package (where the air-gapped kit installs them).
 */
export function findLlamaTool(name: LlamaToolName, env: NodeJS.ProcessEnv = process.env): LlamaTool | { missing: string } {
    const release = llamaCppRelease();
    const read = (dir: string, file: string) => {
        try {
            return readFileSync(path.join(dir, file), "utf8").trim() || null;
        } catch {
            return null;
        }
    };
    const candidates: { dir: string; checkCpu: boolean }[] = [];
    // `env` is process.env (process.env.EDDY_LLAMA_TOOLS, process.env.EDDY_LLAMA_TOOLS_CACHE) unless a test passes its own
    if (env.EDDY_LLAMA_TOOLS) candidates.push({ dir: path.resolve(env.EDDY_LLAMA_TOOLS), checkCpu: false });
    candidates.push({ dir: llamaToolsCacheDir(env, release), checkCpu: true });
    candidates.push({ dir: path.join(packageRoot(), "llama-tools"), checkCpu: false });
    let stale: string | undefined;
    for (const { dir, checkCpu } of candidates) {
        const bin = path.join(dir, name);
        if (!existsSync(bin) || !executable(bin)) continue;
        if (checkCpu && read(dir, "cpu-flags") !== cpuFlagsDigest()) {
            stale = dir;
            continue;
        }
        const builtFor = read(dir, "release");
        if (builtFor && builtFor !== release) {
            stale = dir;
            continue;
        }
        return { path: bin, release, commit: read(dir, "commit") };
    }
    const why = stale ? `the ${name} in ${stale} was built for another CPU or llama.cpp release` : `${name} is not built on this machine`;
    return { missing: `${why}: build it (llama.cpp ${release}, from the source node-llama-cpp ships; minutes, once) with ${buildToolsCommand()}` };
}

/** A tool's path, or an EddyError whose one line names the command that provides it. */
export function requireLlamaTool(name: LlamaToolName, env: NodeJS.ProcessEnv = process.env): LlamaTool {
    const found = findLlamaTool(name, env);
    if ("missing" in found) throw new EddyError(found.missing);
    return found;
}
