import { execa } from "execa";
import { pythonCommand } from "../judge/workerScript.js";
import { LANGUAGE_INFO, type Language } from "../languages/languages.js";
import { EddyError, oneLine } from "../util/errors.js";

/**
 * The runtimes a study's verdicts depend on beyond eddy's own code: the judge's Python (it runs every oracle
 * and every Python answer) and, for another answer language, that language's runtime. Each is named by the
 * version it reports; a study's shards are judged only where every one is the same (see refusal.ts).
 */
export type JudgeRuntime = Record<string, string>;

/** How each runtime says its version, on one line. */
const ASK: Record<string, string[]> = {
    python: ["-I", "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
    node: ["-e", "process.stdout.write(process.versions.node)"],
    ruby: ["-e", "print RUBY_VERSION"],
    php: ["-r", "echo PHP_VERSION;"]
};

async function version(command: string, args: string[]): Promise<string> {
    const r = await execa(command, args, { reject: false, timeout: 30_000, stdin: "ignore" });
    const v = r.stdout.trim();
    if (r.exitCode !== 0 || !/^\d+(\.\d+)*\S*$/.test(v)) throw new EddyError(`cannot read ${command}'s version (${r.failed && !r.exitCode ? oneLine(r.shortMessage) : `exit ${r.exitCode}: ${oneLine(r.stderr).slice(0, 120)}`})`);
    return v;
}

const cache = new Map<string, Promise<JudgeRuntime>>();

/**
 * This machine's judge runtime for a study in `language` (the interpreter the judge would use: EDDY_PYTHON or
 * python3). Read once per process and language, from outside the judge: the interpreter asked for its version.
 */
export function judgeRuntime(language: Language = "python"): Promise<JudgeRuntime> {
    const python = pythonCommand();
    const key = `${python}|${language}`;
    let p = cache.get(key);
    if (!p) {
        p = (async () => {
            const out: JudgeRuntime = { python: await version(python, ASK.python!) };
            const cmd = LANGUAGE_INFO[language].runtime;
            if (cmd) out[language] = await version(cmd, ASK[cmd] ?? ["--version"]);
            return out;
        })();
        // A failure is not remembered: the next shard asks again.
        p.catch(() => cache.delete(key));
        cache.set(key, p);
    }
    return p;
}

/** Runtimes for a message: "Python 3.11.7, ruby 3.1.2". */
export function describeRuntime(r: JudgeRuntime): string {
    return Object.entries(r).map(([k, v]) => `${k === "python" ? "Python" : k} ${v}`).join(", ");
}

/** The first runtime that differs, as a phrase, or undefined when `got` has every one of `want`'s versions. */
export function runtimeDifference(want: JudgeRuntime, got: JudgeRuntime | undefined): { name: string; want: string; got: string } | undefined {
    for (const [k, v] of Object.entries(want)) {
        const g = got?.[k];
        if (g !== v) return { name: k === "python" ? "Python" : k, want: v, got: g ?? "none" };
    }
    return undefined;
}
