import { createHash } from "node:crypto";
import { z } from "zod";
import type { JudgeEnvironment } from "./types.js";

/**
 * The judge's Python environment (eddy_judge/environment.py): which interpreter judges and which
 * third-party packages it offers answers. Verdicts depend on it (an answer that imports numpy
 * passes with it and fails without it), so it is recorded with every run, keys the verdict cache,
 * and is part of a queued study's identity (src/queue/judgeRuntime.ts).
 */

// Typed against JudgeEnvironment (types.ts): what the worker's hello and the environment tool say.
export const judgeEnvironment: z.ZodType<JudgeEnvironment> = z.object({
    executable: z.string(),
    version: z.string(),
    implementation: z.string(),
    sitePackages: z.array(z.string()),
    packages: z.record(z.string(), z.string())
});

/** The environment in `value` (the environment tool's output, a run's record), or the first problem with it. */
export function parseEnvironment(value: unknown): JudgeEnvironment | string {
    const r = judgeEnvironment.safeParse(value);
    return r.success ? r.data : `${r.error.issues[0]?.path.join(".") || "the environment"}: ${r.error.issues[0]?.message ?? "invalid"}`;
}

/** The package EvalPlus's answers need most; `eddy doctor` names it whether it is there or not. */
export const NUMPY = "numpy";

/** The keys of the environment in a judge runtime (JudgeRuntime): the judge's Python's version, its implementation, its packages. */
export const PYTHON_KEY = "python";
export const IMPLEMENTATION_KEY = "python-implementation";
export const PACKAGES_KEY = "python-packages";

/**
 * What of the environment decides verdicts, as flat strings: the version, the implementation and
 * every package with its version (never the interpreter's path, which may differ between machines
 * that judge alike).
 */
export function environmentIdentity(env: JudgeEnvironment): Record<string, string> {
    return { [PYTHON_KEY]: env.version, [IMPLEMENTATION_KEY]: env.implementation, [PACKAGES_KEY]: packageList(env.packages) };
}

/** "numpy 1.24.2, PyYAML 6.0", by name (case-insensitive); "none" when there are none. */
export function packageList(packages: Record<string, string>): string {
    const names = Object.keys(packages).sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()) || a.localeCompare(b));
    return names.map((n) => `${n} ${packages[n]}`).join(", ") || "none";
}

/** Package name → version from a packageList() string (empty for "none"). */
export function parsePackageList(list: string): Map<string, string> {
    const out = new Map<string, string>();
    if (list === "none") return out;
    for (const item of list.split(", ")) {
        const i = item.lastIndexOf(" ");
        if (i > 0) out.set(item.slice(0, i), item.slice(i + 1));
    }
    return out;
}

/** The first package whose version differs between two packageList() strings (either side may lack it: "none"), if any. */
export function packageDifference(want: string, got: string): { name: string; want: string; got: string } | undefined {
    const w = parsePackageList(want);
    const g = parsePackageList(got);
    const names = [...new Set([...w.keys(), ...g.keys()])].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()) || a.localeCompare(b));
    const n = names.find((p) => w.get(p) !== g.get(p));
    return n === undefined ? undefined : { name: n, want: w.get(n) ?? "none", got: g.get(n) ?? "none" };
}

/** How `now` differs from `before` in what decides verdicts, in words ("numpy 1.24.2, now none"), or undefined when it does not. */
export function environmentChange(before: JudgeEnvironment, now: JudgeEnvironment): string | undefined {
    if (before.implementation !== now.implementation || before.version !== now.version)
        return `${implementationName(before.implementation)} ${before.version}, now ${implementationName(now.implementation)} ${now.version}`;
    const d = packageDifference(packageList(before.packages), packageList(now.packages));
    return d ? `${d.name} ${d.want}, now ${d.got}` : undefined;
}

/** A short hash of environmentIdentity(), for the verdict cache's key. */
export function environmentHash(env: JudgeEnvironment): string {
    return createHash("sha256").update(JSON.stringify(environmentIdentity(env))).digest("hex").slice(0, 16);
}

/** "CPython", "PyPy", or the name as the interpreter gives it. */
export function implementationName(name: string): string {
    return ({ cpython: "CPython", pypy: "PyPy", graalpy: "GraalPy" } as Record<string, string>)[name] ?? name;
}

/** "CPython 3.11.2 (/usr/bin/python3.11)". */
export function interpreterLine(env: JudgeEnvironment): string {
    return `${implementationName(env.implementation)} ${env.version} (${env.executable})`;
}

/** numpy's version, or "NOT INSTALLED", for a line of its own. */
export function numpyLine(env: JudgeEnvironment): string {
    const v = env.packages[NUMPY];
    return v ? `${NUMPY} ${v}` : `${NUMPY} NOT INSTALLED`;
}

/** "CPython 3.11.2, numpy 1.24.2" (or "…, no numpy"): the judge in a few words, for a table's cell. */
export function environmentShort(env: JudgeEnvironment): string {
    const numpy = env.packages[NUMPY];
    return `${implementationName(env.implementation)} ${env.version}, ${numpy ? `${NUMPY} ${numpy}` : `no ${NUMPY}`}`;
}

/** "28 packages: numpy 1.24.2, …" or "none" (every package, numpy first). */
export function packagesLine(env: JudgeEnvironment): string {
    const n = Object.keys(env.packages).length;
    if (n === 0) return "none (no third-party package in its site folders)";
    const rest = Object.fromEntries(Object.entries(env.packages).filter(([k]) => k !== NUMPY));
    const numpy = env.packages[NUMPY] ? `${NUMPY} ${env.packages[NUMPY]}` : "";
    return `${n} package${n === 1 ? "" : "s"}: ${[numpy, Object.keys(rest).length ? packageList(rest) : ""].filter(Boolean).join(", ")}`;
}

/** The environment as a run records it (isolation_json `python`), if it does. */
export function recordedEnvironment(isolation: unknown): JudgeEnvironment | undefined {
    const env = (isolation as { python?: unknown } | null)?.python;
    const parsed = env === undefined ? undefined : parseEnvironment(env);
    return typeof parsed === "object" ? parsed : undefined;
}
