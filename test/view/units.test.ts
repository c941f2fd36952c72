import { describe, expect, it } from "vitest";
import { failingCall } from "../../src/view/failure.js";
import { answerFilter } from "../../src/view/pages/answers.js";
import { route, ROUTES } from "../../src/view/routes.js";
import { answersUrl, compareUrl, instanceUrl, runUrl, templateUrl } from "../../src/view/urls.js";
import { likePattern } from "../../src/store/viewQueries.js";
import { isLoopback } from "../../src/view/server.js";
import { csvField } from "../../src/report/csv.js";
import { CSV_COLUMNS } from "../../src/report/csv.js";
import { formatScoreWithInterval, score, SCORES, scoreLegend, scoresIn } from "../../src/report/scoreTable.js";
import { pageCsp, servedCsp } from "../../src/report/page.js";
import { comparePairs } from "../../src/view/pages/run.js";

describe("the viewer's URLs and routes", () => {
    it("every link a page builds is routed back to its page with the same captures, odd names included", () => {
        const run = "20260101-ab/c d";
        const template = "t%1?#x";
        const cases: [string, string, string[]][] = [
            [runUrl(run), "runPage", [run]],
            [templateUrl(run, template), "templatePage", [run, template]],
            [instanceUrl(run, 7, template, 3), "instancePage", [run, "7", template, "3"]]
        ];
        for (const [url, page, params] of cases) {
            const r = route(url)!;
            expect(r.page.name, url).toBe(page);
            expect(r.params).toEqual(params);
        }
        expect(instanceUrl("r", 1, "t", 2, 4)).toMatch(/#round-4$/);
        expect(route("/run/a/b/c")).toBeUndefined();
        expect(route("/run/%E0%A4%A")).toBeUndefined();
        expect(ROUTES.length).toBeGreaterThan(10);
    });

    it("answer filters travel in the URL and come back as filters; a bad number is refused by name (issue #47: a 400 page, not a guess)", () => {
        const url = answersUrl({ run: "r1", template: "t", category: "failing", temperature: 0.8, q: "100% a_b", group: "" });
        expect(url).not.toContain("group=");
        const f = answerFilter(new URL(url, "http://127.0.0.1").searchParams);
        expect(f).toEqual({ run: "r1", template: "t", category: "failing", temperature: 0.8, q: "100% a_b" });
        expect(() => answerFilter(new URLSearchParams("config=abc&instance=2"))).toThrow(/'config' must be a whole number/);
        expect(answerFilter(new URLSearchParams("config=3&instance=2"))).toEqual({ config: 3, instance: 2 });
        expect(compareUrl(1, 2)).toBe("/compare?a=1&b=2");
        expect(compareUrl()).toBe("/compare");
    });

    it("searches text literally: LIKE's wildcards and its escape are escaped", () => {
        expect(likePattern("100% a_b \\x")).toBe("%100\\% a\\_b \\\\x%");
    });

    it("knows the loopback addresses", () => {
        expect(["127.0.0.1", "127.1.2.3", "localhost", "::1"].map(isLoopback)).toEqual([true, true, true, true]);
        expect(["0.0.0.0", "192.168.1.2", "evil.com", "127.0.0.1.evil.com", ""].map(isLoopback)).toEqual([false, false, false, false, false]);
    });
});

describe("the failing call in a verdict detail", () => {
    it("reads the judge's two forms, and nothing else", () => {
        expect(failingCall("fixed test 2: f([1, 2], 3) expected [2], got None")).toEqual({ label: "fixed test 2", input: "f([1, 2], 3)", expected: "[2]", got: "None" });
        expect(failingCall("random input 4: g('a, b'): model solution gives 'x', candidate gives 'y, z'")).toEqual({ label: "random input 4", input: "g('a, b')", expected: "'x'", got: "'y, z'" });
        expect(failingCall("SyntaxError: invalid syntax (line 3)")).toBeUndefined();
        expect(failingCall("timed out after 5 s while loading the module")).toBeUndefined();
        expect(failingCall(null)).toBeUndefined();
    });
});

describe("the one table of scores", () => {
    it("names each score once, with a description, how to read it and its sections in table order", () => {
        expect(SCORES.map((s) => s.name)).toEqual(["AS", "CPS", "CCS", "RLPR", "PSR", "gap", "AV", "pass@1"]);
        expect(scoresIn("scores").map((s) => s.name)).toEqual(["AS", "CPS", "CCS"]);
        for (const s of SCORES) expect(s.description.length && s.read.length, s.name).toBeTruthy();
        expect(scoreLegend([score("AV")])).toEqual(["AV: Average variance: mean of p(1 − p) over instances (bootstrap 95%) (0–0.25, lower is steadier)."]);
    });

    it("the CSV header comes from it: intervals as _lo/_hi, the category after the primary scores", () => {
        const at = CSV_COLUMNS.indexOf("AS");
        expect(CSV_COLUMNS.slice(at, at + 17)).toEqual(["AS", "CPS", "CCS", "category", "RLPR", "RLPR_lo", "RLPR_hi", "PSR", "PSR_lo", "PSR_hi", "gap", "AV", "AV_lo", "AV_hi", "pass@1", "pass@k_max", "truncated"]);
        expect(csvField(NaN)).toBe("");
    });

    it("formats a score with its interval where it has one", () => {
        const s = { AS: 0.5, CPS: 1, CCS: 0, RLPR: 0.5, PSR: 0, gap: 0.5, AV: 0.25, passAtK: {}, RLPR_CI: { lo: 0.25, hi: 0.75 } };
        expect(formatScoreWithInterval(score("RLPR"), s)).toBe("0.500 [0.25, 0.75]");
        expect(formatScoreWithInterval(score("AS"), s)).toBe("0.500");
        expect(formatScoreWithInterval(score("pass@1"), s)).toBe("–");
    });
});

describe("the served page's policy", () => {
    it("adds form and base limits to the report's policy, and frame-ancestors only in the header", () => {
        expect(pageCsp(undefined, { served: true })).toBe("default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'");
        expect(servedCsp()).toBe(`${pageCsp(undefined, { served: true })}; frame-ancestors 'none'`);
        expect(servedCsp()).not.toContain("script-src");
        expect(pageCsp()).not.toContain("form-action");
    });
});

describe("pairs offered for comparison on a run's page", () => {
    const conf = (id: number, model: string, quantization: string | null, temperature = 0) => ({ id, runId: "r", label: `${model} t=${temperature} default`, model, quantization, temperature, wrapper: "default", modelSha256: null, decoding: {}, metadata: null });
    it("quantisations of one model first, else every pair", () => {
        const quant = [conf(1, "qwen-Q8_0", "Q8_0"), conf(2, "qwen-Q4_K_M", "Q4_K_M"), conf(3, "llama-Q4_K_M", "Q4_K_M"), conf(4, "qwen-Q8_0", "Q8_0", 0.8)];
        expect(comparePairs(quant).map(([a, b]) => [a.id, b.id])).toEqual([[1, 2]]);
        expect(comparePairs([conf(1, "a", null), conf(2, "b", null), conf(3, "c", null)]).map(([a, b]) => [a.id, b.id])).toEqual([[1, 2], [1, 3], [2, 3]]);
        expect(comparePairs([conf(1, "a", null)])).toEqual([]);
    });
});
