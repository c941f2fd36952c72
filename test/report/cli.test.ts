import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scoreNeighbourhoods } from "../../src/scores/neighbourhood.js";
import { openStore } from "../../src/store/Store.js";
import { sampleStudy } from "./sample.js";
import { writeOutcomes } from "./storeFixture.js";
import { unwrapMessages } from "../support/messages.js";

const BIN = path.resolve("dist/cli/bin.js");

describe("eddy report / eddy compare on a stored study", () => {
    let dir: string;
    let db: string;
    const outcomes = sampleStudy();
    beforeAll(() => {
        dir = mkdtempSync(path.join(tmpdir(), "eddy-report-"));
        db = path.join(dir, "eddy.db");
        writeOutcomes(db, outcomes);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const eddy = (...args: string[]) => execFileSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: { ...process.env, EDDY_DB: db } });

    it("prints per run and template AS, CPS, CCS and the category as JSON, matching the scores of the outcomes", () => {
        const json = JSON.parse(eddy("report", "run-a", "run-b", "--format", "json"));
        expect(json.runs.map((r: { id: string }) => r.id)).toEqual(["run-a", "run-b"]);
        const expected = scoreNeighbourhoods(outcomes);
        const rows = json.runs.flatMap((r: { templates: unknown[] }) => r.templates) as { template: string; config: string; AS: number; CPS: number; CCS: number; category: string }[];
        expect(rows).toHaveLength(expected.length);
        for (const e of expected) {
            const row = rows.find((r) => r.template === e.template && r.config === e.config)!;
            expect(row.AS).toBeCloseTo(e.AS, 12);
            expect(row.CPS).toBeCloseTo(e.CPS, 12);
            expect(row.CCS).toBeCloseTo(e.CCS, 12);
            expect(row.category).toBe(e.category);
        }
    });

    it("writes a self-contained HTML file and the other formats", () => {
        const out = path.join(dir, "r.html");
        eddy("report", "run-a", "--out", out);
        const html = readFileSync(out, "utf8");
        expect(html.startsWith("<!doctype html>")).toBe(true);
        expect(html).toContain("<svg");
        expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!www\.w3\.org)/);
        expect(eddy("report", "run-a", "--format", "csv").split("\n")[0]).toContain("AS,CPS,CCS,category");
        expect(eddy("report", "run-a")).toContain("Perfect Success");
    });

    it("compares configurations with tests, effect sizes, temperature table and McNemar", () => {
        const cmp = JSON.parse(eddy("compare", "run-a", "run-b", "--json"));
        expect(cmp.configs).toHaveLength(3);
        expect(cmp.pairwise).toHaveLength(3 * 3); // 3 pairs × 3 scores
        expect(cmp.temperature.map((r: { greedy: string; other: string }) => [r.greedy, r.other])[0]).toEqual(["tiny-a t=0 default", "tiny-a t=0.8 default"]);
        expect(cmp.paired.length).toBeGreaterThan(0);
        const text = eddy("compare", "run-a");
        expect(text).toContain("Mann–Whitney");
        expect(text).toContain("Temperature effect");
    });

    it("fails with one clear line on bad input", () => {
        const r = spawnSync(process.execPath, [BIN, "report", "nope", "--db", db], { encoding: "utf8" });
        expect(r.status, r.stderr).not.toBe(0);
        expect(unwrapMessages(r.stderr).trim().split("\n"), r.stderr).toHaveLength(1);
        expect(unwrapMessages(r.stderr)).toMatch(/^eddy: no run 'nope'/);
        const f = spawnSync(process.execPath, [BIN, "report", "run-a", "--db", db, "--format", "pdf"], { encoding: "utf8" });
        expect(f.stderr, f.stderr).toMatch(/^eddy: unknown --format 'pdf'/);
    });

    it("fits terminal tables into 100 columns when stdout is not a terminal; --wide and JSON keep every value", () => {
        const widest = (t: string) => Math.max(...t.split("\n").map((l) => [...l].length));
        const text = eddy("report", "run-a", "run-b", "--format", "text");
        expect(widest(text)).toBeLessThanOrEqual(100);
        expect(text).not.toMatch(/^[├┼┤]/m); // no rule between rows
        // judged: answers with a model verdict of those planned (120 instances × 5 rounds, 4 judge_error)
        expect(text).toMatch(/^tiny-a t=0 default +reproducible +596 of 600 +0\.780/m);
        expect(widest(eddy("compare", "run-a", "run-b"))).toBeLessThanOrEqual(100);
        const wide = eddy("compare", "run-a", "run-b", "--wide");
        expect(wide).toContain("lost in B (first)");
        // A run with a long id and a long study description.
        const long = path.join(dir, "long.db");
        const id = "20261123-a-run-with-a-rather-long-identifier";
        writeOutcomes(long, sampleStudy().filter((o) => o.runId === "run-b").map((o) => ({ ...o, runId: id })), {
            config: { templates: "list_every_kth,math_count_coprime,string_count_vowels,set_union_size,copy_reverse,\x1b[2Jgcd_range", instances: 20, rounds: 5, temperatures: [0, 0.8] }
        });
        const list = execFileSync(process.execPath, [BIN, "runs", "list", "--db", long], { encoding: "utf8" });
        expect(widest(list)).toBeLessThanOrEqual(100);
        expect(list.split("\n")).toHaveLength(2 + 1 + 1); // header, rule, one line for the run, final newline
        expect(list).toContain("…");
        // The id is shortened from its end only: what is shown is a prefix that `runs show` accepts.
        const shown = list.split("\n")[2]!.split(/\s+/)[0]!.replace(/…$/, "");
        expect(id.startsWith(shown) && shown.length >= 15).toBe(true);
        expect(execFileSync(process.execPath, [BIN, "runs", "show", shown, "--db", long], { encoding: "utf8" })).toContain(`run ${id}`);
        const json = JSON.parse(execFileSync(process.execPath, [BIN, "runs", "list", "--db", long, "--json"], { encoding: "utf8" }));
        expect(json[0].id).toBe(id);
        expect(json[0].config.templates).toContain("gcd_range");
        const all = execFileSync(process.execPath, [BIN, "runs", "list", "--db", long, "--wide"], { encoding: "utf8" });
        expect(all).toContain(id);
        expect(all).toContain("M=20 R=5 t=0,0.8"); // the study, with --wide
        expect(all).toContain("\\x1b[2Jgcd_range"); // control characters escaped, in the table and in `runs show`
        const show = execFileSync(process.execPath, [BIN, "runs", "show", id, "--db", long], { encoding: "utf8" });
        expect(show).toContain("\\x1b[2Jgcd_range");
        for (const out of [list, all, show]) expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    });

    it("shows each configuration's decoding mode and the model's latest determinism audit, from the database", () => {
        const audited = path.join(dir, "audited.db");
        const outcomes = sampleStudy().filter((o) => o.runId === "run-b");
        writeOutcomes(audited, outcomes, { modelSha256: "ab".repeat(32), metadata: { mode: "fast" } });
        const store = openStore(audited);
        try {
            const audit = { modelSha256: "ab".repeat(32), model: "tiny-b", eddyVersion: "0.1.0", responses: 8, differingVerdicts: 0 };
            store.audits.record({ ...audit, mode: "fast", differingResponses: 1, identical: false, result: { comparisons: [{ responseShare: 0.125 }] } });
            store.audits.record({ ...audit, mode: "reproducible", differingResponses: 0, identical: true, result: { comparisons: [{ responseShare: 0 }] } });
        } finally {
            store.close();
        }
        const run = (...a: string[]) => execFileSync(process.execPath, [BIN, "report", "run-b", "--db", audited, ...a], { encoding: "utf8" });
        const json = JSON.parse(run("--format", "json"));
        expect([json.configs[0].mode, json.configs[0].determinism]).toEqual(["fast", expect.stringMatching(/^differs in 12\.5% of responses \(\d{4}-\d\d-\d\d\)$/)]);
        expect(json.runs[0].templates.every((t: { mode: string }) => t.mode === "fast")).toBe(true);
        expect(run()).toMatch(/^tiny-b t=0 default +fast +differs in 12\.5% of responses/m);
        expect(run("--format", "md")).toMatch(/\| tiny-b t=0 default \| fast \| differs in 12\.5%/);
        expect(run("--format", "csv").split("\n")[1]).toContain(",fast,");
        // A run stored without any mode reads as reproducible; its model was never audited.
        expect(JSON.parse(eddy("report", "run-a", "--format", "json")).configs.map((c: { mode: string; determinism: string }) => [c.mode, c.determinism])[0]).toEqual(["reproducible", "–"]);
    });

    it("a lockstep run shows its group size's audit, and a run with one context per query shows its own", () => {
        const sha = "cd".repeat(32);
        const outcomes = sampleStudy().filter((o) => o.runId === "run-b");
        const audit = { modelSha256: sha, model: "tiny-b", mode: "reproducible", eddyVersion: "0.1.0", responses: 8, differingVerdicts: 0 };
        const determinism = (groupSize: number | undefined): string => {
            const db = path.join(dir, `lockstep-${groupSize ?? "none"}.db`);
            writeOutcomes(db, outcomes, { modelSha256: sha, metadata: { mode: "reproducible", ...(groupSize ? { groupSize } : {}) } });
            const store = openStore(db);
            try {
                // The lockstep audit first, then a newer one with one context per query (G = 1) that differed.
                store.audits.record({ ...audit, differingResponses: 0, identical: true, result: { settings: { groupSize: 8 }, comparisons: [{ responseShare: 0 }] } });
                store.audits.record({ ...audit, differingResponses: 2, identical: false, result: { settings: { groupSize: 1 }, comparisons: [{ responseShare: 0.25 }] } });
            } finally {
                store.close();
            }
            return JSON.parse(execFileSync(process.execPath, [BIN, "report", "run-b", "--db", db, "--format", "json"], { encoding: "utf8" })).configs[0].determinism;
        };
        expect(determinism(8)).toMatch(/^identical \(\d{4}-\d\d-\d\d\)$/);
        expect(determinism(1)).toMatch(/^differs in 25\.0% of responses/);
        // A reproducible run stored before lockstep groups had one context per query: G = 1's audit.
        expect(determinism(undefined)).toMatch(/^differs in 25\.0% of responses/);
        expect(determinism(4)).toBe("not audited");
    });
});
