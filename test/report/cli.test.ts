import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scoreNeighbourhoods } from "../../src/scores/neighbourhood.js";
import { sampleStudy } from "./sample.js";
import { writeOutcomes } from "./storeFixture.js";

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
        expect(r.stderr.trim().split("\n"), r.stderr).toHaveLength(1);
        expect(r.stderr).toMatch(/^eddy: no run 'nope'/);
        const f = spawnSync(process.execPath, [BIN, "report", "run-a", "--db", db, "--format", "pdf"], { encoding: "utf8" });
        expect(f.stderr, f.stderr).toMatch(/^eddy: unknown --format 'pdf'/);
    });
});
