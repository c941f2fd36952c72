import { spawn } from "node:child_process";
import { copyFileSync, existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalizeStudyConfig } from "../../src/run/config.js";
import { runStudy } from "../../src/run/runStudy.js";
import { auditDeterminism, compareSessions, commonPrefix, determinismLines, recordAudit, roundAgreement, type AuditRow, type DeterminismAudit } from "../../src/audit/determinism.js";
import { buildTinyLlama } from "../../src/inference/gguf/tinyModel.js";
import { openStore } from "../../src/store/Store.js";
import { BIN, cleanTmp, ROOT, tmpDir } from "./helpers.js";
import { sharedModelsDir } from "./sharedModels.js";

afterAll(cleanTmp);

const dir = sharedModelsDir();
if (!dir) console.warn("[eddy] skipping reproducibility checks on stories260K: no ../shared/models beside the checkout and EDDY_TEST_MODELS not set");
const model = dir ? path.join(dir, "stories260K.gguf") : "";
// 3 templates × 2 instances × 2 rounds = 12 queries, answers long enough (a few hundred characters) that
// batching would show: in the default mode, one lockstep group of 4 per template (three, so several run at once).
// Each test runs whole studies (model load, judge pool): room beyond the default timeout for a busy 2-core machine.
const SLOW = 300_000;
const TEMPLATES = "list_every_kth,math_count_coprime,string_anagram_plus";
const SHAPE = { models: [model], templates: TEMPLATES, instances: 2, rounds: 2, maxTokens: 64, threads: 1, seed: 7, judgeWorkers: 1 };
const QUERIES = 12;

/** The exported rows that must match: template, instance, round, response, category. */
function rows(db: string, runId?: string): string[] {
    const d = new Database(db, { readonly: true });
    try {
        return (
            d
                .prepare(
                    `SELECT g.template_id, g.instance_idx, g.round, g.response, v.category FROM generations g
                     JOIN configurations c ON c.id = g.config_id LEFT JOIN verdicts v ON v.generation_id = g.id
                     WHERE (? IS NULL OR c.run_id = ?) ORDER BY g.template_id, g.instance_idx, g.round`
                )
                .all(runId ?? null, runId ?? null) as Record<string, unknown>[]
        ).map((r) => JSON.stringify(r));
    } finally {
        d.close();
    }
}

function runIdOf(db: string): string {
    const d = new Database(db, { readonly: true });
    try {
        return (d.prepare("SELECT id FROM runs").get() as { id: string }).id;
    } finally {
        d.close();
    }
}

function generations(db: string): number {
    if (!existsSync(db)) return 0;
    try {
        const d = new Database(db, { readonly: true, timeout: 5000 });
        try {
            return (d.prepare("SELECT COUNT(*) AS n FROM generations").get() as { n: number }).n;
        } finally {
            d.close();
        }
    } catch {
        return 0;
    }
}

describe("pure parts of the determinism audit", () => {
    const row = (template: string, instance: number, round: number, response: string, category: string | null = "syntax_error"): AuditRow => ({
        key: `${template}|${instance}|${round}`, template, instance, round, response, category
    });
    it("counts differing responses and verdicts and finds the first divergence by character", () => {
        const base = [row("a", 0, 0, "hello world"), row("a", 0, 1, "same"), row("b", 1, 0, "xyz", "passed")];
        const other = [row("a", 0, 0, "hello there"), row("a", 0, 1, "same"), row("b", 1, 0, "xyq", "syntax_error")];
        const c = compareSessions("repeat", 1, base, other);
        expect(c).toMatchObject({ responses: 3, differingResponses: 2, differingVerdicts: 1 });
        expect(c.responseShare).toBeCloseTo(2 / 3, 12);
        expect(c.firstDivergence).toMatchObject({ query: "a|0|0", charOffset: 6 });
        expect(compareSessions("same", 1, base, base)).toMatchObject({ differingResponses: 0, firstDivergence: null });
        expect(commonPrefix("abc", "abd")).toBe(2);
        expect(commonPrefix("ab", "abc")).toBe(2);
    });
    it("an audit is recorded on its model; the latest per mode is what reports read", () => {
        const store = openStore(path.join(tmpDir(), "audits.db"));
        try {
            const audit = (identical: boolean, mode: "reproducible" | "fast"): DeterminismAudit => ({
                model: "m.gguf", modelSha256: "ab".repeat(32), mode, eddyVersion: "1", identical, rounds: null,
                settings: { templates: "t", instances: 1, rounds: 1, temperature: 0, seed: 1, maxTokens: 8, threads: 1, sequences: [1, 1, 4] },
                comparisons: [compareSessions("repeat", 1, [row("a", 0, 0, "x")], [row("a", 0, 0, identical ? "x" : "y")])]
            });
            recordAudit(store, audit(false, "reproducible"));
            recordAudit(store, audit(true, "reproducible"));
            recordAudit(store, audit(false, "fast"));
            const latest = store.audits.latest(["ab".repeat(32)]);
            expect(latest.map((r) => [r.mode, r.identical])).toEqual([["fast", 0], ["reproducible", 1]]);
            expect(store.audits.latest(["cd".repeat(32)])).toEqual([]);
            // Lines wrap at 100 columns: a wrapped line continues on the next, indented.
            expect(determinismLines(JSON.parse(latest[0]!.result_json)).join("\n").replace(/\n\s+(?=\S)(?!repeat)/g, " ")).toMatch(/repeat\s+responses differ 1\/1 \(100\.0%\).*first divergence a\|0\|0 at character 0/);
        } finally {
            store.close();
        }
    });

    it("rounds agree when every round of a prompt is the same text", () => {
        expect(roundAgreement([row("a", 0, 0, "x"), row("a", 0, 1, "x"), row("a", 1, 0, "y"), row("a", 1, 1, "z"), row("b", 0, 0, "only")])).toEqual({ prompts: 2, differing: 1 });
    });
});

describe.skipIf(!dir)("reproducible by default on stories260K: lockstep groups", () => {
    // The uninterrupted greedy study, one group at a time and judged, that the two-group and the killed runs
    // are held to: run once. Each test that adds runs to it works on its own copy.
    let baseDb = "";
    let base: Awaited<ReturnType<typeof runStudy>>;
    beforeAll(async () => {
        baseDb = path.join(tmpDir(), "base.db");
        base = await runStudy(normalizeStudyConfig({ ...SHAPE, db: baseDb, groups: 1 }));
    }, SLOW);

    it("two identical greedy runs give identical rows with one or two groups at once; G and the layout are recorded; the cache serves only the same group", async () => {
        const db = path.join(tmpDir(), "twice.db");
        copyFileSync(baseDb, db);
        const a = base;
        const b = await runStudy(normalizeStudyConfig({ ...SHAPE, db, groups: 2, fresh: true, noCache: true }));
        expect([a.status, b.status]).toEqual(["complete", "complete"]);
        expect(b.stats.generation).toMatchObject({ responses: QUERIES, cached: 0 });
        const ra = rows(db, a.runId);
        expect(ra).toHaveLength(QUERIES);
        expect(ra.every((r) => JSON.parse(r).response.length > 100)).toBe(true); // long enough to diverge if batching mattered
        expect(rows(db, b.runId)).toEqual(ra);
        const d = new Database(db, { readonly: true });
        const cfg = JSON.parse((d.prepare("SELECT config_json FROM runs WHERE id = ?").get(a.runId) as { config_json: string }).config_json);
        const meta = JSON.parse((d.prepare("SELECT metadata_json FROM configurations WHERE run_id = ?").get(b.runId) as { metadata_json: string }).metadata_json);
        d.close();
        expect(cfg).toMatchObject({ mode: "reproducible", groupSize: 8 });
        expect(meta).toMatchObject({ mode: "reproducible", scheduling: "lockstep", groupSize: 8, groups: 2, sequences: 16, threads: 1 });
        // The same plan again: every answer from the cache. One instance more per template puts every
        // query in another group (per template, in plan order: instance, round): nothing comes from the cache.
        const same = await runStudy(normalizeStudyConfig({ ...SHAPE, db, fresh: true }), { judge: false });
        expect(same.stats.generation).toMatchObject({ responses: QUERIES, cached: QUERIES });
        expect(rows(db, same.runId).map((r) => JSON.parse(r).response)).toEqual(ra.map((r) => JSON.parse(r).response));
        const regrouped = await runStudy(normalizeStudyConfig({ ...SHAPE, instances: 3, db, fresh: true }), { judge: false });
        expect(regrouped.stats.generation).toMatchObject({ responses: 18, cached: 0 });
    }, SLOW);

    it("seeded sampling at temperature 0.8 is identical across runs and group counts; a partly stored group is generated again whole and its stored rows come out the same", async () => {
        const db = path.join(tmpDir(), "sampled.db");
        const a = await runStudy(normalizeStudyConfig({ ...SHAPE, temperatures: 0.8, db, groups: 2 }), { judge: false });
        const b = await runStudy(normalizeStudyConfig({ ...SHAPE, temperatures: 0.8, db, groups: 1, fresh: true, noCache: true }), { judge: false });
        const ra = rows(db, a.runId);
        expect(ra).toHaveLength(QUERIES);
        expect(rows(db, b.runId)).toEqual(ra);
        // Sampling really sampled: the two rounds of a prompt (different seeds) are not all the same.
        const parsed = ra.map((x) => JSON.parse(x));
        expect(parsed.some((r, i) => i % 2 === 1 && r.response !== parsed[i - 1].response)).toBe(true);
        // As if interrupted: two rows of one template's group and one of another's are gone. The resume
        // generates both groups (4 members each) again, stores the three, and checks the five it already had.
        const d = new Database(db);
        d.prepare(
            `DELETE FROM generations WHERE id IN (SELECT g.id FROM generations g JOIN configurations c ON c.id = g.config_id
             WHERE c.run_id = ? AND g.template_id = 'list_every_kth' AND g.round = 1 OR (c.run_id = ? AND g.template_id = 'math_count_coprime' AND g.instance_idx = 0 AND g.round = 0))`
        ).run(b.runId, b.runId);
        d.close();
        expect(rows(db, b.runId)).toHaveLength(QUERIES - 3);
        const logs: string[] = [];
        const resumed = await runStudy(normalizeStudyConfig({ ...SHAPE, temperatures: 0.8, db, resume: b.runId, groups: 2, noCache: true }), { judge: false, onLog: (l) => logs.push(l) });
        expect(resumed.stats.generation).toMatchObject({ responses: 3, cached: 0, regenerated: 5, mismatched: 0 });
        expect(logs.filter((l) => l.startsWith("determinism:"))).toEqual([]);
        expect(rows(db, b.runId)).toEqual(ra);
    }, SLOW);

    it("a run SIGKILLed at a random moment, with two groups at once, then resumed with another group count, exports the same rows as an uninterrupted one", async () => {
        const killDb = path.join(tmpDir(), "kill.db");
        expect(base.status).toBe("complete");
        const baseline = rows(baseDb);
        const args = ["run", "--model", model, "--templates", TEMPLATES, "--instances", "2", "--rounds", "2", "--max-tokens", "64", "--threads", "1", "--seed", "7", "--judge-workers", "1", "--no-progress"];
        const p = spawn(process.execPath, [BIN, ...args, "--groups", "2", "--db", killDb], { cwd: ROOT, stdio: "ignore" });
        // A random moment after the first responses are stored and before the last. Rows arrive a group at a
        // time at most (the two groups at once may land together), so the last group of 4 is never split:
        // aim at or before its start, or the kill may find the study done.
        const target = 1 + Math.floor(Math.random() * (QUERIES - 4));
        let midway = false;
        for (;;) {
            if (p.exitCode !== null) break;
            if (generations(killDb) >= target) {
                midway = generations(killDb) < QUERIES;
                p.kill("SIGKILL");
                break;
            }
            await new Promise((r) => setTimeout(r, 10));
        }
        await new Promise((r) => (p.exitCode !== null || p.signalCode !== null ? r(null) : p.once("exit", r)));
        expect(midway, `the kill (after ${target} responses) landed after the study had finished`).toBe(true);
        const id = runIdOf(killDb);
        const logs: string[] = [];
        const resumed = await runStudy(normalizeStudyConfig({ ...SHAPE, db: killDb, resume: id, groups: 3 }), { onLog: (l) => logs.push(l) });
        expect(resumed).toMatchObject({ runId: id, status: "complete" });
        // Only the missing rows were stored; any stored member generated again came out the same.
        expect(resumed.stats.generation.mismatched).toBe(0);
        expect(logs.filter((l) => l.startsWith("determinism:"))).toEqual([]);
        expect(rows(killDb)).toEqual(baseline);
    }, SLOW);

    it("eddy audit determinism finds nothing that differs in lockstep mode: runs, group counts and a resume", async () => {
        // Two instances: a group of 4 per template, still two groups to decode at once. Each of the audit's five
        // studies evaluates every member's prompt on its own: a third instance cost about a fifth more.
        const audit = await auditDeterminism({
            model, templates: "list_every_kth,math_count_coprime", instances: 2, rounds: 2, temperature: 0, seed: 3, maxTokens: 48, threads: 1, counts: [2], mode: "reproducible", judgeWorkers: 1
        });
        expect(audit.settings).toMatchObject({ groupSize: 8, sequences: [1, 1, 2, 2] });
        expect(audit.comparisons.map((c) => [c.variant, c.responses, c.differingResponses, c.differingVerdicts])).toEqual([
            ["repeat", 8, 0, 0],
            ["groups=2", 8, 0, 0],
            ["resumed", 8, 0, 0]
        ]);
        // Every other response removed: both groups (one per template, 4 members) lost two and kept two.
        expect(audit.comparisons[2]!.resume).toEqual({ storedBefore: 4, regenerated: 4, mismatched: 0 });
        expect(audit).toMatchObject({ identical: true, rounds: { prompts: 4, differing: 0 }, modelSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
        expect(determinismLines(audit)[0]).toMatch(/reproducible mode, lockstep groups of 8/);
    }, SLOW);
});

describe.skipIf(!dir)("per-sequence contexts (--group-size 1), the previous default, on stories260K", () => {
    it("identical across sequence counts; greedy rounds of one prompt agree", async () => {
        const db = path.join(tmpDir(), "per-sequence.db");
        // One instance per template (6 queries, one context each): still two sequence counts, and two rounds per prompt, to compare.
        const shape = { ...SHAPE, instances: 1 };
        const a = await runStudy(normalizeStudyConfig({ ...shape, groupSize: 1, db, sequences: 1 }), { judge: false });
        const b = await runStudy(normalizeStudyConfig({ ...shape, groupSize: 1, db, sequences: 3, fresh: true, noCache: true }), { judge: false });
        const ra = rows(db, a.runId);
        expect(rows(db, b.runId)).toEqual(ra);
        const byPrompt = new Map<string, Set<string>>();
        for (const r of ra.map((x) => JSON.parse(x))) byPrompt.set(`${r.template_id}|${r.instance_idx}`, (byPrompt.get(`${r.template_id}|${r.instance_idx}`) ?? new Set()).add(r.response));
        expect(ra).toHaveLength(6);
        expect([...byPrompt.values()].map((x) => x.size)).toEqual(Array(3).fill(1));
        const d = new Database(db, { readonly: true });
        const meta = JSON.parse((d.prepare("SELECT metadata_json FROM configurations WHERE run_id = ?").get(b.runId) as { metadata_json: string }).metadata_json);
        d.close();
        expect(meta).toMatchObject({ mode: "reproducible", scheduling: "per-sequence", groupSize: 1, sequences: 3 });
    }, SLOW);
});

describe("the determinism audit on a larger random llama (about a million parameters, Q8_0)", () => {
    it("finds nothing that differs in lockstep mode, with seeded sampling", async () => {
        const file = path.join(tmpDir(), "random-1M-q8_0.gguf");
        writeFileSync(file, buildTinyLlama({ quant: "q8_0", shape: { dim: 128, layers: 4, heads: 4, kvHeads: 2, ff: 352, context: 2048 }, name: "eddy-random-1M" }));
        const audit = await auditDeterminism({
            model: file, templates: "list_every_kth,math_count_coprime", instances: 3, rounds: 2, temperature: 0.8, seed: 5, maxTokens: 40, threads: 1, counts: [2], mode: "reproducible",
            judgeWorkers: 1, promptFormat: "raw"
        });
        expect(audit.comparisons.map((c) => [c.variant, c.responses, c.differingResponses])).toEqual([
            ["repeat", 12, 0],
            ["groups=2", 12, 0],
            ["resumed", 12, 0]
        ]);
        expect(audit.comparisons[2]!.resume).toEqual({ storedBefore: 6, regenerated: 6, mismatched: 0 });
        expect(audit.identical).toBe(true);
    }, SLOW);
});
