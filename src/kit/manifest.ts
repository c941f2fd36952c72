import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { sha256File } from "../util/files.js";

// Node built-ins only: install.sh runs this module's checks from the kit before anything else works.

export const MANIFEST_NAME = "manifest.json";
export const KIT_FORMAT = "eddy-kit/1";

export interface ManifestFile {
    /** Relative to the kit's top folder, `/`-separated. */
    path: string;
    size: number;
    sha256: string;
}

export interface KitManifest {
    format: typeof KIT_FORMAT;
    eddy: string;
    created: string;
    /** OS-CPU and the node-llama-cpp builds carried. */
    target: { os: string; arch: string; llamaPlatforms: string[] };
    /** The Node that built the native addons: its ABI (`process.versions.modules`) decides reuse. */
    node: { version: string; modules: string; engines: string; headers: boolean };
    pythonMin: string;
    models: string[];
    files: ManifestFile[];
    bytes: number;
}

/** Every regular file under `dir`, relative and `/`-separated, sorted; links are refused (kits hold none). */
export function listFiles(dir: string, skip: (rel: string) => boolean = () => false): string[] {
    const out: string[] = [];
    const walk = (rel: string): void => {
        for (const name of readdirSync(path.join(dir, rel)).sort()) {
            const r = rel ? `${rel}/${name}` : name;
            if (skip(r)) continue;
            const st = lstatSync(path.join(dir, r));
            if (st.isDirectory()) walk(r);
            else if (st.isFile()) out.push(r);
            else throw new Error(`${r}: not a regular file or folder`);
        }
    };
    walk("");
    return out;
}

export async function hashFiles(dir: string, files: string[]): Promise<ManifestFile[]> {
    const out: ManifestFile[] = [];
    for (const f of files) out.push({ path: f, size: lstatSync(path.join(dir, f)).size, sha256: await sha256File(path.join(dir, f)) });
    return out;
}

export function parseManifest(text: string, where: string): KitManifest {
    let m: KitManifest;
    try {
        m = JSON.parse(text) as KitManifest;
    } catch {
        throw new Error(`${where}: ${MANIFEST_NAME} is not valid JSON`);
    }
    if (m?.format !== KIT_FORMAT || !Array.isArray(m.files)) throw new Error(`${where}: ${MANIFEST_NAME} is not an eddy kit manifest (${KIT_FORMAT})`);
    return m;
}

/** What is wrong with a kit, file by file; empty when every file matches the manifest. */
export interface KitProblem {
    path: string;
    problem: string;
}

/** Compare what was found (path → size, sha256) with the manifest: missing, changed and unlisted files. */
export function compareWithManifest(manifest: KitManifest, found: Map<string, { size: number; sha256: string }>): KitProblem[] {
    const problems: KitProblem[] = [];
    const listed = new Set<string>();
    for (const f of manifest.files) {
        listed.add(f.path);
        const got = found.get(f.path);
        if (!got) problems.push({ path: f.path, problem: "missing" });
        else if (got.size !== f.size) problems.push({ path: f.path, problem: `size ${got.size} bytes, manifest says ${f.size}` });
        else if (got.sha256 !== f.sha256) problems.push({ path: f.path, problem: "sha256 differs from the manifest" });
    }
    for (const p of found.keys()) if (!listed.has(p)) problems.push({ path: p, problem: "not in the manifest" });
    return problems;
}

/** Check an extracted kit folder against its manifest. */
export async function verifyDirectory(dir: string): Promise<{ manifest: KitManifest; problems: KitProblem[] }> {
    const mfile = path.join(dir, MANIFEST_NAME);
    if (!existsSync(mfile)) throw new Error(`${dir}: no ${MANIFEST_NAME}; not an extracted eddy kit`);
    const manifest = parseManifest(readFileSync(mfile, "utf8"), dir);
    const found = new Map<string, { size: number; sha256: string }>();
    for (const f of listFiles(dir, (r) => r === MANIFEST_NAME)) {
        const full = path.join(dir, f);
        found.set(f, { size: lstatSync(full).size, sha256: await sha256File(full) });
    }
    return { manifest, problems: compareWithManifest(manifest, found) };
}

/** One line for a refused kit: the first failing file, and how many more. */
export function describeProblems(problems: KitProblem[]): string {
    const [first] = problems;
    if (!first) return "ok";
    return `${first.path}: ${first.problem}${problems.length > 1 ? ` (and ${problems.length - 1} more file${problems.length > 2 ? "s" : ""})` : ""}`;
}
