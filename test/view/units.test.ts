import { describe, expect, it } from "vitest";
import { failingCall } from "../../src/view/failure.js";
import { answerFilter } from "../../src/view/pages/answers.js";
import { route, ROUTES } from "../../src/view/routes.js";
import { answersUrl, compareUrl, instanceUrl, leaderboardUrl, runUrl, templateUrl } from "../../src/view/urls.js";
import { likePattern } from "../../src/store/viewQueries.js";
import { isLoopback } from "../../src/view/server.js";
import { csvField } from "../../src/report/csv.js";
import { CSV_COLUMNS } from "../../src/report/csv.js";
import { formatScoreWithInterval, score, SCORES, scoreLegend, scoresIn } from "../../src/report/scoreTable.js";
import { pageCsp, servedCsp } from "../../src/report/page.js";
import { comparePairs } from "../../src/view/pages/run.js";
import { benchmarkOf, comparePair, matchBenchmarks, modelKey, rankEntries, type BoardEntry } from "../../src/view/leaderboard.js";
import { boardState, LEADERBOARD_SORTS } from "../../src/view/pages/leaderboard.js";
import { namedParams, paramsText } from "../../src/view/params.js";
import { scoreDefinitions, verdictLegend, verdictSymbol } from "../../src/view/layout.js";

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

describe("the leaderboard's ranks, ties and benchmark matches (issue #48)", () => {
    const entry = (configId: number, AS: number, lo: number, hi: number, over: Partial<BoardEntry> = {}): BoardEntry => ({
        configId,
        runId: "r",
        label: `m${configId} t=0 default`,
        model: `m${configId}`,
        quantization: null,
        temperature: 0,
        wrapper: "default",
        kvCache: null,
        backend: "reference",
        language: "python",
        runStatus: "complete",
        templates: 1,
        judged: 10,
        total: 10,
        responses: 30,
        harness: { truncated: 0, judge_error: 0, missing: 0 },
        AS,
        CPS: AS,
        CCS: AS,
        pass1: AS,
        intervals: { AS: { lo, hi }, CPS: { lo, hi }, CCS: { lo, hi } },
        intervalMethod: "test",
        categories: { perfect_success: 0, stochastic_failure: 1, inconsistent_generalisation: 0, perfect_failure: 0, uncategorised: 0 },
        benchmark: null,
        ...over
    });

    it("ranks by overlapping intervals when configurations share no instances: a tie is a range of ranks", () => {
        const e = [entry(1, 0.9, 0.85, 0.95), entry(2, 0.8, 0.7, 0.88), entry(3, 0.3, 0.2, 0.4)];
        const ranks = rankEntries(e, "AS", (a, b) => comparePair(a, b, undefined, undefined, "AS"));
        expect([...ranks].map(([id, r]) => [id, r.lo, r.hi, r.ties.map((t) => t.configId)])).toEqual([
            [1, 1, 2, [2]],
            [2, 1, 2, [1]],
            [3, 3, 3, []]
        ]);
        expect(ranks.get(1)!.ties[0]!.how).toBe("95% intervals overlap");
    });

    it("pairs configurations that share their instances: an exact McNemar test (src/stats) decides, not the intervals", () => {
        // Twelve instances, one round each: A passes all, B fails all: intervals overlap by construction, McNemar tells them apart.
        const part = (passed: (i: number) => boolean) => {
            const instances = new Map<string, number>();
            const responses = new Map<string, boolean>();
            for (let i = 0; i < 12; i++) {
                instances.set(`${i}\u0000[${i}]`, passed(i) ? 3 : 0);
                responses.set(`${i}\u0000[${i}]\u00000`, passed(i));
            }
            return new Map([["t", { instances, responses }]]);
        };
        const a = entry(1, 1, 0, 1);
        const b = entry(2, 0, 0, 1);
        const v = comparePair(a, b, part(() => true), part(() => false), "CCS");
        expect(v.order).toBe(1);
        expect(v.how).toMatch(/^exact McNemar on 12 shared instances: 12 discordant \(12 to 0\), p = <0\.001$/);
        // Two flips of twelve: not enough to tell apart.
        expect(comparePair(a, entry(2, 10 / 12, 0, 1), part(() => true), part((i) => i > 1), "AS").order).toBe(0);
        // Sharing too few instances: back to the intervals.
        const few = new Map([["t", { instances: new Map([["0\u0000[0]", 3]]), responses: new Map([["0\u0000[0]\u00000", true]]) }]]);
        expect(comparePair(a, b, part(() => true), few, "CCS").how).toBe("95% intervals overlap");
    });

    it("matches a model's benchmark runs by name, without its org/ prefix, quantisation suffix or case", () => {
        expect(modelKey("Qwen2.5-Coder-7B-Q4_K_M", "Q4_K_M")).toBe("qwen2.5-coder-7b");
        expect(modelKey("Qwen/qwen2.5-coder-7b", null)).toBe("qwen2.5-coder-7b");
        expect(modelKey("Qwen--Qwen2.5-Coder-7B.gguf", null)).toBe("qwen2.5-coder-7b");
        const bench = (id: number, model: string, quantization: string | null, pass1: number) =>
            entry(id, pass1, 0, 1, { model, quantization, benchmark: [{ dataset: "HumanEval+", pass1, problems: 164, configId: id, runId: "he", label: model, importedFrom: null, quantization, temperature: 0 }] });
        const nb = entry(1, 0.5, 0.4, 0.6, { model: "coder-Q4_0", quantization: "Q4_0" });
        const found = matchBenchmarks([nb, bench(2, "coder-Q8_0", "Q8_0", 0.8), bench(3, "coder-Q4_0", "Q4_0", 0.7), bench(4, "other", null, 0.9)]);
        // The same quantisation first.
        expect(found.get(1)!.map((b) => [b.dataset, b.configId])).toEqual([["HumanEval+", 3]]);
        expect(benchmarkOf("humaneval_12")).toBe("HumanEval+");
        expect(benchmarkOf("mbpp_2")).toBe("MBPP+");
        expect(benchmarkOf("sum_range")).toBeUndefined();
    });

    it("takes its sort and filters from the URL, and refuses what it does not take by name (a 400 page)", () => {
        expect(boardState(new URLSearchParams("sort=CCS&dir=asc&quant=Q4_0&t=0.80"))).toEqual({ sort: "CCS", dir: "asc", filters: { quant: "Q4_0", t: "0.8" }, q: undefined });
        expect(boardState(new URLSearchParams(""))).toEqual({ sort: "AS", dir: "desc", filters: {}, q: undefined });
        expect(() => boardState(new URLSearchParams("sort=nope"))).toThrow(/'sort' must be one of model, quant/);
        expect(() => boardState(new URLSearchParams("dir=up"))).toThrow(/'dir' must be asc or desc/);
        expect(() => boardState(new URLSearchParams("t=hot"))).toThrow(/'t' must be a temperature/);
        expect(LEADERBOARD_SORTS).toEqual(expect.arrayContaining(["AS", "CPS", "CCS", "pass1", "bench", "diff"]));
        expect(route("/")!.page.name).toBe("leaderboardPage");
        expect(route("/runs")!.page.name).toBe("runsPage");
        expect(leaderboardUrl({ sort: "CCS", q: "" })).toBe("/?sort=CCS");
        expect(compareUrl(1, 2, { flips: "gained", page: 2 })).toBe("/compare?a=1&b=2&flips=gained&page=2");
    });
});

describe("a grid a person can read", () => {
    it("names an instance's parameters as its template does, the tuple where they are not stored", () => {
        expect(paramsText({ lo: 1, hi: 3 }, [1, 3])).toBe("lo=1, hi=3");
        expect(namedParams({ text: "a,b", ch: "," }, ["a,b", ","])).toEqual([
            { name: "text", value: '"a,b"' },
            { name: "ch", value: '","' }
        ]);
        expect(paramsText({}, [1, "a"])).toBe('(1, "a")');
    });

    it("gives every verdict a symbol besides its colour, each different, and a legend of only those present", () => {
        const all = ["passed", "assertion_error", "fuzzing_failure", "runtime_error", "resource_exhaustion", "syntax_error", "static_error", "no_function", "wrong_function_name", "wrong_arg_count", "truncated", "judge_error", "missing", "unjudged"];
        const symbols = all.map(verdictSymbol);
        expect(new Set(symbols).size).toBe(all.length);
        expect(symbols.every((s) => s.length > 0)).toBe(true);
        const legend = verdictLegend(["passed", "fuzzing_failure"]).value;
        expect(legend).toContain('data-verdict="passed"');
        expect(legend).toContain('data-verdict="fuzzing_failure"');
        expect(legend).not.toContain("assertion_error");
        expect(scoreDefinitions().value).toContain("<dt>CCS</dt><dd>Consistent-Correctness Score");
    });
});
