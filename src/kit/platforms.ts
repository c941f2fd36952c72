import { EddyError } from "../util/errors.js";

/** A kit's target: one OS and CPU (one node_modules tree) and the llama.cpp builds it carries. */
export interface KitTarget {
    os: string;
    arch: string;
    /** node-llama-cpp prebuilt packages (`@node-llama-cpp/<name>`), the plain CPU build first. */
    llamaPlatforms: string[];
    /** The name used in the archive's file name, e.g. `linux-x64` or `linux-x64+cuda`. */
    label: string;
}

/** Node's names for the CPU architectures in node-llama-cpp's package names. */
const ARCH_ALIASES: Record<string, string> = { armv7l: "arm" };

/**
 * Parse `--platform linux-x64[,linux-x64-cuda,…]`. Every name is a node-llama-cpp prebuilt package
 * the lockfile knows (`available`), and all of them must share one OS and CPU: a kit is one tree.
 */
export function parsePlatforms(spec: string, available: string[]): KitTarget {
    const names = [...new Set(spec.split(",").map((s) => s.trim()).filter(Boolean))];
    if (names.length === 0) throw new EddyError("kit: --platform is empty");
    for (const n of names)
        if (!available.includes(n))
            throw new EddyError(`kit: unknown platform ${JSON.stringify(n)}; this registry offers llama.cpp builds for: ${available.join(", ")}`);
    const [os, rawArch] = names[0]!.split("-");
    const base = `${os}-${rawArch}`;
    for (const n of names)
        if (n !== base && !n.startsWith(base + "-"))
            throw new EddyError(`kit: ${n} and ${names[0]} are for different machines; build one kit per OS and CPU`);
    if (!available.includes(base)) throw new EddyError(`kit: no plain CPU llama.cpp build ${base} to fall back on`);
    // The plain CPU build is always carried: node-llama-cpp falls back on it when a GPU is absent.
    const llamaPlatforms = [base, ...names.filter((n) => n !== base)];
    const label = [base, ...llamaPlatforms.slice(1).map((n) => n.slice(base.length + 1))].join("+");
    return { os: os!, arch: ARCH_ALIASES[rawArch!] ?? rawArch!, llamaPlatforms, label };
}

/** This machine's platform name in node-llama-cpp's spelling. */
export function hostPlatform(): string {
    const arch = process.arch === "arm" ? "armv7l" : process.arch;
    return `${process.platform}-${arch}`;
}

/** npm's rule for a package's `os`/`cpu`/`libc` list: allowed names, or `!name` for excluded ones. */
export function allows(list: string[] | undefined, value: string): boolean {
    if (!list || list.length === 0) return true;
    if (list.includes("!" + value)) return false;
    const positive = list.filter((x) => !x.startsWith("!"));
    return positive.length === 0 || positive.includes(value);
}
