import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { create } from "tar";
import { assertGgufFile } from "../inference/gguf/inspectGguf.js";
import { EddyError, oneLine } from "../util/errors.js";
import { packageRoot } from "../util/paths.js";
import { minPython } from "../judge/worker/PythonWorker.js";
import { hashFiles, KIT_FORMAT, listFiles, MANIFEST_NAME, type KitManifest } from "./manifest.js";
import { sha256File } from "../util/files.js";
import { hostPlatform, parsePlatforms, type KitTarget } from "./platforms.js";
import { llamaPlatformsInLock, productionPackages, pruned, readLockfile } from "./productionTree.js";

/** The judge's oldest supported Python (standard library only). */
/** The oldest Python the kit's judge runs on: eddy_judge/__init__.py's, stated once there. */
export const PYTHON_MIN = minPython();

export interface KitOptions {
    /** Archive path; default `eddy-kit-<version>-<platform>.tgz` in the current folder. */
    out?: string;
    /** Comma-separated node-llama-cpp platform names; default this machine's CPU build. */
    platform?: string;
    models?: string[];
    /**
     * Carry llama.cpp's llama-quantize, llama-imatrix and llama-server as scripts/build-llama-tools.sh built them here
     * (into eddy/llama-tools/, where eddy looks after its cache), for a lab machine without a compiler. They are built
     * for this machine's CPU (GGML_NATIVE): carry them to a machine with the same CPU.
     */
    llamaTools?: boolean;
    /** gzip level (1 fastest … 9 smallest); default 6. */
    gzipLevel?: number;
    onLog?: (line: string) => void;
}

export interface KitResult {
    archive: string;
    folder: string;
    target: KitTarget;
    archiveBytes: number;
    archiveSha256: string;
    unpackedBytes: number;
    files: number;
    /** Bytes of the locked production tree for this target before pruning (what pruning saved). */
    unprunedTreeBytes: number;
    treeBytes: number;
    nodeHeaders: boolean;
}

/** `>=20`, `>=20.6.0`, `^20 || >=22`: the lowest version the range allows (its first lower bound). */
export function engineMinimum(range: string | undefined): string {
    const m = /(?:>=|\^|~|^)\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec((range ?? "").trim());
    if (!m) throw new EddyError(`kit: cannot read a minimum Node version from engines.node ${JSON.stringify(range)}`);
    return `${m[1]}.${m[2] ?? 0}.${m[3] ?? 0}`;
}

/** eddy's own files, exactly as `npm pack` would publish them (package.json `files`), plus the judge. */
function eddyFiles(root: string): string[] {
    let out: string;
    try {
        out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 });
    } catch (err) {
        throw new EddyError(`kit: npm pack --dry-run failed: ${oneLine(err)}`);
    }
    const files = new Set((JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path));
    // The Python judge runs from src/judge/python, and reads the language registry in src/languages, whatever `files` says.
    for (const dir of ["src/judge/python", "src/languages"]) for (const f of listFiles(path.join(root, dir), (r) => r.includes("__pycache__"))) files.add(`${dir}/${f}`);
    return [...files].filter((f) => !f.endsWith(".map") && !f.includes("__pycache__/")).sort();
}

/**
 * The judge's sandbox (bubblewrap) for lab machines that lack it: this machine's `bwrap` and the
 * shared libraries it needs beyond the C library, when the kit targets this machine's OS and CPU.
 * install.sh uses it only where no `bwrap` is installed. Returns whether one was carried.
 */
function carryBubblewrap(kit: string, target: KitTarget, log: (line: string) => void): boolean {
    if (target.os !== "linux" || target.arch !== process.arch) return false;
    let bin: string;
    let libs: string[];
    try {
        bin = execFileSync("sh", ["-c", "command -v bwrap"], { encoding: "utf8" }).trim();
        const ldd = execFileSync("ldd", [bin], { encoding: "utf8" });
        // "libcap.so.2 => /lib/x86_64-linux-gnu/libcap.so.2 (0x…)": the C library and the loader stay the target's own.
        libs = [...ldd.matchAll(/=>\s+(\S+)\s+\(/g)].map((m) => m[1]!).filter((l) => !/\/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*)\.so/.test(l));
    } catch {
        log("no bubblewrap (bwrap) here to carry: the lab machine must have its own (package 'bubblewrap')");
        return false;
    }
    mkdirSync(path.join(kit, "bubblewrap", "lib"), { recursive: true });
    copyFileSync(bin, path.join(kit, "bubblewrap", "bwrap"));
    chmodSync(path.join(kit, "bubblewrap", "bwrap"), 0o755);
    for (const l of libs) copyFileSync(l, path.join(kit, "bubblewrap", "lib", path.basename(l)));
    log(`carrying bubblewrap (${bin}) and ${libs.length} librar${libs.length === 1 ? "y" : "ies"} for machines without one`);
    return true;
}

/** Node headers for offline addon builds: npm's `nodedir`, else the headers beside this node binary. */
function findNodeHeaders(): string | undefined {
    const candidates: string[] = [];
    try {
        const dir = execFileSync("npm", ["config", "get", "nodedir"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
        if (dir && dir !== "undefined" && dir !== "null") candidates.push(dir);
    } catch {
        // npm missing or broken: the other candidates still apply.
    }
    candidates.push(path.resolve(path.dirname(process.execPath), ".."));
    for (const dir of candidates) {
        const h = path.join(dir, "include", "node", "node_version.h");
        if (!existsSync(h)) continue;
        const text = readFileSync(h, "utf8");
        const v = ["MAJOR", "MINOR", "PATCH"].map((k) => new RegExp(`#define NODE_${k}_VERSION (\\d+)`).exec(text)?.[1]).join(".");
        if (v === process.versions.node) return path.join(dir, "include", "node");
    }
    return undefined;
}

function dirBytes(dir: string, skip?: (rel: string) => boolean): number {
    return listFiles(dir, skip).reduce((s, f) => s + statSync(path.join(dir, f)).size, 0);
}

/**
 * Mirror `from` into `to` minus what `skip` names. Files are hard-linked where the file system
 * allows (the stage is read, never written, so sharing inodes is safe and saves copying ~300 MB),
 * copied otherwise; symbolic links are followed.
 */
function placeTree(from: string, to: string, skip: (rel: string) => boolean, linked: Set<string>): void {
    let link = true;
    const walk = (rel: string): void => {
        mkdirSync(path.join(to, rel), { recursive: true });
        for (const name of readdirSync(path.join(from, rel))) {
            const r = rel ? `${rel}/${name}` : name;
            if (skip(r)) continue;
            const src = path.join(from, r);
            const st = statSync(src);
            if (st.isDirectory()) walk(r);
            else if (st.isFile()) {
                // One inode twice in the stage would be archived as a tar hard link: copy repeats.
                const id = `${st.dev}:${st.ino}`;
                if (link && !linked.has(id)) {
                    linked.add(id);
                    try {
                        linkSync(src, path.join(to, r));
                        continue;
                    } catch {
                        link = false;
                    }
                }
                copyFileSync(src, path.join(to, r));
            }
        }
    };
    walk("");
}

/**
 * Build an install kit: eddy as published, its production dependencies as installed here and
 * pruned for the target, Node headers, optional models, install.sh and a sha256 manifest.
 */
export async function buildKit(opts: KitOptions = {}): Promise<KitResult> {
    const t0 = Date.now();
    const log = (line: string): void => opts.onLog?.(`${((Date.now() - t0) / 1000).toFixed(1)}s ${line}`);
    const root = packageRoot();
    if (!existsSync(path.join(root, "dist", "cli", "bin.js"))) throw new EddyError(`kit: ${root}/dist is not built; run npm run build first`);
    const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string; engines?: { node?: string } };
    const lock = readLockfile(root);
    const target = parsePlatforms(opts.platform ?? hostPlatform(), llamaPlatformsInLock(lock));
    if (target.os !== process.platform || target.arch !== process.arch)
        throw new EddyError(`kit: native addons here are built for ${process.platform}-${process.arch}; build the ${target.label} kit on a ${target.os}-${target.arch} machine`);
    const nodeMin = engineMinimum(pkg.engines?.node);
    const models = (opts.models ?? []).map((m) => path.resolve(m));
    for (const m of models) assertGgufFile(m);
    const modelNames = models.map((m) => path.basename(m));
    if (new Set(modelNames).size !== modelNames.length) throw new EddyError("kit: two --models files share a name");
    const level = opts.gzipLevel ?? 6;
    if (!Number.isInteger(level) || level < 1 || level > 9) throw new EddyError(`kit: gzip level must be 1…9, got ${level}`);

    const name = `eddy-kit-${pkg.version}-${target.label}`;
    const archive = path.resolve(opts.out ?? `${name}.tgz`);
    mkdirSync(path.dirname(archive), { recursive: true });
    const stage = mkdtempSync(path.join(path.dirname(archive), ".eddy-kit-"));
    try {
        const kit = path.join(stage, name);
        const app = path.join(kit, "eddy");
        log(`eddy files (npm pack's list)`);
        for (const f of eddyFiles(root)) {
            mkdirSync(path.dirname(path.join(app, f)), { recursive: true });
            copyFileSync(path.join(root, f), path.join(app, f));
        }
        const packages = productionPackages(root, lock, target);
        log(`${packages.length} production packages for ${target.label}`);
        let unprunedTreeBytes = 0;
        const linked = new Set<string>();
        for (const p of packages) {
            const from = path.join(root, p.dir);
            unprunedTreeBytes += dirBytes(from, (r) => r === "node_modules" || r.startsWith("node_modules/"));
            placeTree(from, path.join(app, p.dir), (rel) => pruned(p.name, rel, target), linked);
        }
        if (!existsSync(path.join(app, "node_modules/better-sqlite3/build/Release/better_sqlite3.node")))
            throw new EddyError("kit: better-sqlite3 is not built here (node_modules/better-sqlite3/build/Release); run npm install");
        const treeBytes = dirBytes(path.join(app, "node_modules"));

        const headers = findNodeHeaders();
        if (headers) {
            // OpenSSL's headers are half the size and no addon eddy uses includes them.
            cpSync(headers, path.join(kit, "node-headers", "include", "node"), { recursive: true, dereference: true, filter: (src) => path.relative(headers, src).split(path.sep)[0] !== "openssl" });
        } else log(`no Node ${process.versions.node} headers found (npm config nodedir): a target with another Node ABI cannot compile better-sqlite3 offline`);

        carryBubblewrap(kit, target, log);

        for (const m of models) {
            mkdirSync(path.join(kit, "models"), { recursive: true });
            copyFileSync(m, path.join(kit, "models", path.basename(m)));
        }

        if (opts.llamaTools) {
            const { findLlamaTool } = await import("../quant/make/llamaTools.js");
            const tools = path.join(app, "llama-tools");
            mkdirSync(tools, { recursive: true });
            for (const name of ["llama-quantize", "llama-imatrix", "llama-server"] as const) {
                const found = findLlamaTool(name);
                if ("missing" in found) throw new EddyError(`kit: --llama-tools: ${found.missing}`);
                copyFileSync(found.path, path.join(tools, name));
                chmodSync(path.join(tools, name), 0o755);
                for (const f of ["commit", "release"]) if (existsSync(path.join(path.dirname(found.path), f))) copyFileSync(path.join(path.dirname(found.path), f), path.join(tools, f));
            }
            log("llama.cpp's llama-quantize, llama-imatrix and llama-server (built for this CPU)");
        }

        const script = readFileSync(path.join(root, "src", "kit", "install.sh"), "utf8")
            .replaceAll("@EDDY_VERSION@", pkg.version)
            .replaceAll("@TARGET@", `${target.os}-${process.arch}`)
            .replaceAll("@NODE_MIN@", nodeMin)
            .replaceAll("@PYTHON_MIN@", PYTHON_MIN)
            .replaceAll("@NODE_VERSION@", process.versions.node)
            .replaceAll("@NODE_ABI@", process.versions.modules);
        writeFileSync(path.join(kit, "install.sh"), script);
        chmodSync(path.join(kit, "install.sh"), 0o755);

        log("hashing");
        const files = await hashFiles(kit, listFiles(kit));
        const manifest: KitManifest = {
            format: KIT_FORMAT,
            eddy: pkg.version,
            created: new Date().toISOString(),
            target: { os: target.os, arch: target.arch, llamaPlatforms: target.llamaPlatforms },
            node: { version: process.versions.node, modules: process.versions.modules, engines: pkg.engines?.node ?? "", headers: headers !== undefined },
            pythonMin: PYTHON_MIN,
            models: modelNames,
            files,
            bytes: files.reduce((s, f) => s + f.size, 0)
        };
        writeFileSync(path.join(kit, MANIFEST_NAME), JSON.stringify(manifest, null, 1) + "\n");

        log(`archiving ${(manifest.bytes / 1e6).toFixed(0)} MB (gzip level ${level})`);
        // manifest.json first, so that readers meet it before the files it describes.
        const manifestEntry = `${name}/${MANIFEST_NAME}`;
        let manifestPacked = false;
        const once = (p: string): boolean => p !== manifestEntry || (manifestPacked ? false : (manifestPacked = true));
        // Written under another name first: an interrupted build never leaves a plausible-looking kit.
        const partial = archive + ".partial";
        await create({ file: partial, cwd: stage, gzip: { level }, portable: true, filter: once }, [manifestEntry, name]);
        renameSync(partial, archive);
        return {
            archive,
            folder: name,
            target,
            archiveBytes: statSync(archive).size,
            archiveSha256: await sha256File(archive),
            unpackedBytes: manifest.bytes,
            files: files.length,
            unprunedTreeBytes,
            treeBytes,
            nodeHeaders: headers !== undefined
        };
    } finally {
        rmSync(stage, { recursive: true, force: true });
    }
}
