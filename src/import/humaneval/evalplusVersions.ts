import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { EddyError, oneLine } from "../../util/errors.js";

/**
 * What EvalPlus did when it judged, version by version, as read from its own history
 * (github.com/evalplus/evalplus, main branch; dates are the commits' dates): the rules that decide
 * whether eddy and a published EvalPlus verdict can differ, and why. Every change point names its
 * commit; a release is the main branch as of its tag.
 */
export interface EvalPlusChange {
    /** The commit (short hash) on EvalPlus's main branch, and its date (YYYY-MM-DD). */
    commit: string;
    date: string;
    /** What it changed, in words. */
    what: string;
}

/** The change points eddy knows, oldest first. */
export const EVALPLUS_CHANGES = {
    /** --min-time-limit 0.2 s (from 0.1 s), --gt-time-limit-factor 4 (from 2): v0.1.6 to v0.2.0. */
    min02: { commit: "0310ad2", date: "2023-06-26", what: "--min-time-limit 0.2 s and --gt-time-limit-factor 4" },
    min05: { commit: "467b542", date: "2024-01-22", what: "--min-time-limit 0.5 s" },
    min1: { commit: "b8fa5fc", date: "2024-02-01", what: "--min-time-limit 1 s (v0.2.1 to v0.3.1)" },
    /** eval_results.json with base_status/plus_status per sample: the first results eddy can read. */
    results: { commit: "4a9d54f", date: "2024-02-11", what: "eval_results.json with base_status and plus_status" },
    findZeroArgs: { commit: "832b832", date: "2024-03-26", what: "find_zero's check called _poly(*inp, out) (it was _poly(*out, inp), which raised on every answer)" },
    setEq: { commit: "8649c02", date: "2024-04-12", what: "MBPP+'s set-equality oracle (similar_elements, Diff, …)" },
    allclose: { commit: "5f4ebca", date: "2024-04-17", what: "floats compared with np.allclose instead of np.testing.assert_allclose (evalplus#157, #165)" },
    firstFailReported: { commit: "ffe7896", date: "2024-05-09", what: "the failing input is counted before fast-check stops" },
    typeAndLength: { commit: "de8c082", date: "2024-05-10", what: "type and length checked before np.allclose (evalplus#196)" },
    findZeroUnrecorded: { commit: "899b2b3", date: "2024-05-14", what: "find_zero judged by |poly| alone, but its inputs no longer recorded as passed" },
    mbppOracles: { commit: "f86db47", date: "2024-06-18", what: "MBPP+'s surface_Area and digit_distance_nums special oracles (evalplus#212)" },
    findZeroRecorded: { commit: "6eb1e19", date: "2024-10-31", what: "find_zero's inputs recorded as passed again (evalplus#241)" },
    min4: { commit: "af49138", date: "2025-04-02", what: "--min-time-limit 4 s" }
} as const satisfies Record<string, EvalPlusChange>;

/** EvalPlus's releases eddy knows, with their tags' dates: a release judges as the main branch did on that date. */
export const EVALPLUS_RELEASES: Record<string, string> = {
    "v0.1.6": "2023-06-26",
    "v0.1.7": "2023-09-06",
    "v0.2.0": "2023-11-24",
    "v0.2.1": "2024-04-01",
    "v0.2.2": "2024-04-02",
    "v0.3.0": "2024-10-20",
    "v0.3.1": "2024-10-20"
};

/** The newest EvalPlus release (PyPI's evalplus 0.3.1, 2024-10-20): what is assumed when nothing says which EvalPlus judged. */
export const CURRENT_EVALPLUS_RELEASE = "v0.3.1";

/** Which EvalPlus judged, and how eddy knows it. */
export interface EvalPlusVersion {
    /** As given or inferred: "v0.3.1", or "main as of 2024-08-08". */
    id: string;
    /** The date its rules are read at (a release's tag date, the results' date, or a date given). */
    asOf: string;
    from: "flag" | "date" | "default";
}

/** The rules of one EvalPlus version: its limits and the known defects it still had. */
export interface EvalPlusRules {
    version: EvalPlusVersion;
    /** --min-time-limit's default (seconds) and --gt-time-limit-factor's. */
    minTimeLimitS: number;
    gtTimeLimitFactor: number;
    /** Floats compared with np.testing.assert_allclose, which fails to import in EvalPlus's sandbox (reliability_guard sets subprocess.Popen to None; numpy 1.26's numpy.testing runs lscpu at import): every inexact float answer failed. */
    npTestingFloatBug: boolean;
    /** The type and length of an answer checked before np.allclose (since de8c082). */
    typeAndLengthChecked: boolean;
    /** How find_zero (HumanEval/32) was judged: "args" (_poly(*out, inp): every answer failed), "compared" (also compared with the canonical zero), "unrecorded" (its inputs never counted as passed: every answer failed), "poly" (by |poly| alone). */
    findZero: "args" | "compared" | "unrecorded" | "poly";
    /** MBPP+'s special oracles it had: set equality, surface_Area / digit_distance_nums. */
    mbppSetEq: boolean;
    mbppAreaDistance: boolean;
    /**
     * What base_fail_tests / plus_fail_tests name (without --test-details: one input): "old" (before
     * ffe7896) the input that failed, or that was running when the process was stopped (status
     * timeout), and none when that was the first input; "new" the input that failed, and for a
     * timeout the last one that finished (the one running follows it; none: the first).
     */
    failTests: "old" | "new";
    /** Its results file has base_status/plus_status (what eddy reads). */
    resultsReadable: boolean;
}

const on = (asOf: string, c: EvalPlusChange): boolean => asOf >= c.date;

/** The rules in force as of a date on EvalPlus's main branch. */
export function rulesAsOf(version: EvalPlusVersion): EvalPlusRules {
    const d = version.asOf;
    const C = EVALPLUS_CHANGES;
    if (!on(d, C.min02)) throw new EddyError(`EvalPlus before ${C.min02.date} (v0.1.6) timed inputs by another rule (2 x the ground truth, at least 0.05 s) and wrote no results eddy can read`);
    return {
        version,
        minTimeLimitS: on(d, C.min4) ? 4 : on(d, C.min1) ? 1 : on(d, C.min05) ? 0.5 : 0.2,
        gtTimeLimitFactor: 4,
        npTestingFloatBug: !on(d, C.allclose),
        typeAndLengthChecked: on(d, C.typeAndLength),
        findZero: !on(d, C.findZeroArgs) ? "args" : !on(d, C.findZeroUnrecorded) ? "compared" : !on(d, C.findZeroRecorded) ? "unrecorded" : "poly",
        mbppSetEq: on(d, C.setEq),
        mbppAreaDistance: on(d, C.mbppOracles),
        failTests: on(d, C.firstFailReported) ? "new" : "old",
        resultsReadable: on(d, C.results)
    };
}

/** A release, a date (the main branch as of it) or "main": what `--evalplus-version` takes. */
export function parseEvalPlusVersion(text: string): EvalPlusVersion {
    const t = text.trim();
    const tag = /^v?(\d+\.\d+\.\d+)$/.exec(t);
    if (tag) {
        const id = `v${tag[1]}`;
        const asOf = EVALPLUS_RELEASES[id];
        if (!asOf) throw new EddyError(`--evalplus-version ${text}: eddy knows EvalPlus's releases ${Object.keys(EVALPLUS_RELEASES).join(", ")} (or give a date, YYYY-MM-DD: the main branch as of that day)`);
        return { id, asOf, from: "flag" };
    }
    if (/^(main|master)$/.test(t)) return { id: `main as of ${EVALPLUS_CHANGES.min4.date} or later`, asOf: EVALPLUS_CHANGES.min4.date, from: "flag" };
    if (/^\d{4}-\d{2}-\d{2}$/.test(t) && !Number.isNaN(Date.parse(t))) return { id: `main as of ${t}`, asOf: t, from: "flag" };
    throw new EddyError(`--evalplus-version ${text}: give a release (e.g. 0.3.1), 'main', or a date YYYY-MM-DD (EvalPlus's main branch as of that day)`);
}

/**
 * Which EvalPlus judged a results file: the version given, else the main branch as of the
 * results' own date (`date` in eval_results.json: when EvalPlus wrote it), else the current release.
 */
export function evalPlusVersionOf(given: EvalPlusVersion | undefined, resultsDate: string | null | undefined): EvalPlusVersion {
    if (given) return given;
    const day = /^(\d{4}-\d{2}-\d{2})/.exec(resultsDate ?? "")?.[1];
    if (day) return { id: `main as of ${day}`, asOf: day, from: "date" };
    return { id: CURRENT_EVALPLUS_RELEASE, asOf: EVALPLUS_RELEASES[CURRENT_EVALPLUS_RELEASE]!, from: "default" };
}

/** One line naming the version and where eddy took it from. */
export function describeVersion(v: EvalPlusVersion): string {
    const how = v.from === "flag" ? "as given (--evalplus-version)" : v.from === "date" ? "by the results file's date (--evalplus-version names another)" : "the current release: nothing says which EvalPlus judged";
    return `EvalPlus ${v.id}, ${how}`;
}

/**
 * EvalPlus's `hash` of a dataset (eval_results.json) is the md5 of the JSONL file it read (its
 * release, gunzipped into its cache, or the file HUMANEVAL_OVERRIDE_PATH / MBPP_OVERRIDE_PATH
 * names, as it is). The releases whose hash eddy has seen in EvalPlus's own published results:
 */
export const KNOWN_DATASET_HASHES: Record<string, string> = {
    fe585eb4df8c88d844eeb463ea4d0302: "HumanEval+ v0.1.10",
    ee43ecabebf20deef4bb776a405ac5b1: "MBPP+ v0.2.0"
};

/** A dataset's identity as EvalPlus computes it: `evalplus` (the JSONL's md5: a release as EvalPlus caches it, gunzipped) and `file` (the file's own md5: what an override path naming this very file gives). */
export interface DatasetHash {
    evalplus: string;
    file: string;
}

/** The md5s EvalPlus would put in `hash` for this problems file (JSONL, or gzip'd JSONL). */
export function datasetHash(file: string): DatasetHash {
    let bytes: Buffer;
    try {
        bytes = readFileSync(file);
    } catch (err) {
        throw new EddyError(`cannot read ${file}: ${oneLine(err)}`);
    }
    const md5 = (b: Buffer) => createHash("md5").update(b).digest("hex");
    const own = md5(bytes);
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
        try {
            return { evalplus: md5(gunzipSync(bytes)), file: own };
        } catch {
            return { evalplus: own, file: own };
        }
    }
    return { evalplus: own, file: own };
}

/** A dataset hash as a reader knows it: the release's name where eddy knows it (else the name given), and the md5. */
export function describeDatasetHash(hash: string, fallbackName?: string): string {
    const name = KNOWN_DATASET_HASHES[hash] ?? fallbackName;
    return `${name ? `${name}, ` : ""}md5 ${hash}`;
}
