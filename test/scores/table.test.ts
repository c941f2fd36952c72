import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { RATE_SCORES } from "../../src/scores/rates.js";
import { COMPARED_SCORES, EXPORTED_SCORES, SCORES } from "../../src/scores/table.js";

/** The scores are one table (src/scores/table.ts): every renderer, compare and the exports iterate it. */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** A list of score names written out (what the table replaced), e.g. ["AS", "CPS", "CCS"] or "AS", "CPS", "CCS" as columns. */
const listsScores = (line: string): boolean => /["'`]AS["'`],\s*["'`]CPS["'`],\s*["'`]CCS["'`]/.test(line);

describe("the one table of scores", () => {
    it("every score says what it is, how to read it and how a configuration's value is made; the compared and exported sets come from it", () => {
        expect(SCORES.map((c) => c.name)).toEqual(["AS", "CPS", "CCS", "RLPR", "PSR", "gap", "AV", "pass@1"]);
        for (const c of SCORES) {
            expect(c.description.length).toBeGreaterThan(10);
            expect(c.read.length).toBeGreaterThan(3);
            expect(c.aggregate).toMatch(/templates/);
        }
        expect(COMPARED_SCORES).toEqual(["AS", "CPS", "CCS"]);
        expect(EXPORTED_SCORES.map((c) => c.name)).toEqual(["AS", "CPS", "CCS", "RLPR"]);
        expect(RATE_SCORES).toEqual(["AS", "CPS", "CCS", "RLPR", "PSR"]);
        // Hand-computed row: AS 2/3, CPS 1, CCS 1/3, RLPR = AS, PSR = CCS, gap = RLPR − PSR, AV of p ∈ {1, 1/3}: (0 + 2/9)/2.
        const row = { AS: 2 / 3, CPS: 1, CCS: 1 / 3, RLPR: 2 / 3, PSR: 1 / 3, gap: 1 / 3, AV: 1 / 9, passAtK: { "1": 2 / 3 } };
        expect(SCORES.map((c) => c.get(row as never))).toEqual([2 / 3, 1, 1 / 3, 2 / 3, 1 / 3, 1 / 3, 1 / 9, 2 / 3]);
    });

    it("no renderer, comparison or export writes the score list out: they iterate the table", () => {
        const files = readdirSync(path.join(ROOT, "src"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts") && f !== path.join("scores", "table.ts"));
        const found = files.flatMap((f) => readFileSync(path.join(ROOT, "src", f), "utf8").split("\n").flatMap((l, i) => (listsScores(l) ? [`src/${f}:${i + 1}: ${l.trim()}`] : [])));
        expect(found).toEqual([]);
        // The scan sees the forms the table replaced.
        expect([`head: ["verdicts", "AS", "CPS", "CCS"],`, `export const COMPARED_SCORES = ["AS", "CPS", "CCS"] as const;`, `["config", "mode", "R", "AS", "CPS", "CCS", "category"]`].every(listsScores)).toBe(true);
    });
});
