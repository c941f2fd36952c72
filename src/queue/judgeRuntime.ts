import { execa } from "execa";
import { environmentIdentity, IMPLEMENTATION_KEY, PACKAGES_KEY, packageDifference, PYTHON_KEY } from "../judge/environment.js";
import { readEnvironment } from "../judge/readEnvironment.js";
import { pythonCommand } from "../judge/workerScript.js";
import { DEFAULT_LANGUAGE, languageInfo, type Language } from "../languages/languages.js";
import { EddyError, oneLine } from "../util/errors.js";

/**
 * The runtimes a study's verdicts depend on beyond eddy's own code: the judge's Python (it runs every oracle
 * and every Python answer: its version, `python`, its implementation and the third-party packages it offers
 * answers, each with its version: src/judge/environment.ts environmentIdentity) and, for another answer
 * language, that language's runtime. A study's shards are judged only where every one is the same (see
 * refusal.ts): two nodes whose judges offer answers different packages (numpy or none, numpy 1.24 or 2.4)
 * do not mix their verdicts in one study.
 */
export type JudgeRuntime = Record<string, string>;

async function version(command: string, args: string[]): Promise<string> {
    const r = await execa(command, args, { reject: false, timeout: 30_000, stdin: "ignore" });
    const v = r.stdout.trim();
    if (r.exitCode !== 0 || !/^\d+(\.\d+)*\S*$/.test(v)) throw new EddyError(`cannot read ${command}'s version (${r.failed && !r.exitCode ? oneLine(r.shortMessage) : `exit ${r.exitCode}: ${oneLine(r.stderr).slice(0, 120)}`})`);
    return v;
}

const cache = new Map<string, Promise<JudgeRuntime>>();

/**
 * This machine's judge runtime for a study in `language` (the interpreter the judge would use: EDDY_PYTHON, else
 * the distribution's: workerScript.ts pythonCommand). Read once per process and language, from outside the
 * judge: the interpreter asked for its environment (the code the judge's own hello runs), the other runtime
 * for its version.
 */
export function judgeRuntime(language: Language = DEFAULT_LANGUAGE): Promise<JudgeRuntime> {
    const python = pythonCommand();
    const key = `${python}|${language}`;
    let p = cache.get(key);
    if (!p) {
        p = (async () => {
            const out: JudgeRuntime = environmentIdentity(await readEnvironment(python));
            // Another language's runtime says its version as its registry entry asks it to.
            const rt = languageInfo(language).runtime;
            if (rt) out[language] = await version(rt.binary, rt.version);
            return out;
        })();
        // A failure is not remembered: the next shard asks again.
        p.catch(() => cache.delete(key));
        cache.set(key, p);
    }
    return p;
}

/**
 * The first runtime that differs, as a phrase, or undefined when `got` has every one of `want`'s versions. The
 * judge's packages are compared package by package, both ways: one that only one side has differs too.
 */
export function runtimeDifference(want: JudgeRuntime, got: JudgeRuntime | undefined): { name: string; want: string; got: string } | undefined {
    for (const [k, v] of Object.entries(want)) {
        const g = got?.[k];
        const p = k === PACKAGES_KEY && g !== undefined ? packageDifference(v, g) : undefined;
        if (p) return { ...p, name: `Python package ${p.name}` };
        if (g !== v) return { name: k === PYTHON_KEY ? "Python" : k === IMPLEMENTATION_KEY ? "Python implementation" : k === PACKAGES_KEY ? "Python packages" : k, want: v, got: g ?? "none" };
    }
    return undefined;
}
