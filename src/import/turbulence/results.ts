import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { ParamValue } from "../../vocabulary.js";
import { EddyError } from "../../util/errors.js";
import { isDir } from "../../util/files.js";
import type { PublishedVerdict } from "../../store/publishedVerdicts.js";
import { questionDirs, type Skipped } from "./layout.js";
import { parsePythonTuple } from "./pythonRepr.js";
import { decodeResponse, type ResponseForm } from "./responseForms.js";

export { parsePythonTuple } from "./pythonRepr.js";

/** One response in a Turbulence results folder, with what Turbulence said about it. */
export interface TurbulenceResponse {
    question: number;
    /** 0-based: `<model>_results_<run>` is round run − 1. */
    round: number;
    /** Folder_<c>: 1-based position in the recorded parameter list. */
    folder: number;
    params: ParamValue[];
    /** The model's text, decoded from the published file; null when the folder holds none. */
    response: string | null;
    /** The published file as it is (a printed SDK object, JSON or text); null when there is none. */
    raw: string | null;
    /** How the published file was read (see responseForms.ts). */
    form: ResponseForm | null;
    verdict: Omit<PublishedVerdict, "templateId" | "instance" | "round">;
}

/** A model's published results: `<Model>_T_<t>/Q<n>/<model>_results_<run>/Folder_<c>/`. */
export interface TurbulenceResults {
    model: string;
    /** From the folder name; undefined when it has none or names no number (`_T_D`). */
    temperature: number | undefined;
    /** The temperature as the folder name writes it (`0`, `D`), when it has one. */
    temperatureLabel: string | undefined;
    responses: TurbulenceResponse[];
    skipped: Skipped[];
}

const readJson = (file: string): unknown => {
    try {
        return JSON.parse(readFileSync(file, "utf8"));
    } catch {
        return undefined;
    }
};

/** `Claude_3_5_Haiku_T_0` → 0, `X_T_0_5` or `X_T_0.5` → 0.5; `X_T_D` (the provider's default) → undefined. */
export function temperatureFromName(name: string): number | undefined {
    const m = /_T_(\d+(?:[._]\d+)?)$/i.exec(name);
    return m ? Number(m[1]!.replace("_", ".")) : undefined;
}

/** What follows `_T_` in a results folder's name: `0`, `0_5`, `D`. */
export function temperatureLabel(name: string): string | undefined {
    return /_T_([A-Za-z0-9._]+)$/.exec(name)?.[1];
}

/** Turbulence's params_report.json: `{model_name, wrong: {Folder_c: …} | 0, correct: {Folder_c: …} | 0}`. */
export interface ParamsReport {
    correct?: Record<string, unknown> | 0;
    wrong?: Record<string, unknown> | 0;
}

/**
 * The parameters of one params_report.json entry. `wrong` entries are the tuple itself (`[14, 64]`,
 * or a bare value for one parameter); `correct` entries may carry metrics after it
 * (`[[14, 64], 2.4e-06, {halstead…}, {…}, {…}, "A"]`, as v1's CodeLlama13_T_0 reports do).
 */
export function reportEntryParams(entry: unknown): ParamValue[] | undefined {
    if (!Array.isArray(entry)) return typeof entry === "number" || typeof entry === "string" || typeof entry === "boolean" ? [entry] : undefined;
    const withMetrics = entry.length >= 2 && Array.isArray(entry[0]) && entry.slice(1).some((x) => typeof x === "object" && x !== null && !Array.isArray(x));
    return (withMetrics ? entry[0] : entry) as ParamValue[];
}

/** The published neighbourhood of one round: every Folder_c of params_report.json with its tuple, by folder number. */
export function reportTuples(report: ParamsReport | undefined): Map<number, ParamValue[]> {
    const out = new Map<number, ParamValue[]>();
    for (const side of [report?.correct, report?.wrong]) {
        if (typeof side !== "object" || side === null) continue;
        for (const [folder, entry] of Object.entries(side)) {
            const c = /^Folder_(\d+)$/.exec(folder);
            const params = reportEntryParams(entry);
            if (c && params) out.set(Number(c[1]), params);
        }
    }
    return new Map([...out.entries()].sort((a, b) => a[0] - b[0]));
}

/**
 * Code as Turbulence's harness took it from a response, by the harness that wrote the folder:
 * - printed SDK objects (the v2 repository): the first fenced block, trimmed, as its
 *   `generated_answer.py` files show (Claude_3_5_Haiku_T_0/Q1/…_results_1/Folder_26: prose after
 *   the block is not in the file);
 * - Cohere's printed Generation (v1 helper_functions.extract_answer): "python" removed, then from
 *   the first to the last fence;
 * - JSON and text (v1 helper_functions.trim_answer): "python" removed, from the first fence to the
 *   end, a final fence dropped.
 */
export function turbulenceExtraction(text: string, form: ResponseForm | null = "text"): string {
    if (form === "cohere") {
        const s = text.replace(/python/g, "").replace(/Python/g, "");
        const a = s.indexOf("```");
        return a < 0 ? s : s.slice(a + 3, s.lastIndexOf("```") > a ? s.lastIndexOf("```") : undefined);
    }
    if (form !== null && form !== "text" && form !== "json") {
        const open = /```[^\n]*\n/.exec(text);
        if (!open) return text.trim();
        const body = text.slice(open.index + open[0].length);
        const close = body.indexOf("```");
        return (close < 0 ? body : body.slice(0, close)).trim();
    }
    let s = text.replace(/python/g, "").replace(/Python/g, "");
    s = s.slice(s.indexOf("```") + 3);
    return s.endsWith("```") ? s.slice(0, -3) : s;
}

/**
 * Reads one model's results folder. What cannot be read (a response with no parameters anywhere,
 * a file in no known form) is listed in `skipped`, not fatal; two models in one folder without
 * `only` is an error.
 */
export function readTurbulenceResults(dir: string, only?: string): TurbulenceResults {
    const questions = questionDirs(dir);
    let model: string | undefined;
    const seen = new Set<string>();
    const responses: TurbulenceResponse[] = [];
    const skipped: Skipped[] = [];
    for (const q of questions) {
        const runs = readdirSync(q.dir)
            .map((name) => ({ name, m: /^(.+)_results_(\d+)$/.exec(name) }))
            .filter((x) => x.m && isDir(path.join(q.dir, x.name)))
            .sort((a, b) => Number(a.m![2]) - Number(b.m![2]));
        for (const run of runs) {
            const runModel = run.m![1]!;
            seen.add(runModel);
            if (only !== undefined && runModel !== only) continue;
            if (model !== undefined && runModel !== model)
                throw new EddyError(`${dir} holds results of two models ('${model}' and '${runModel}'); choose one with --model`);
            model = runModel;
            readRun(q.n, path.join(q.dir, run.name), Number(run.m![2]) - 1, `Q${q.n}/${run.name}`, responses, skipped);
        }
    }
    if (only !== undefined && !model) throw new EddyError(`${dir} has no results of model '${only}' (found: ${[...seen].join(", ") || "none"})`);
    if (!model || (responses.length === 0 && skipped.length === 0))
        throw new EddyError(`${dir} is not a Turbulence results folder: no Q<n>/<model>_results_<run>/Folder_<n>/ inside`);
    const name = path.basename(path.resolve(dir));
    return { model, temperature: temperatureFromName(name), temperatureLabel: temperatureLabel(name), responses, skipped };
}

function readRun(n: number, runDir: string, round: number, where: string, responses: TurbulenceResponse[], skipped: Skipped[]): void {
    const allParams = existsSync(path.join(runDir, "all_params.txt"))
        ? readFileSync(path.join(runDir, "all_params.txt"), "utf8").split(/\r?\n/).filter((l) => l.trim())
        : [];
    const report = readJson(path.join(runDir, "params_report.json")) as ParamsReport | undefined;
    const reported = reportTuples(report);
    const folders = readdirSync(runDir)
        .map((name) => ({ name, m: /^Folder_(\d+)$/.exec(name) }))
        .filter((x) => x.m && isDir(path.join(runDir, x.name)))
        .map((x) => ({ c: Number(x.m![1]), dir: path.join(runDir, x.name) }))
        .sort((a, b) => a.c - b.c);
    for (const { c, dir } of folders) {
        const loc = `${where}/Folder_${c}`;
        const pre = readJson(path.join(dir, "pre_existing_test_case_report.json")) as Record<string, unknown> | undefined;
        const info = readJson(path.join(dir, "info.json")) as { params?: unknown } | undefined;
        let params: ParamValue[] | undefined;
        if (pre && Array.isArray(pre["parameter(s)"])) params = pre["parameter(s)"] as ParamValue[];
        else if (info && Array.isArray(info.params)) params = info.params as ParamValue[];
        else if (reported.has(c)) params = reported.get(c);
        else if (allParams[c - 1] !== undefined) params = parsePythonTuple(allParams[c - 1]!);
        if (!params) {
            skipped.push({
                location: loc,
                reason: "a response without parameters (no 'parameter(s)' in pre_existing_test_case_report.json, no info.json, no Folder_" + c + " in params_report.json, no line " + c + " in all_params.txt)"
            });
            continue;
        }
        const file = ["response.txt", "response.json"].find((f) => existsSync(path.join(dir, f)));
        const raw = file ? readFileSync(path.join(dir, file), "utf8") : null;
        const decoded = raw === null ? null : decodeResponse(raw, file);
        if (decoded && decoded.text === null) {
            skipped.push({ location: `${loc}/${file}`, reason: decoded.detail ?? "in no known form" });
            continue;
        }
        const response = decoded?.text ?? null;
        const form = decoded?.form ?? null;
        responses.push({ question: n, round, folder: c, params, response, raw, form, verdict: publishedVerdict(dir, `Folder_${c}`, report, pre, response, form, loc) });
    }
}

/**
 * Turbulence's verdict for one response: params_report.json says correct or wrong; the folder's
 * files say how far its harness got (no test file: the response was rejected before testing) and
 * whether the harness itself failed (a pytest timeout, or a session that ended in an internal error).
 */
function publishedVerdict(
    dir: string,
    folder: string,
    report: ParamsReport | undefined,
    pre: Record<string, unknown> | undefined,
    response: string | null,
    form: ResponseForm | null,
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
    return { source: "turbulence", correct, stage, fault, detail, extracted: response === null ? null : turbulenceExtraction(response, form), location };
}

function readIni(dir: string): string | undefined {
    const ini = readdirSync(dir).find((f) => f.endsWith(".ini"));
    return ini ? readFileSync(path.join(dir, ini), "utf8") : undefined;
}
