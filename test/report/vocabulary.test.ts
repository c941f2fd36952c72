/**
 * Issue #47: one vocabulary. For one run "judged" meant three things (the CLI's `0/0`, the viewer's front page
 * `48`, its run page `0 of 24`) and the report said "complete (11 answers missing)" where `runs list` and the
 * viewer said "incomplete". The words are defined once (src/vocabulary.ts: judged, missing, complete and
 * incomplete) and every surface says the same numbers with them: `eddy run`'s summary and progress, `runs list`,
 * `runs show`, `eddy report` (text, Markdown, HTML, JSON), the viewer's list of runs and run page, and the exports.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runStatus } from "../../src/report/format.js";
import { startViewer } from "../../src/view/server.js";
import { runUrl, runsUrl } from "../../src/view/urls.js";
import { answersPhrase, countAnswers, isJudged, judgedOf, runState } from "../../src/vocabulary.js";
import { BIN } from "../run/helpers.js";
import { unwrapMessages } from "../support/messages.js";

describe("a run's state in words", () => {
    it("the report says what runs list says", () => {
        expect(runStatus({ status: "complete", missing: 11 })).toBe("incomplete: 11 answers missing");
        expect(runStatus({ status: "complete", missing: 11 })).toBe(runState("complete", 11));
        expect(runStatus({ status: "complete", missing: 1 })).toBe("incomplete: 1 answer missing");
        expect(runStatus({ status: "complete", missing: 0 })).toBe("complete");
        expect(runStatus({ status: "interrupted", missing: 3 })).toBe(runState("interrupted", 3));
        expect(runStatus({ status: "complete", missing: 11 })).not.toMatch(/^complete/);
    });

    it("judged: a model verdict, never a harness outcome or a missing answer", () => {
        expect(["passed", "no_function", "fuzzing_failure"].every(isJudged)).toBe(true);
        expect(["truncated", "judge_error", "missing", "unjudged", null, undefined].some(isJudged)).toBe(false);
        const c = countAnswers(8, { passed: 2, no_function: 1, truncated: 1 });
        expect(c).toEqual({ planned: 8, judged: 3, passed: 2, truncated: 1, judge_error: 0, missing: 4 });
        expect(judgedOf(c)).toBe("3 of 8");
        expect(answersPhrase(c)).toBe("judged 3 of 8, 2 passed; 1 truncated, 4 missing");
        // All 48 answers truncated (eddy's tiny model): none judged, none missing.
        expect(judgedOf(countAnswers(48, { truncated: 48 }))).toBe("0 of 48");
    });
});

describe("one run, the same numbers and words on every surface", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "eddy-vocabulary-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const db = path.join(dir, "v.db");
    const { EDDY_DB: _db, ...env } = process.env;
    const eddy = (args: string[]) => {
        const r = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: "utf8", env: { ...env, NO_COLOR: "1" } });
        return { code: r.status, out: r.stdout, err: r.stderr };
    };

    it("a replayed run with answers missing, one truncated and one without code: judged 3 of 8, incomplete, 4 missing", async () => {
        // 4 instances × 2 rounds = 8 planned answers: 2 pass, 1 has no code (no_function: judged, failed), 1 is cut off
        // by max tokens (truncated: the harness's, not judged), 4 are absent from the file (missing).
        const right = (start: number) => "```python\ndef every_kth(values):\n" + `    return values[${start}::1]\n` + "```";
        const lines = [
            { template: "list_every_kth", instance: 0, round: 0, response: right(0) },
            { template: "list_every_kth", instance: 1, round: 0, response: right(1) },
            { template: "list_every_kth", instance: 2, round: 0, response: "I cannot write this." },
            { template: "list_every_kth", instance: 2, round: 1, response: "```python\ndef every_kth(values):\n    return [", stop_reason: "max_tokens" }
        ];
        writeFileSync(path.join(dir, "answers.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
        const run = eddy(["run", "--backend", "replay", "--replay", "answers.jsonl", "--templates", "list_every_kth", "--instances", "4", "--rounds", "2", "--db", db]);
        expect(run.code, run.err).toBe(0);
        const id = run.out.trim();
        const err = unwrapMessages(run.err);
        // eddy run: the end-of-run summary, and the last progress line (not a terminal: plain lines).
        expect(err).toContain(`run ${id}: incomplete: 4 answers missing in `);
        expect(err).toContain("  answers:  judged 3 of 8, 2 passed; 1 truncated, 4 missing");
        expect(err).toMatch(/ judged 3\/8 passed 2 \(1 truncated or judge_error\)/);

        // runs list: the short state, passed of judged, and the missing answers beside the stored ones.
        const list = eddy(["runs", "list", "--db", db]).out.split("\n").find((l) => l.startsWith(id))!;
        expect(list).toMatch(/ incomplete +replay +4 \+4 missing +2\/3 /);
        const listed = JSON.parse(eddy(["runs", "list", "--db", db, "--json"]).out) as { answers: unknown }[];
        expect(listed[0]!.answers).toEqual({ planned: 8, judged: 3, passed: 2, truncated: 1, judge_error: 0, missing: 4 });
        // runs show: the long state and the answers in one phrase.
        const show = eddy(["runs", "show", id, "--db", db]).out;
        expect(show).toContain(`run ${id}  (incomplete: 4 answers missing)`);
        expect(show).toContain("answers: judged 3 of 8, 2 passed; 1 truncated, 4 missing");

        // eddy report: the run's state and judged answers, the configuration's judged answers and instances.
        const text = eddy(["report", id, "--db", db, "--wide"]).out;
        expect(text).toMatch(/ incomplete: 4 answers missing +3 of 8 +replay /);
        expect(text).toMatch(/^answers t=0 default +reproducible +3 of 8 +/m);
        expect(text).toMatch(/^list_every_kth +3 of 4 +2 /m);
        expect(text).toContain("judged: answers with a model verdict (not truncated, judge_error or missing), of the answers planned.");
        const md = eddy(["report", id, "--db", db, "--format", "md"]).out;
        expect(md).toContain("incomplete: 4 answers missing");
        expect(md).toMatch(/\| 3 of 8 \|/);
        const page = eddy(["report", id, "--db", db, "--format", "html"]).out;
        expect(page).toMatch(/<td>incomplete: 4 answers missing<\/td><td class="n">3 of 8<\/td>/);
        expect(page).toMatch(/<td class="n">3 of 8<\/td><td class="n">3 of 4<\/td>/);
        const json = JSON.parse(eddy(["report", id, "--db", db, "--format", "json"]).out) as { runs: { status: string; missing: number; answers: unknown }[]; configs: { answers: unknown }[] };
        expect(json.runs[0]!.answers).toEqual({ planned: 8, judged: 3, passed: 2, truncated: 1, judge_error: 0, missing: 4 });
        expect(json.runs[0]!.missing).toBe(4);
        expect(json.configs[0]!.answers).toEqual(json.runs[0]!.answers);

        // The viewer: its list of runs and the run's page.
        const viewer = await startViewer({ db, port: 0 });
        try {
            const get = async (url: string) => (await fetch(viewer.url.replace(/\/$/, "") + url)).text();
            const runs = await get(runsUrl());
            const row = new RegExp(`<tr><td><a href="[^"]*">${id}</a></td>(.*?)</tr>`, "s").exec(runs)?.[1];
            expect(row, runs).toBeDefined();
            expect(row).toContain("<td>incomplete</td>");
            expect(row).toMatch(/>3 of 8</);
            const runPage = await get(runUrl(id));
            expect(runPage).toContain("<dt>status</dt><dd>incomplete: 4 answers missing</dd><dt>judged</dt><dd>3 of 8</dd>");
            expect(runPage).toMatch(/<td class="n">3 of 8<\/td><td class="n">3 of 4<\/td>/);
            expect(runPage).not.toMatch(/<dd>complete<\/dd>/);
        } finally {
            await viewer.close();
        }

        // The exports: one row per planned answer, with the same judged, truncated and missing ones.
        const rows = eddy(["export", id, "--db", db]).out.trim().split("\n").map((l) => JSON.parse(l) as { category: string });
        expect(rows).toHaveLength(8);
        expect(rows.filter((r) => isJudged(r.category))).toHaveLength(3);
        expect(rows.filter((r) => r.category === "passed")).toHaveLength(2);
        expect(rows.filter((r) => r.category === "truncated")).toHaveLength(1);
        expect(rows.filter((r) => r.category === "missing")).toHaveLength(4);
        const eee = eddy(["export", id, "--db", db, "--format", "eee", "--out", "eee"]);
        expect(eee.code, eee.err).toBe(0);
        const aggregate = eee.out.trim().split("\n").find((f) => f.endsWith(".json") && !f.endsWith("_samples.jsonl"))!;
        expect(readFileSync(path.resolve(dir, aggregate), "utf8")).toMatch(/"responses_judged": "3"/);
    }, 180_000);
});
