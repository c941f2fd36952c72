import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { accessSync, constants, readdirSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { packageRoot } from "../util/paths.js";
import { REGISTRY_DIR, registryFiles } from "../languages/languages.js";

/** Bumped when verdict semantics change in a way the worker's bytes do not show. */
// 2: random-input seeds come from util/seeds.ts deriveSeed.
// 3: strict comparators, candidates in a clean zygote's sandboxes (issue #9).
export const JUDGE_PROTOCOL = "3";

/**
 * The folder holding the judge's Python packages, `eddy_judge` (the trusted worker) and
 * `eddy_sandbox` (what runs in the sandbox), shipped in src/, which the package includes (tsc does
 * not copy .py files); the judge reads the language registry beside them (src/languages).
 */
export function judgePackageParent(): string {
    return path.join(packageRoot(), "src", "judge", "python");
}

/** Arguments that start the trusted worker: `python -I` (no environment variables, no user site) running `eddy_judge`. */
export function workerArgs(): string[] {
    // -I leaves the script's folder off sys.path, so the package folder is added by hand.
    const boot = "import sys; sys.path.insert(0, sys.argv[1]); from eddy_judge.worker import main; main()";
    return ["-I", "-c", boot, judgePackageParent()];
}

/**
 * Arguments that run one of the package's tools (`eddy_judge.tools.<name>`: the strength measurement,
 * the judge's environment) as `python -m` would, with `-I` (no environment, no user site) and `-B`.
 */
export function toolArgs(name: "strength" | "environment"): string[] {
    const boot = "import sys, runpy; sys.path.insert(0, sys.argv[1]); del sys.argv[1]; runpy.run_module(sys.argv[1], run_name='__main__', alter_sys=True)";
    return ["-I", "-B", "-c", boot, judgePackageParent(), `eddy_judge.tools.${name}`];
}

let version: string | undefined;

/** Judge version for the verdict cache: the protocol number plus a hash of the packages' sources and the language registry. */
export function judgeVersion(): string {
    if (version) return version;
    const hash = createHash("sha256");
    // Both packages' modules (not their tools: eddy_judge/tools runs outside the judge).
    for (const pkg of ["eddy_judge", "eddy_sandbox"]) {
        const dir = path.join(judgePackageParent(), pkg);
        for (const name of readdirSync(dir).filter((n) => n.endsWith(".py")).sort()) hash.update(`${pkg}/${name}`).update("\0").update(readFileSync(path.join(dir, name)));
    }
    // The languages' runtimes, harnesses and reference calls judge too: a change to one is a new judge.
    for (const name of registryFiles()) hash.update("languages/" + name).update("\0").update(readFileSync(path.join(REGISTRY_DIR, name)));
    version = `${JUDGE_PROTOCOL}-${hash.digest("hex").slice(0, 16)}`;
    return version;
}

let defaultInterpreter: string | undefined;

/**
 * The distribution's interpreter (Debian's, Ubuntu's): the one whose packages its package manager
 * installs beside it (python3-numpy, which scripts/setup.sh installs), in /usr/lib/python3/dist-packages.
 */
export const SYSTEM_PYTHON = "/usr/bin/python3";

/**
 * The Python interpreter to use: the explicit option, then EDDY_PYTHON, each exactly as given (it may
 * be a wrapper that does more than pick an interpreter: another user, a container), then the
 * distribution's (defaultPython). Resolved once per process.
 */
export function pythonCommand(explicit?: string): string {
    const given = explicit || process.env.EDDY_PYTHON;
    if (given) return given;
    return (defaultInterpreter ??= defaultPython(process.env.PATH));
}

/**
 * The judge's interpreter when none is named: `python3` on PATH, the distribution's first. That is
 * SYSTEM_PYTHON when its folder is on PATH and it is a Python the judge runs on (3.11+: the
 * package's own check), whatever comes before it on PATH (a pyenv or asdf shim, a virtual
 * environment): answers then import what the distribution's packages installed, the same on every
 * machine of a release, not whatever a user's own interpreter holds. Otherwise the first `python3`
 * on PATH, resolved to the interpreter it runs (`sys.executable`): a version manager's shim is a
 * shell script that costs ~0.6 s per start, and eddy starts Python for every judge worker and
 * oracle check; the shim's choice is the same for the whole process. A `python3` that does not
 * run, or answers with anything but an executable absolute path, is kept as it is, so that its own
 * error is the one reported.
 */
export function defaultPython(pathEnv: string | undefined, system: string = SYSTEM_PYTHON): string {
    const folder = realOrSelf(path.dirname(system));
    if ((pathEnv ?? "").split(":").some((d) => d !== "" && realOrSelf(d) === folder)) {
        // Exits 2 (eddy_judge/__init__.py) when it is older than the judge needs.
        const check = "import sys; sys.path.insert(0, sys.argv[1]); import eddy_judge; print(sys.executable)";
        const r = spawnSync(system, ["-I", "-B", "-c", check, judgePackageParent()], { encoding: "utf8", timeout: 30_000, stdio: ["ignore", "pipe", "ignore"] });
        if (r.status === 0 && r.stdout.trim() !== "") return system;
    }
    return resolveInterpreter("python3", pathEnv);
}

function realOrSelf(p: string): string {
    try {
        return realpathSync(p);
    } catch {
        return p;
    }
}

/** What `name` runs (`sys.executable`), found on `pathEnv` (default: PATH), or `name` itself when it does not say. */
export function resolveInterpreter(name: string, pathEnv: string | undefined = process.env.PATH): string {
    const r = spawnSync(name, ["-I", "-c", "import sys; print(sys.executable)"], { encoding: "utf8", timeout: 30_000, ...(pathEnv === undefined ? {} : { env: { ...process.env, PATH: pathEnv } }) });
    const said = r.status === 0 ? r.stdout.trim() : "";
    if (!path.isAbsolute(said) || said.includes("\n")) return name;
    try {
        accessSync(said, constants.X_OK);
        return said;
    } catch {
        return name; // not an interpreter we can run ourselves
    }
}
