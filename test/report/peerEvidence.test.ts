/**
 * Issue #44: each disagreement with EvalPlus filed under the cause its evidence shows, read by the
 * rules of the EvalPlus version that judged (src/report/peerEvidence.ts).
 */
import { describe, expect, it } from "vitest";
import type { EvalPlusJudged } from "../../src/import/provenance.js";
import { explainEvalPlus, evalPlusNotes } from "../../src/report/peerEvidence.js";
import type { PeerEvidence, ProbeFacts, PublishedVerdict } from "../../src/store/publishedVerdicts.js";

const judged = (asOf: string, hash = "a".repeat(32), imported = "a".repeat(32)): EvalPlusJudged => ({
    results: "/r/samples_eval_results.json",
    date: `${asOf} 10:00`,
    hash,
    imported: { hash: imported, fileHash: imported, source: "/d/problems.jsonl" },
    version: { id: `main as of ${asOf}`, asOf, from: "date" }
});
const failed = (evidence: PeerEvidence | null, fault: "timeout" | null = null): PublishedVerdict => ({
    templateId: "t",
    instance: 0,
    round: 0,
    source: "EvalPlus",
    correct: false,
    stage: "fuzzing",
    fault,
    detail: "base pass, plus fail",
    extracted: null,
    location: "s.jsonl:1",
    evidence
});
const facts = (f: Partial<ProbeFacts> = {}): ProbeFacts => ({ at: "plus:3", exact: true, eddyAccepts: true, atol: 0, limitMs: 4000, ...f });
const ev = (e: Partial<PeerEvidence> = {}, answerMs = 10, f: Partial<ProbeFacts> = {}): PeerEvidence => ({
    side: "published",
    group: "plus",
    status: "fail",
    reported: "[3]",
    dataset: "humaneval",
    entryPoint: "f",
    answer: { category: "answered", cpuMs: answerMs, facts: facts(f) },
    canonical: { category: "answered", cpuMs: 1, facts: facts() },
    cpuFactor: 1,
    ...e
});

describe("the cause of a disagreement with EvalPlus, from its evidence", () => {
    it("EvalPlus's own timeout is its harness's, however fast the answer here", () => {
        const c = explainEvalPlus(failed(ev({ status: "timeout" }), "timeout"), "passed", "", judged("2025-06-01"), undefined);
        expect(c.cause).toBe("their_harness");
        expect(c.evidence.join("\n")).toMatch(/CPU time here: the answer 10 ms/);
    });

    it("a fast, right answer EvalPlus failed is not reproducible: unknown, or the dataset's when the results name another dataset", () => {
        expect(explainEvalPlus(failed(ev()), "passed", "", judged("2025-06-01"), undefined).cause).toBe("unknown");
        const other = explainEvalPlus(failed(ev()), "passed", "", judged("2025-06-01", "b".repeat(32)), undefined);
        expect(other.cause).toBe("dataset");
        expect(other.evidence.join("\n")).toContain(`EvalPlus judged against md5 ${"b".repeat(32)}; eddy imported md5 ${"a".repeat(32)}`);
    });

    it("what EvalPlus's sandbox disables, used by the answer, is its harness's", () => {
        expect(explainEvalPlus(failed(ev({ guarded: ["os.getcwd"] })), "passed", "", judged("2025-06-01"), undefined).explanation).toMatch(/its sandbox disables os\.getcwd/);
    });

    it("find_zero in v0.3.0 and v0.3.1 (never counted as passed) and MBPP+'s set-equality before its oracle are defects of those versions", () => {
        const fz = explainEvalPlus(failed(ev({ entryPoint: "find_zero" })), "passed", "", judged("2024-10-20"), undefined);
        expect(fz).toMatchObject({ cause: "their_defect" });
        expect(fz.explanation).toMatch(/find_zero's inputs were never recorded as passed/);
        expect(explainEvalPlus(failed(ev({ entryPoint: "find_zero" })), "passed", "", judged("2024-11-01"), undefined).cause).toBe("unknown");
        const set = explainEvalPlus(failed(ev({ dataset: "mbpp", entryPoint: "similar_elements" }, 10, { exact: false })), "passed", "", judged("2024-04-01"), undefined);
        expect(set.explanation).toMatch(/set-equality oracle \(8649c02, 2024-04-12\)/);
    });

    it("an old run without evidence says so, and the notes name the version and its known defects", () => {
        const c = explainEvalPlus(failed(null), "passed", "", judged("2025-06-01"), undefined);
        expect(c.cause).toBe("unknown");
        expect(c.evidence).toContain("no evidence was gathered (samples imported by an earlier eddy): import them again to have it");
        expect(evalPlusNotes(judged("2024-04-01"))[0]).toMatch(/main as of 2024-04-01 .*at least 1 s per input .*known defects: inexact floats failed/);
        expect(evalPlusNotes(judged("2025-06-01", "b".repeat(32)))[1]).toMatch(/^Another version of the dataset/);
    });
});
