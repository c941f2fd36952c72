import { CURRENT_EVALPLUS_RELEASE, EVALPLUS_CHANGES, EVALPLUS_RELEASES, describeDatasetHash, rulesAsOf, type EvalPlusRules } from "../import/humaneval/evalplusVersions.js";
import type { EvalPlusJudged } from "../import/provenance.js";
import type { PeerEvidence, ProbeFacts, PublishedVerdict } from "../store/publishedVerdicts.js";
import type { Category } from "../vocabulary.js";

/**
 * Why eddy and EvalPlus disagree on one sample, from the evidence the import gathered (the input
 * that decided, the answer and the canonical solution probed there in eddy's sandbox) read by the
 * rules of the EvalPlus version that judged (src/import/humaneval/evalplusVersions.ts):
 * - their_harness: EvalPlus's harness failed it: its own timeout, a per-input timeout where the
 *   answer's CPU time is within that version's limit (at least half of it: slow, not broken), or
 *   something its sandbox takes away (reliability_guard) that the answer uses;
 * - their_defect: a defect that version had and a later one fixed (the float comparison through
 *   np.testing, find_zero, MBPP+'s missing special oracles, no type check before np.allclose);
 * - their_rules: that version's own rule, not eddy's import's: a lower minimum per-input limit;
 * - dataset: the results were judged against another dataset (its md5), or name an input the
 *   imported problem does not have;
 * - eddy_harness: eddy's harness (a limit a re-judge alone overturns);
 * - unknown: nothing explains it; the evidence says what was found.
 */
export type EvalPlusCause = "their_harness" | "their_defect" | "their_rules" | "dataset" | "eddy_harness" | "unknown";

export interface EvalPlusExplanation {
    cause: EvalPlusCause;
    /** One line naming the cause. */
    explanation: string;
    /** What it rests on, one finding a line. */
    evidence: string[];
}

/** The share of EvalPlus's limit above which an answer right on the input it failed is taken to have run out of its wall-clock time. */
export const TIMEOUT_SHARE = 0.5;

const SET_EQ = ["similar_elements", "find_char_long", "common_in_nested_lists", "extract_singly", "larg_nnum", "intersection_array", "find_dissimilar", "Diff"];
const AREA_DISTANCE = ["surface_Area", "digit_distance_nums"];
/** eddy's import's minimum per-input limit (EvalPlus's current), seconds. */
const IMPORT_MIN_S = 4;

const ms = (v: number): string => (v >= 10_000 ? `${(v / 1000).toFixed(1)} s` : v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(v < 10 ? 1 : 0)} ms`);
const num = (v: number | null | undefined): string => (v === null || v === undefined ? "?" : Math.abs(v) >= 1e-3 && Math.abs(v) < 1e6 ? String(Number(v.toPrecision(4))) : v.toExponential(2));

/** The rules a run's EvalPlus verdicts are read by: the version recorded at import, else the current release's. */
export function rulesOf(j: EvalPlusJudged | undefined): EvalPlusRules {
    return rulesAsOf(j?.version ?? { id: CURRENT_EVALPLUS_RELEASE, asOf: EVALPLUS_RELEASES[CURRENT_EVALPLUS_RELEASE]!, from: "default" });
}

/** The two datasets differ: the results' md5 is neither of the imported file's. */
export function datasetDiffers(j: EvalPlusJudged | undefined): boolean {
    return !!j?.hash && !!j.imported.hash && j.hash !== j.imported.hash && j.hash !== j.imported.fileHash;
}

function datasetLine(j: EvalPlusJudged): string {
    return `datasets: EvalPlus judged against ${describeDatasetHash(j.hash!)}; eddy imported ${describeDatasetHash(j.imported.hash!)}`;
}

/** What the probe found of the output, in words. */
function outputLine(f: ProbeFacts, where: string): string {
    if (f.digest) return `${where}: compared by its digest, ${f.exact ? "equal" : "different"}`;
    const parts = [`${where}: output ${f.output ?? "?"}, expected ${f.expected ?? "?"}`];
    if (f.exact) parts.push("equal");
    else {
        if (f.ulps !== null && f.ulps !== undefined) parts.push(`${f.ulps} ulp apart (|Δ| ${num(f.difference)})`);
        if (f.sameType === false) parts.push("of another type");
        if (f.sameLength === false) parts.push("of another length");
        if (f.allclose !== null && f.allclose !== undefined) parts.push(`np.allclose(rtol 1e-07, atol ${num(f.atol || 1e-6)}) ${f.allclose ? "true" : "false"}`);
    }
    return parts.join(", ");
}

/** The time findings: the answer's and the canonical solution's CPU time here, and that version's limit of the input, here. */
interface Timing {
    answerMs: number;
    canonicalMs: number | null;
    limitMs: number;
    importLimitMs: number | null;
    line: string;
}

function timing(ev: PeerEvidence, r: EvalPlusRules): Timing | undefined {
    const a = ev.answer?.cpuMs;
    if (typeof a !== "number") return undefined;
    const factor = ev.cpuFactor ?? 1;
    const c = typeof ev.canonical?.cpuMs === "number" ? ev.canonical.cpuMs : null;
    const minHere = r.minTimeLimitS * 1000 * factor;
    const limitMs = Math.max(minHere, c === null ? 0 : r.gtTimeLimitFactor * c);
    const f = ev.answer?.facts;
    const importLimitMs = typeof f?.limitMs === "number" ? f.limitMs * factor : null;
    const line =
        `CPU time here: the answer ${ms(a)}${c === null ? "" : `, the canonical solution ${ms(c)}`} on that input (the call alone, as the answer's process timed it); ` +
        `EvalPlus ${r.version.id}'s limit there: max(${r.minTimeLimitS} s, ${r.gtTimeLimitFactor} x the canonical solution) = ${ms(limitMs)} here (${Math.round((100 * a) / limitMs)}% used; host factor ${num(factor)})` +
        (importLimitMs !== null ? `; eddy's import's: ${ms(importLimitMs)}` : "");
    return { answerMs: a, canonicalMs: c, limitMs, importLimitMs, line };
}

/** A known defect of that version that fails this sample whatever it gives (find_zero, MBPP+'s oracles), or undefined. */
function taskDefect(ev: PeerEvidence, r: EvalPlusRules, f: ProbeFacts | undefined): string | undefined {
    const C = EVALPLUS_CHANGES;
    if (ev.dataset === "humaneval" && ev.entryPoint === "find_zero") {
        if (r.findZero === "args") return `find_zero's check called _poly(*out, inp), which raises on every answer (fixed in ${C.findZeroArgs.commit}, ${C.findZeroArgs.date})`;
        if (r.findZero === "unrecorded") return `find_zero's inputs were never recorded as passed, so every answer failed (${C.findZeroUnrecorded.commit}, ${C.findZeroUnrecorded.date}, to ${C.findZeroRecorded.commit}, ${C.findZeroRecorded.date}: the releases v0.3.0 and v0.3.1)`;
        if (r.findZero === "compared" && !f?.exact) return `find_zero's answer was also compared with the canonical solution's zero (until ${C.findZeroUnrecorded.commit}, ${C.findZeroUnrecorded.date}): another zero failed`;
    }
    if (ev.dataset === "mbpp" && ev.entryPoint && !f?.exact) {
        if (SET_EQ.includes(ev.entryPoint) && !r.mbppSetEq) return `${ev.entryPoint} was compared by == before MBPP+'s set-equality oracle (${C.setEq.commit}, ${C.setEq.date}): the same elements in another order failed`;
        if (AREA_DISTANCE.includes(ev.entryPoint) && !r.mbppAreaDistance) return `${ev.entryPoint} was compared by == before its special oracle (${C.mbppOracles.commit}, ${C.mbppOracles.date})`;
    }
    return undefined;
}

/**
 * The cause of one disagreement with EvalPlus, with its evidence. `eddyLimit` is a limit of eddy's
 * own that a re-judge alone overturns (agreement.ts machineLimit), when one stopped the answer.
 */
export function explainEvalPlus(p: PublishedVerdict, eddy: Category, eddyDetail: string, j: EvalPlusJudged | undefined, eddyLimit: string | undefined): EvalPlusExplanation {
    const r = rulesOf(j);
    const ev = p.evidence ?? undefined;
    const differs = datasetDiffers(j);
    const evidence: string[] = [];
    const version = `EvalPlus ${r.version.id}`;
    if (!ev) evidence.push(`EvalPlus: ${p.detail}`, "no evidence was gathered (samples imported by an earlier eddy): import them again to have it");
    else if (ev.side === "published") evidence.push(`EvalPlus: ${ev.group ?? "?"} ${ev.status ?? "fail"}${ev.reported ? ` on ${ev.reported}` : ", naming no input"}`);
    else evidence.push(`eddy: ${eddy}: ${eddyDetail.slice(0, 200)}`);
    if (differs && j) evidence.push(datasetLine(j));
    const f = ev?.answer?.facts;
    const at = f?.at ? `${f.at.replace(":", " input ")}` : (ev?.group ?? "input");
    if (f && !f.notFound && !f.error) evidence.push(outputLine(f, at));
    if (ev?.answer && !f) evidence.push(`the probe of the answer there: ${ev.answer.category}${ev.answer.detail ? `: ${ev.answer.detail.slice(0, 160)}` : ""}`);
    const t = ev ? timing(ev, r) : undefined;
    if (t) evidence.push(t.line);
    if (ev?.guarded?.length) evidence.push(`the answer uses ${ev.guarded.join(", ")}, which EvalPlus's sandbox (reliability_guard) disables`);
    if (ev?.note) evidence.push(ev.note);
    const done = (cause: EvalPlusCause, explanation: string): EvalPlusExplanation => ({ cause, explanation, evidence });

    if (eddyLimit && p.correct) return done("eddy_harness", `eddy's harness: ${eddyLimit}, a limit a re-judge alone overturns (${eddyDetail}); EvalPlus passed it`);

    if (!p.correct) {
        // eddy passed it; EvalPlus failed it.
        const defect = ev ? taskDefect(ev, r, f) : undefined;
        if (defect) return done("their_defect", `a defect of ${version}: ${defect}`);
        if (f?.notFound) return done("dataset", `the input EvalPlus failed it on is not among the imported problem's ${ev?.group ?? ""} inputs: another version of the dataset`);
        if (f && !f.exact && !f.digest && (f.atol ?? 0) !== 0 && r.npTestingFloatBug)
            return done(
                "their_defect",
                `a defect of ${version}: floats compared by np.testing.assert_allclose, which fails to import in its sandbox (evalplus#157; fixed in ${EVALPLUS_CHANGES.allclose.commit}, ${EVALPLUS_CHANGES.allclose.date}): an inexact float failed though within atol${f.ulps !== null && f.ulps !== undefined ? ` (${f.ulps} ulp here)` : ""}`
            );
        if (ev?.guarded?.length && f?.eddyAccepts !== false) return done("their_harness", `EvalPlus's harness: its sandbox disables ${ev.guarded.join(", ")}, which the answer uses`);
        if (f && f.eddyAccepts === false && !f.digest) {
            if (differs) return done("dataset", "the answer's output there is not what the imported problem expects, and EvalPlus judged against another dataset");
            return done("unknown", "in the probe the answer's output on that input differs from what eddy's run accepted (an answer that is not deterministic?)");
        }
        if (t && f) {
            const pct = Math.round((100 * t.answerMs) / t.limitMs);
            if (t.answerMs > t.limitMs) {
                // eddy passed it: within the import's limit there, which is that version's only where the import took it.
                if (t.importLimitMs === null ? r.minTimeLimitS < IMPORT_MIN_S : t.importLimitMs > t.limitMs)
                    return done(
                        "their_rules",
                        `${version}'s own limit: the answer needs ${ms(t.answerMs)} of CPU here, over its ${ms(t.limitMs)} (at least ${r.minTimeLimitS} s per input), within eddy's import's${t.importLimitMs === null ? "" : ` (${ms(t.importLimitMs)} here)`}: EvalPlus was right by its rule (import with --evalplus-version to judge by it)`
                    );
                return done("their_harness", `EvalPlus's harness timed it out: ${ms(t.answerMs)} of CPU here, at its limit (${pct}%), within eddy's in the run`);
            }
            if (p.fault === "timeout" || t.answerMs >= TIMEOUT_SHARE * t.limitMs)
                return done("their_harness", `EvalPlus's harness timed it out: the answer gives ${f.exact ? "the expected output" : "an accepted output"} in ${ms(t.answerMs)} of CPU here, ${pct}% of its limit (wall-clock there, CPU time here)`);
            if (differs) return done("dataset", `EvalPlus judged against another dataset: the answer gives what the imported problem expects, in ${ms(t.answerMs)} (${pct}% of the limit)`);
            return done("unknown", `not reproducible from the sample: it gives ${f.exact ? "the expected output" : "an accepted output"} in ${ms(t.answerMs)} of CPU here, ${pct}% of EvalPlus's limit`);
        }
        if (p.fault === "timeout") return done("their_harness", `EvalPlus's harness timed out (${p.detail})`);
        if (differs) return done("dataset", "EvalPlus judged against another dataset");
        return done("unknown", `EvalPlus failed it at ${p.stage} (${p.detail}); eddy's oracle accepts it`);
    }

    // eddy failed it; EvalPlus passed it.
    if (f && !f.exact && !f.digest && !r.typeAndLengthChecked && (f.sameType === false || f.sameLength === false) && f.allclose)
        return done(
            "their_defect",
            `a defect of ${version}: no type or length check before np.allclose (added in ${EVALPLUS_CHANGES.typeAndLength.commit}, ${EVALPLUS_CHANGES.typeAndLength.date}): it accepted ${f.output} for ${f.expected}`
        );
    if (differs) return done("dataset", `EvalPlus judged against another dataset; eddy: ${eddy}`);
    return done("unknown", `eddy: ${eddy}: ${eddyDetail.slice(0, 200)}; EvalPlus passed it`);
}

/** What the report says once about a run's EvalPlus verdicts: which version's rules read them, and the datasets on each side. */
export function evalPlusNotes(j: EvalPlusJudged | undefined): string[] {
    const r = rulesOf(j);
    const how = !j ? "the current release: the run records no results file" : j.version.from === "flag" ? "as given at import" : j.version.from === "date" ? `by the results file's date (${j.date})` : "the current release: the results carry no date";
    const defects = [
        r.npTestingFloatBug ? "inexact floats failed (np.testing in its sandbox)" : "",
        r.findZero !== "poly" ? "find_zero misjudged" : "",
        !r.typeAndLengthChecked ? "no type or length check before np.allclose" : "",
        !r.mbppSetEq || !r.mbppAreaDistance ? "some MBPP+ special oracles missing" : ""
    ].filter(Boolean);
    const out = [`EvalPlus's verdicts are read by the rules of EvalPlus ${r.version.id} (${how}): at least ${r.minTimeLimitS} s per input (eddy's import: ${IMPORT_MIN_S} s, unless it took another version's)${defects.length ? `; known defects: ${defects.join("; ")}` : ""}.`];
    if (j && datasetDiffers(j))
        out.push(`Another version of the dataset: EvalPlus judged these samples against ${describeDatasetHash(j.hash!)}; eddy imported ${describeDatasetHash(j.imported.hash!)}${j.imported.source ? ` (${j.imported.source})` : ""}.`);
    else if (j?.hash && !j.imported.hash) out.push(`EvalPlus judged against a dataset of md5 ${j.hash}; the problems were imported before eddy recorded the dataset's md5: import them again to compare.`);
    return out;
}
