import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SLOW_FIRST, UNIT_TESTS } from "../vitest.config.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** What makes a test an integration test: a child process, the built CLI, a model, the judge, a database. */
const INTEGRATION_MARKERS = [/\bnode:child_process\b/, /\bexeca\b/, /\bdist\//, /ensureTinyModels|tinyModel/, /\bJudgePool\b/, /\bopenStore\b/, /\bredis/i, /playwright/];

/** A glob of the config (`**` and `*` only) as a regular expression over repository-relative paths. */
const globRegex = (g: string): RegExp => new RegExp(`^${g.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*\*\//g, "\u0000").replace(/\*/g, "[^/]*").replace(/\u0000/g, "(?:.*/)?")}$`);

describe("test lanes", () => {
    it("the unit lane holds only in-process tests (no process, build, model, judge or database)", () => {
        const all = readdirSync(path.join(ROOT, "test"), { recursive: true, encoding: "utf8" }).map((f) => `test/${f.split(path.sep).join("/")}`);
        const files = all.filter((f) => UNIT_TESTS.some((g) => globRegex(g).test(f)) && f !== "test/lanes.test.ts");
        expect(files.length).toBeGreaterThan(15);
        const offenders = files.flatMap((f) => {
            const text = readFileSync(path.join(ROOT, f), "utf8");
            return INTEGRATION_MARKERS.filter((m) => m.test(text)).map((m) => `${f}: ${m}`);
        });
        expect(offenders).toEqual([]);
    });

    it("the files run first are integration files that exist (a renamed one would silently fall back to vitest's order)", () => {
        expect(SLOW_FIRST.length).toBeGreaterThan(5);
        expect(SLOW_FIRST.filter((f) => !existsSync(path.join(ROOT, f)))).toEqual([]);
        expect(SLOW_FIRST.filter((f) => UNIT_TESTS.some((g) => globRegex(g).test(f)))).toEqual([]);
        expect(new Set(SLOW_FIRST).size).toBe(SLOW_FIRST.length);
    });
});
