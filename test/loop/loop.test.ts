import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Embedder, cosine } from "../../src/embed/Embedder.js";
import { writeTinyEmbedModel } from "../../src/embed/tinyEmbedModel.js";
import { buildLoopReport, renderLoopHtml, renderLoopText } from "../../src/loop/report.js";
import { cleanSummary, normalizeLoopConfig, runLoop } from "../../src/loop/runLoop.js";
import { openStore } from "../../src/store/Store.js";
import { modelsDir } from "../../src/util/paths.js";
import { connection } from "../../src/store/connection.js";
import { unwrapMessages } from "../support/messages.js";

const run = promisify(execFile);
const tmp = mkdtempSync(path.join(tmpdir(), "eddy-loop-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const CLI = path.resolve("dist/cli/bin.js");

// copy_last_n: instances 0, 1, 2 are its first edge tuples n = 0, 1, 2.
const right = (n: number, style = 0) =>
    "```python\n" + (style === 0 ? `def copy_last_n(values):\n    return list(values[-${n}:]) if ${n} else []\n` : `def copy_last_n(values):\n    if ${n} == 0:\n        return []\n    return list(values[-${n}:])\n`) + "```";
const wrong = "```python\ndef copy_last_n(values):\n    return values\n```";
const summary = (n: number) => `Write a python function named copy_last_n that returns a new list with the last ${n} elements of values.`;

/**
 * A scripted loop (round = turn: 2(k−1) is loop k's code, 2k−1 its summary), M = 3:
 * instance 0 fails loop 1 (l = 0); instance 1 passes loop 1, fails loop 2 (l = 1); instance 2 sustains all 3.
 * ASL with s = 1: (1·1² + 1·3²) / (3·3) = 10/9.
 */
function replayFile(): string {
    const lines = [
        { template: "copy_last_n", instance: 0, round: 0, response: wrong },
        { template: "copy_last_n", instance: 1, round: 0, response: right(1) },
        { template: "copy_last_n", instance: 1, round: 1, response: summary(1) },
        { template: "copy_last_n", instance: 1, round: 2, response: wrong },
        { template: "copy_last_n", instance: 2, round: 0, response: right(2) },
        { template: "copy_last_n", instance: 2, round: 1, response: summary(2) },
        { template: "copy_last_n", instance: 2, round: 2, response: right(2, 1) },
        { template: "copy_last_n", instance: 2, round: 3, response: "Sure! " + summary(2) + "\n```python\nprint('ignored')\n```" },
        { template: "copy_last_n", instance: 2, round: 4, response: right(2) }
    ];
    const file = path.join(tmp, "loop.jsonl");
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    return file;
}

const base = { templates: "copy_last_n", instances: 3, maxLoops: 3, judgeWorkers: 1 };

describe("pass@loop1 under the run's exclusion rules", () => {
    it("covers only tasks whose first loop was judged; harness outcomes and unstarted tasks are not failures", () => {
        const db = path.join(tmp, "first-loop.db");
        const store = openStore(db);
        try {
            const ls = store.loops;
            const id = "loop-20260101-aaaaaa";
            ls.createRun({ id, config_hash: "h", config_json: JSON.stringify({ maxLoops: 2, temperature: 0 }), eddy_version: "test", backend: "replay", model: "m", model_path: null, model_sha256: null, quantization: null, summariser: null, metadata_json: null, isolation_level: null });
            ls.addTasks([0, 1, 2, 3, 4].map((i) => ({ run_id: id, template_id: "t", instance_idx: i, params_json: "[]", bindings_json: "{}", question: "q", oracle_hash: "o" })));
            // Task 0 passes loop 1, task 1 fails it, task 2 is truncated at loop 1, task 3 passes loop 1 and
            // hits a judge_error at loop 2, task 4 has not started. Covered: 0, 1, 3 → pass@loop1 = 2/3 (of 5 tasks).
            const step = (i: number, loop: number, category: string) => ({ run_id: id, template_id: "t", instance_idx: i, loop, question: "q", prompt_json: "[]", response: "", code: null, category, detail: "", stop_reason: "stop", prompt_tokens: 0, generated_tokens: 0, gen_ms: 0 });
            ls.addSteps([step(0, 1, "passed"), step(0, 2, "passed"), step(1, 1, "assertion_error"), step(2, 1, "truncated"), step(3, 1, "passed"), step(3, 2, "judge_error")]);
            const rep = buildLoopReport(store, [id]);
            const run = rep.runs[0]!;
            expect(run.firstLoopTasks).toBe(3);
            expect(run.firstLoopPassRate).toBeCloseTo(2 / 3, 12);
            expect(renderLoopText(rep)).toMatch(/ {2}0\.667 \(3 of 5\) {2}/);
            expect(renderLoopText(rep)).toContain("over the tasks whose first loop was judged");
            expect(renderLoopHtml(rep)).toContain("0.667 (3 of 5)");
        } finally {
            store.close();
        }
    });
});

describe("eddy loop on replayed answers", () => {
    let file: string;
    beforeAll(() => {
        file = replayFile();
    });

    it("stops each task at its first failure and scores ASL = 10/9 by hand", async () => {
        const db = path.join(tmp, "replay.db");
        const r = await runLoop(normalizeLoopConfig({ ...base, backend: "replay", replay: file, db }));
        expect(r.status).toBe("complete");
        const store = openStore(db);
        try {
            const rep = buildLoopReport(store, [r.runId]).runs[0]!;
            expect(rep.asl.asl).toBeCloseTo(10 / 9, 12);
            expect(rep.asl.sustainedCounts).toEqual([1, 1, 0, 1]);
            expect(rep.tasks.map((t) => [t.instance, t.sustained, t.firstFailure])).toEqual([[0, 0, 1], [1, 1, 2], [2, 3, null]]);
            expect(rep.tasks[0]!.failureCategory).not.toBe("passed");
            expect(rep.perTemplate).toHaveLength(1);
            expect(rep.perTemplate[0]!.asl.asl).toBeCloseTo(10 / 9, 12);
            expect(rep.firstLoopPassRate).toBeCloseTo(2 / 3, 12);
            expect(rep.perLoop.map((l) => [l.reached, l.passed])).toEqual([[3, 2], [2, 1], [1, 1]]);
            // The summary became the next question; prose outside code fences only.
            const t2 = rep.tasks[2]!;
            expect(t2.loops[1]!.question).toBe(summary(2));
            expect(t2.loops[2]!.question).toBe("Sure! " + summary(2));
            // Diffs between successive codes: loop 2 rewrote the body, loop 3 went back.
            expect(t2.loops[1]!.added).toBeGreaterThan(0);
            expect(t2.loops[1]!.diff!.some((l) => l.startsWith("+    if 2 == 0:"))).toBe(true);
            expect(renderLoopText(buildLoopReport(store, [r.runId]), { diffs: true })).toMatch(/failed at loop 2/);
            expect(renderLoopHtml(buildLoopReport(store, [r.runId]))).toContain("ASL");
        } finally {
            store.close();
        }
    });

    it("is resumable: a run stopped after the first phase ends where an uninterrupted one does", async () => {
        const db = path.join(tmp, "resume.db");
        const stop = new AbortController();
        const first = await runLoop(normalizeLoopConfig({ ...base, backend: "replay", replay: file, db }), { signal: stop.signal, onProgress: () => stop.abort() });
        expect(first.status).toBe("interrupted");
        let store = openStore(db);
        const partial = buildLoopReport(store, [first.runId]).runs[0]!;
        store.close();
        expect(partial.unfinished).toBeGreaterThan(0);
        expect(partial.tasks.flatMap((t) => t.loops)).toHaveLength(3);
        const again = await runLoop(normalizeLoopConfig({ ...base, backend: "replay", replay: file, db, resume: first.runId }));
        expect(again).toMatchObject({ runId: first.runId, status: "complete" });
        store = openStore(db);
        try {
            const rep = buildLoopReport(store, [first.runId]).runs[0]!;
            expect(rep.asl.asl).toBeCloseTo(10 / 9, 12);
            expect(rep.unfinished).toBe(0);
            // Same settings again: the finished run is found, nothing new is created.
            expect((await runLoop(normalizeLoopConfig({ ...base, backend: "replay", replay: file, db }))).runId).toBe(first.runId);
        } finally {
            store.close();
        }
    });

    it("takes s at the failure boundary from embeddings: ASL = (s·1 + 9)/9", async () => {
        const embedDir = writeTinyEmbedModel(path.join(tmp, "embed"));
        const db = path.join(tmp, "embed.db");
        const r = await runLoop(normalizeLoopConfig({ ...base, backend: "replay", replay: file, db, embedModel: embedDir }));
        const store = openStore(db);
        try {
            const rep = buildLoopReport(store, [r.runId]).runs[0]!;
            const t1 = rep.tasks[1]!;
            const e = await Embedder.load(embedDir);
            const [q, s] = await e.embed([t1.loops[0]!.question, summary(1)]);
            await e.close();
            const sim = cosine(q!, s!);
            expect(t1.boundarySimilarity).toBeCloseTo(sim, 6);
            expect(sim).toBeLessThan(1);
            expect(rep.asl.asl).toBeCloseTo((sim + 9) / 9, 6);
            expect(rep.perLoop[0]!.meanSimilarity).not.toBeNull();
            expect(rep.perLoop[1]!.meanDrift).not.toBeNull();
        } finally {
            store.close();
        }
    });
});

describe("eddy loop on the reference backend and eddy's tiny model", () => {
    it("sustains every loop on model solutions: ASL = M", async () => {
        const db = path.join(tmp, "reference.db");
        const r = await runLoop(normalizeLoopConfig({ backend: "reference", templates: "copy_last_n", instances: 2, maxLoops: 2, judgeWorkers: 1, db }));
        const store = openStore(db);
        try {
            const rep = buildLoopReport(store, [r.runId]).runs[0]!;
            expect(rep.asl.asl).toBe(2);
            expect(rep.tasks.every((t) => t.sustained === 2 && t.firstFailure === null)).toBe(true);
        } finally {
            store.close();
        }
    });

    const tiny = path.join(modelsDir(), "eddy-tiny-f32.gguf");
    it.skipIf(!existsSync(tiny))("runs the tiny GGUF model end to end: noise ends every task at loop 1", async () => {
        const db = path.join(tmp, "tiny.db");
        const r = await runLoop(normalizeLoopConfig({ backend: "llama", model: tiny, templates: "copy_last_n", instances: 2, maxLoops: 3, maxTokens: 8, threads: 1, judgeWorkers: 1, db }));
        expect(r.status).toBe("complete");
        const store = openStore(db);
        try {
            const rep = buildLoopReport(store, [r.runId]).runs[0]!;
            expect(rep.model).toBe("eddy-tiny-f32");
            // Noise never closes its code block: cut at max tokens (truncated, a harness outcome), so the
            // loop ends at loop 1 and the task is reported apart, outside ASL (over no task: 0).
            expect(rep.tasks.map((t) => [t.firstFailure, t.failureCategory])).toEqual([[1, "truncated"], [1, "truncated"]]);
            expect(rep.harness).toBe(2);
            expect(rep.asl).toMatchObject({ asl: 0, tasks: 0 });
        } finally {
            store.close();
        }
    });
});

describe("eddy loop CLI", () => {
    it("runs, reports JSON comparable across runs, and refuses bad input with one line", async () => {
        const db = path.join(tmp, "cli.db");
        const file = replayFile();
        const a = await run(process.execPath, [CLI, "loop", "run", "--backend", "replay", "--replay", file, "-t", "copy_last_n", "-M", "3", "-N", "3", "--judge-workers", "1", "--db", db]);
        // The second run through the API (one CLI spawn is enough to cover the command).
        const b = await runLoop(normalizeLoopConfig({ backend: "reference", templates: "copy_last_n", instances: 3, maxLoops: 3, judgeWorkers: 1, db }));
        const ids = [a.stdout.trim(), b.runId];
        const rep = JSON.parse((await run(process.execPath, [CLI, "loop", "report", ...ids, "--format", "json", "--db", db])).stdout);
        expect(rep.runs.map((x: { asl: { asl: number } }) => x.asl.asl)).toEqual([10 / 9, 3]);
        // `eddy report` reports loop runs too, with the same figures.
        const viaReport = JSON.parse((await run(process.execPath, [CLI, "report", ...ids, "--format", "json", "--db", db])).stdout);
        expect(viaReport.runs.map((x: { asl: { asl: number } }) => x.asl.asl)).toEqual([10 / 9, 3]);
        const text = (await run(process.execPath, [CLI, "loop", "report", ids[0]!, "--db", db])).stdout;
        expect(text).toMatch(/copy_last_n #1\s+l=1\s+failed at loop 2/);
        const err = await run(process.execPath, [CLI, "loop", "report", "loop-nope", "--db", db]).catch((e: { code: number; stderr: string }) => e);
        expect((err as { code: number }).code).not.toBe(0);
        expect(unwrapMessages((err as { stderr: string }).stderr).trim()).toMatch(/^eddy: no loop run 'loop-nope'/);
        const bad = await run(process.execPath, [CLI, "loop", "run", "--backend", "reference", "-t", "copy_last_n", "-N", "0", "--db", db]).catch((e: { code: number; stderr: string }) => e);
        expect(unwrapMessages((bad as { stderr: string }).stderr).trim()).toBe('eddy: loops must be an integer >= 1 (got "0")');
        await expect(runLoop(normalizeLoopConfig({ backend: "reference", templates: "copy_last_n", embedModel: path.join(tmp, "none"), db }))).rejects.toThrow(/^embedding model folder .* does not exist/);
        const store = openStore(db);
        try {
            // Refused before anything was stored: still just the two runs.
            expect(connection(store).prepare("SELECT COUNT(*) AS n FROM loop_runs").get()).toEqual({ n: 2 });
        } finally {
            store.close();
        }
    });

    it("cleanSummary keeps prose and drops code blocks", () => {
        expect(cleanSummary("Write a python function named f that x.\n```python\nprint(1)\n```\n")).toBe("Write a python function named f that x.");
        expect(cleanSummary("```\nWrite a python function named f that y\n```")).toBe("Write a python function named f that y");
    });
});
