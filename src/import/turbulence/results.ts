import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { ParamValue } from "../../templates/types.js";
import { EddyError } from "../../util/errors.js";
import type { PublishedVerdict } from "../store.js";
import { questionDirs } from "./layout.js";

/** One response in a Turbulence results folder, with what Turbulence said about it. */
export interface TurbulenceResponse {
    question: number;
    /** 0-based: `<model>_results_<run>` is round run − 1. */
    round: number;
    /** Folder_<c>: 1-based position in the recorded parameter list. */
    folder: number;
    params: ParamValue[];
    /** The raw response; null when the folder holds none. */
    response: string | null;
    verdict: Omit<PublishedVerdict, "templateId" | "instance" | "round">;
}

/** A model's published results: `<Model>_T_<t>/Q<n>/<model>_results_<run>/Folder_<c>/`. */
export interface TurbulenceResults {
    model: string;
    temperature: number | undefined;
    responses: TurbulenceResponse[];
}

const isDir = (p: string): boolean => {
    try {
        return statSync(p).isDirectory();
    } catch {
        return false;
    }
};
const readJson = (file: string): unknown => {
    try {
        return JSON.parse(readFileSync(file, "utf8"));
    } catch {
        return undefined;
    }
};

/** `Claude_3_5_Haiku_T_0` → 0, `X_T_0_5` or `X_T_0.5` → 0.5. */
export function temperatureFromName(name: string): number | undefined {
    const m = /_T_(\d+(?:[._]\d+)?)$/i.exec(name);
    return m ? Number(m[1]!.replace("_", ".")) : undefined;
}

/** A Python literal of a parameter tuple as all_params.txt holds it: numbers, quoted strings, booleans, nested lists/tuples. */
export function parsePythonTuple(text: string): ParamValue[] | undefined {
    const json = text
        .trim()
        .replace(/\(/g, "[")
        .replace(/\)/g, "]")
        .replace(/,\s*\]/g, "]")
        .replace(/\bTrue\b/g, "true")
        .replace(/\bFalse\b/g, "false")
        .replace(/'((?:[^'\\]|\\.)*)'/g, (_, s: string) => JSON.stringify(s.replace(/\\'/g, "'")));
    try {
        const v = JSON.parse(json);
        return Array.isArray(v) ? v : [v];
    } catch {
        return undefined;
    }
}

/** The code as Turbulence's harness took it from a response: words "python" removed, from the first fence to the end, a final fence dropped. */
export function turbulenceExtraction(text: string): string {
    let s = text.replace(/python/g, "").replace(/Python/g, "");
    s = s.slice(s.indexOf("```") + 3);
    return s.endsWith("```") ? s.slice(0, -3) : s;
}

/** Reads one model's results folder; every response needs its parameters. */
export function readTurbulenceResults(dir: string, only?: string): TurbulenceResults {
    const questions = questionDirs(dir);
    let model: string | undefined;
    const seen = new Set<string>();
    const responses: TurbulenceResponse[] = [];
    for (const q of questions) {
        const runs = readdirSync(q.dir)
            .map((name) => ({ name, m: /^(.+)_results_(\d+)$/.exec(name) }))
            .filter((x) => x.m && isDir(path.join(q.dir, x.name)));
        for (const run of runs) {
            const runModel = run.m![1]!;
            seen.add(runModel);
            if (only !== undefined && runModel !== only) continue;
            if (model !== undefined && runModel !== model)
                throw new EddyError(`${dir} holds results of two models ('${model}' and '${runModel}'); choose one with --model`);
            model = runModel;
            responses.push(...readRun(q.n, path.join(q.dir, run.name), Number(run.m![2]) - 1, `Q${q.n}/${run.name}`));
        }
    }
    if (only !== undefined && !model) throw new EddyError(`${dir} has no results of model '${only}' (found: ${[...seen].join(", ") || "none"})`);
    if (!model || responses.length === 0) throw new EddyError(`${dir} is not a Turbulence results folder: no Q<n>/<model>_results_<run>/Folder_<n>/ inside`);
    return { model, temperature: temperatureFromName(path.basename(path.resolve(dir))), responses };
}

function readRun(n: number, runDir: string, round: number, where: string): TurbulenceResponse[] {
    const allParams = existsSync(path.join(runDir, "all_params.txt"))
        ? readFileSync(path.join(runDir, "all_params.txt"), "utf8").split(/\r?\n/).filter((l) => l.trim())
        : [];
    const report = readJson(path.join(runDir, "params_report.json")) as { correct?: Record<string, unknown> | 0; wrong?: Record<string, unknown> | 0 } | undefined;
    const folders = readdirSync(runDir)
        .map((name) => ({ name, m: /^Folder_(\d+)$/.exec(name) }))
        .filter((x) => x.m && isDir(path.join(runDir, x.name)))
        .map((x) => ({ c: Number(x.m![1]), dir: path.join(runDir, x.name) }))
        .sort((a, b) => a.c - b.c);
    return folders.map(({ c, dir }) => {
        const loc = `${where}/Folder_${c}`;
        const pre = readJson(path.join(dir, "pre_existing_test_case_report.json")) as Record<string, unknown> | undefined;
        const info = readJson(path.join(dir, "info.json")) as { params?: unknown } | undefined;
        let params: ParamValue[] | undefined;
        if (pre && Array.isArray(pre["parameter(s)"])) params = pre["parameter(s)"] as ParamValue[];
        else if (info && Array.isArray(info.params)) params = info.params as ParamValue[];
        else if (allParams[c - 1] !== undefined) params = parsePythonTuple(allParams[c - 1]!);
        if (!params)
            throw new EddyError(`${loc}: a response without parameters (no 'parameter(s)' in pre_existing_test_case_report.json, no info.json, no line ${c} in all_params.txt)`);
        const response = readResponse(dir);
        return { question: n, round, folder: c, params, response, verdict: publishedVerdict(dir, `Folder_${c}`, report, pre, response, loc) };
    });
}

function readResponse(dir: string): string | null {
    if (existsSync(path.join(dir, "response.txt"))) return readFileSync(path.join(dir, "response.txt"), "utf8");
    const json = readJson(path.join(dir, "response.json")) as { choices?: { message?: { content?: unknown } }[] } | undefined;
    const content = json?.choices?.[0]?.message?.content;
    return typeof content === "string" ? content : null;
}

/**
 * Turbulence's verdict for one response: params_report.json says correct or wrong; the folder's
 * files say how far its harness got (no test file: the response was rejected before testing) and
 * whether the harness itself failed (a pytest timeout, or a session that ended in an internal error).
 */
function publishedVerdict(
    dir: string,
    folder: string,
    report: { correct?: Record<string, unknown> | 0; wrong?: Record<string, unknown> | 0 } | undefined,
    pre: Record<string, unknown> | undefined,
    response: string | null,
    location: string
): TurbulenceResponse["verdict"] {
    const failedTests = pre
        ? Object.entries(pre)
              .filter(([k, v]) => k !== "parameter(s)" && Array.isArray(v) && v[0] !== "passed")
              .map(([k, v]) => ({ name: k, message: String((v as unknown[])[1] ?? "") }))
        : [];
    const fuzz = existsSync(path.join(dir, "fuzzy_test_report.txt")) ? readFileSync(path.join(dir, "fuzzy_test_report.txt"), "utf8") : undefined;
    const fuzzFailed = Number(/failed (\d+) times/.exec(fuzz ?? "")?.[1] ?? 0);
    const log = existsSync(path.join(dir, "test_report.json")) ? readFileSync(path.join(dir, "test_report.json"), "utf8") : undefined;
    const exit = log === undefined ? undefined : Number(/"exitstatus":\s*(\d+)/.exec(log)?.[1] ?? NaN);
    const timeoutS = /--timeout=(\d+(?:\.\d+)?)/.exec(readIni(dir) ?? "")?.[1];

    let fault: "timeout" | "crash" | null = null;
    let stage: TurbulenceResponse["verdict"]["stage"];
    let detail: string;
    const timedOut = failedTests.find((t) => /timeout/i.test(t.message));
    if (timedOut) {
        fault = "timeout";
        stage = "fixed_tests";
        detail = `${timedOut.name}: ${timedOut.message}${timeoutS ? ` (pytest --timeout=${timeoutS})` : ""}`;
    } else if (failedTests.length) {
        stage = "fixed_tests";
        detail = `${failedTests[0]!.name}: ${failedTests[0]!.message}`;
    } else if (log !== undefined && !pre && (Number.isNaN(exit!) || exit! > 1)) {
        fault = "crash";
        stage = "unknown";
        detail = `pytest ended with exit status ${Number.isNaN(exit!) ? "unknown" : exit} before reporting any test`;
    } else if (fuzzFailed > 0) {
        stage = "fuzzing";
        detail = fuzz!.split("\n")[0]!.trim();
    } else if (!pre && log === undefined) {
        stage = "rejected";
        detail = response === null ? "no response" : "rejected before testing: no function with the asked name and argument count";
    } else {
        stage = "passed";
        detail = fuzz ? fuzz.split("\n")[0]!.trim() : "fixed tests passed";
    }
    let correct = stage === "passed";
    if (report) {
        const inMap = (m: Record<string, unknown> | 0 | undefined) => typeof m === "object" && m !== null && folder in m;
        if (inMap(report.correct)) correct = true;
        else if (inMap(report.wrong)) correct = false;
    }
    if (correct && stage !== "passed") stage = "passed";
    return { source: "turbulence", correct, stage, fault, detail, extracted: response === null ? null : turbulenceExtraction(response), location };
}

function readIni(dir: string): string | undefined {
    const ini = readdirSync(dir).find((f) => f.endsWith(".ini"));
    return ini ? readFileSync(path.join(dir, ini), "utf8") : undefined;
}
