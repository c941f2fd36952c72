import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { normalizeStudyConfig } from "../../src/run/config.js";
import { runStudy } from "../../src/run/runStudy.js";
import { auditDeterminism, compareSessions, commonPrefix, determinismLines, recordAudit, roundAgreement, type AuditRow, type DeterminismAudit } from "../../src/audit/determinism.js";
import { openStore } from "../../src/store/Store.js";
import { BIN, cleanTmp, ROOT, tmpDir } from "./helpers.js";
import { sharedModelsDir } from "./sharedModels.js";

afterAll(cleanTmp);

const dir = sharedModelsDir();
if (!dir) console.warn("[eddy] skipping reproducibility checks on stories260K: no ../shared/models beside the checkout and EDDY_TEST_MODELS not set");
const model = dir ? path.join(dir, "stories260K.gguf") : "";
// 3 templates × 2 instances × 2 rounds, answers long enough (a few hundred characters) that batching would show.
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
            const latest = store.determinismAudits(["ab".repeat(32)]);
            expect(latest.map((r) => [r.mode, r.identical])).toEqual([["fast", 0], ["reproducible", 1]]);
            expect(store.determinismAudits(["cd".repeat(32)])).toEqual([]);
            expect(determinismLines(JSON.parse(latest[0]!.result_json))[1]).toMatch(/repeat\s+responses differ 1\/1 \(100\.0%\).*first divergence a\|0\|0 at character 0/);
        } finally {
            store.close();
        }
    });

    it("rounds agree when every round of a prompt is the same text", () => {
        expect(roundAgreement([row("a", 0, 0, "x"), row("a", 0, 1, "x"), row("a", 1, 0, "y"), row("a", 1, 1, "z"), row("b", 0, 0, "only")])).toEqual({ prompts: 2, differing: 1 });
    });
});

describe.skipIf(!dir)("reproducible by default on stories260K", () => {
    it("two identical greedy runs give identical rows, greedy rounds of one prompt agree, and the mode is recorded", async () => {
        const db = path.join(tmpDir(), "twice.db");
        const a = await runStudy(normalizeStudyConfig({ ...SHAPE, db, sequences: 1 }));
        const b = await runStudy(normalizeStudyConfig({ ...SHAPE, db, sequences: 3, fresh: true, noCache: true }));
        expect([a.status, b.status]).toEqual(["complete", "complete"]);
        expect(b.stats.generation).toMatchObject({ responses: QUERIES, cached: 0 });
        const ra = rows(db, a.runId);
        expect(ra).toHaveLength(QUERIES);
        expect(ra.every((r) => JSON.parse(r).response.length > 100)).toBe(true); // long enough to diverge if batching mattered
        expect(rows(db, b.runId)).toEqual(ra);
        // Greedy: both rounds of each prompt are the same text.
        const byPrompt = new Map<string, Set<string>>();
        for (const r of ra.map((x) => JSON.parse(x))) byPrompt.set(`${r.template_id}|${r.instance_idx}`, (byPrompt.get(`${r.template_id}|${r.instance_idx}`) ?? new Set()).add(r.response));
        expect([...byPrompt.values()].map((s) => s.size)).toEqual(Array(6).fill(1));
        const d = new Database(db, { readonly: true });
        const cfg = JSON.parse((d.prepare("SELECT config_json FROM runs WHERE id = ?").get(a.runId) as { config_json: string }).config_json);
        const meta = JSON.parse((d.prepare("SELECT metadata_json FROM configurations WHERE run_id = ?").get(b.runId) as { metadata_json: string }).metadata_json);
        d.close();
        expect(cfg.mode).toBe("reproducible");
        expect(meta).toMatchObject({ mode: "reproducible", sequences: 3, threads: 1 });
    }, SLOW);

    it("seeded sampling at temperature 0.8 is identical across two runs and sequence counts", async () => {
        const db = path.join(tmpDir(), "sampled.db");
        const a = await runStudy(normalizeStudyConfig({ ...SHAPE, temperatures: 0.8, db, sequences: 2 }), { judge: false });
        const b = await runStudy(normalizeStudyConfig({ ...SHAPE, temperatures: 0.8, db, sequences: 1, fresh: true, noCache: true }), { judge: false });
        const ra = rows(db, a.runId);
        expect(ra).toHaveLength(QUERIES);
        expect(rows(db, b.runId)).toEqual(ra);
        // Sampling really sampled: the two rounds of a prompt (different seeds) are not all the same.
        const parsed = ra.map((x) => JSON.parse(x));
        expect(parsed.some((r, i) => i % 2 === 1 && r.response !== parsed[i - 1].response)).toBe(true);
    }, SLOW);

    it("a run SIGKILLed at a random moment, then resumed with another sequence count, exports the same rows as an uninterrupted one", async () => {
        const t = tmpDir();
        const baseDb = path.join(t, "base.db");
        const killDb = path.join(t, "kill.db");
        const base = await runStudy(normalizeStudyConfig({ ...SHAPE, db: baseDb, sequences: 1 }));
        expect(base.status).toBe("complete");
        const baseline = rows(baseDb);
        const args = ["run", "--model", model, "--templates", TEMPLATES, "--instances", "2", "--rounds", "2", "--max-tokens", "64", "--threads", "1", "--seed", "7", "--judge-workers", "1", "--no-progress"];
        const p = spawn(process.execPath, [BIN, ...args, "--sequences", "2", "--db", killDb], { cwd: ROOT, stdio: "ignore" });
        // A random moment after the first responses are stored and before the last.
        const target = 1 + Math.floor(Math.random() * (QUERIES - 2));
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
        const resumed = await runStudy(normalizeStudyConfig({ ...SHAPE, db: killDb, resume: id, sequences: 3 }));
        expect(resumed).toMatchObject({ runId: id, status: "complete" });
        expect(rows(killDb)).toEqual(baseline);
    }, SLOW);

    it("eddy audit determinism finds nothing that differs in the default mode", async () => {
        const audit = await auditDeterminism({
            model, templates: "list_every_kth", instances: 2, rounds: 2, temperature: 0, seed: 3, maxTokens: 64, threads: 1, sequences: [2], mode: "reproducible", judgeWorkers: 1
        });
        expect(audit.comparisons.map((c) => [c.variant, c.responses, c.differingResponses, c.differingVerdicts])).toEqual([
            ["repeat", 4, 0, 0],
            ["sequences=2", 4, 0, 0]
        ]);
        expect(audit).toMatchObject({ identical: true, rounds: { prompts: 2, differing: 0 }, modelSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    }, SLOW);
});
