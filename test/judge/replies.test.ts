import { describe, expect, it } from "vitest";
import { MalformedReply, parseHelloReply, parseJudgeReply, parseMutantsReply, parseSourceReply } from "../../src/judge/worker/replies.js";

const JUDGED = { id: 1, category: "resource_exhaustion", detail: "CPU time limit exceeded", ms: 12.5, limit: "cpu", borderline: false, cpuMs: 2300, budgetMs: 2000 };

describe("the judge worker's replies are checked for their shape", () => {
    it("reads a judge reply, its limit a field of its own", () => {
        expect(parseJudgeReply(JUDGED)).toMatchObject({ category: "resource_exhaustion", limit: "cpu", cpuMs: 2300 });
        expect(parseJudgeReply({ ...JUDGED, category: "passed", limit: null, cpuMs: null }).limit).toBeNull();
    });

    it.each([
        ["an unknown category", { ...JUDGED, category: "pass" }, /malformed reply to judge: category/],
        ["a limit the judge does not have", { ...JUDGED, limit: "timeout" }, /malformed reply to judge: limit/],
        ["no limit field", (({ limit: _l, ...r }) => r)(JUDGED), /malformed reply to judge: limit/],
        ["a detail that is not text", { ...JUDGED, detail: 3 }, /malformed reply to judge: detail/],
        ["no borderline flag", (({ borderline: _b, ...r }) => r)(JUDGED), /malformed reply to judge: borderline/]
    ])("refuses %s in one line", (_what, reply, message) => {
        expect(() => parseJudgeReply(reply as never)).toThrow(MalformedReply);
        expect(() => parseJudgeReply(reply as never)).toThrow(message);
    });

    it("refuses a hello without the worker's limits, and other operations' wrong shapes", () => {
        expect(() => parseHelloReply({ id: 1, isolation: {}, python: "3.11", runtimes: {} } as never)).toThrow(/malformed reply to hello/);
        expect(() => parseSourceReply({ id: 1, source: 5 } as never)).toThrow(/malformed reply to source: source/);
        expect(() => parseMutantsReply({ id: 1, mutants: ["mutant_a", 2] } as never)).toThrow(/malformed reply to mutants: mutants\.1/);
        expect(parseMutantsReply({ id: 1, mutants: ["mutant_a"] })).toEqual(["mutant_a"]);
    });
});
