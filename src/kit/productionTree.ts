import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { EddyError } from "../util/errors.js";
import { allows, type KitTarget } from "./platforms.js";

interface LockEntry {
    version?: string;
    dev?: boolean;
    devOptional?: boolean;
    optional?: boolean;
    os?: string[];
    cpu?: string[];
    libc?: string[];
    link?: boolean;
}

interface Lockfile {
    lockfileVersion: number;
    packages: Record<string, LockEntry>;
}

/** One package directory of the production tree, relative to the project root (`node_modules/…`). */
export interface TreePackage {
    dir: string;
    name: string;
    version: string;
}

const LLAMA_SCOPE = "node_modules/@node-llama-cpp/";

export function readLockfile(root: string): Lockfile {
    const file = path.join(root, "package-lock.json");
    if (!existsSync(file)) throw new EddyError(`kit: ${file} not found: build kits from a source checkout with its lockfile`);
    const lock = JSON.parse(readFileSync(file, "utf8")) as Lockfile;
    if (!lock.packages || lock.lockfileVersion < 2) throw new EddyError(`kit: ${file} is lockfile version ${lock.lockfileVersion}; npm 7+ lockfiles (v2/v3) are needed`);
    return lock;
}

/** The node-llama-cpp prebuilt packages the lockfile knows (the registry's offer when it was written). */
export function llamaPlatformsInLock(lock: Lockfile): string[] {
    return Object.keys(lock.packages)
        .filter((k) => k.startsWith(LLAMA_SCOPE) && !k.slice(LLAMA_SCOPE.length).includes("/"))
        .map((k) => k.slice(LLAMA_SCOPE.length))
        .sort();
}

function packageName(dir: string): string {
    const i = dir.lastIndexOf("node_modules/");
    return dir.slice(i + "node_modules/".length);
}

/**
 * The locked production dependencies the target needs: no dev dependencies, no package whose
 * `os`/`cpu`/`libc` excludes the target, and of node-llama-cpp's prebuilt builds only the ones named.
 * Each must be installed here (`node_modules` is the source of the kit's files).
 */
export function productionPackages(root: string, lock: Lockfile, target: KitTarget): TreePackage[] {
    const out: TreePackage[] = [];
    const absent: string[] = [];
    for (const [dir, e] of Object.entries(lock.packages)) {
        if (dir === "" || e.dev || e.devOptional || e.link) continue;
        if (dir.startsWith(LLAMA_SCOPE) && !target.llamaPlatforms.includes(dir.slice(LLAMA_SCOPE.length))) continue;
        if (!allows(e.os, target.os) || !allows(e.cpu, target.arch) || !allows(e.libc, "glibc")) continue;
        const wanted = !e.optional || dir.startsWith(LLAMA_SCOPE);
        if (!existsSync(path.join(root, dir, "package.json"))) {
            // An optional package for this target that npm skipped here (platform packages of other
            // libcs, wasm fallbacks) is left out the same way npm would leave it out on the target.
            if (wanted) absent.push(dir);
            continue;
        }
        out.push({ dir, name: packageName(dir), version: e.version ?? "?" });
    }
    if (absent.length)
        throw new EddyError(`kit: not installed here, so it cannot be packed: ${absent.slice(0, 5).join(", ")}${absent.length > 5 ? ` and ${absent.length - 5} more` : ""} (run npm install)`);
    return out.sort((a, b) => a.dir.localeCompare(b.dir));
}

/**
 * Files a target never uses, by package (relative path inside the package, `/`-separated). Each rule
 * says why it is safe; everything else is kept byte for byte.
 */
export function pruned(pkg: string, rel: string, target: KitTarget): boolean {
    // Source maps are for debugging only (~45 MB here); nothing loads them at run time.
    if (rel.endsWith(".map")) return true;
    // Nested dependencies are packed as packages of their own; `.bin` holds links for npm scripts.
    if (rel === "node_modules" || rel.startsWith("node_modules/")) return true;
    if (pkg === "onnxruntime-node") {
        // bin/napi-v6/<os>/<arch>/: keep only the target's native runtime (the others are ~200 MB).
        const m = /^bin\/napi-v\d+\/([^/]+)(?:\/([^/]+))?/.exec(rel);
        if (m && (m[1] !== target.os || (m[2] !== undefined && m[2] !== target.arch))) return true;
    }
    // A git bundle of llama.cpp's source, only used to build llama.cpp from source, which needs cmake
    // downloads anyway; offline machines use the prebuilt @node-llama-cpp/* binaries.
    if (pkg === "node-llama-cpp" && rel === "llama/gitRelease.bundle") return true;
    if (pkg === "better-sqlite3" && rel.startsWith("build/")) {
        // Keep the addon and drop compiler intermediates; deps/, src/ and binding.gyp stay so that
        // install.sh can compile it offline when the target's Node ABI differs.
        return !(rel === "build" || rel === "build/Release" || rel === "build/Release/better_sqlite3.node");
    }
    return false;
}
