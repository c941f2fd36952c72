/**
 * Issue #47: tables never drop information. `runs list` cut configuration names (a second temperature
 * disappeared) and `templates list` cut parameter ranges: such columns now wrap at their width.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { renderTable } from "../../src/report/terminalTable.js";
import { displayWidth } from "../../src/util/textWidth.js";

const BIN = path.resolve("dist/cli/bin.js");

describe("wrapped columns", () => {
    it("keep every word of a value that does not fit, and every line within the width", () => {
        const configs = "qwen2.5-coder-1.5b-instruct-q4_k_m t=0 default, qwen2.5-coder-1.5b-instruct-q4_k_m t=0.7 default";
        const table = renderTable(
            [{ head: "run", min: 15 }, { head: "status", fixed: true }, { head: "configurations", min: 14, wrap: true }],
            [["20261129-abcdef", "complete", configs]],
            { width: 60 }
        );
        for (const line of table.split("\n")) expect(displayWidth(line)).toBeLessThanOrEqual(60);
        expect(table).not.toContain("…");
        const column = table.split("\n").slice(2).map((l) => l.slice(27).trim()).join(" ");
        expect(column.replace(/\s+/g, "")).toBe(configs.replace(/\s+/g, ""));
        expect(column).toContain("t=0.7");
    });

    it("templates list shows every parameter range in full at 100 columns", () => {
        const out = execFileSync(process.execPath, [BIN, "templates", "list"], { encoding: "utf8", env: { ...process.env, COLUMNS: "100" } });
        const json = JSON.parse(execFileSync(process.execPath, [BIN, "templates", "list", "--json"], { encoding: "utf8" })) as { id: string }[];
        expect(json.length).toBeGreaterThan(10);
        for (const line of out.split("\n")) expect(displayWidth(line), line).toBeLessThanOrEqual(100);
        expect(out).not.toContain("…");
    });
});

describe("exports name their parameters", () => {
    it("each exported row carries its parameters by name beside the tuple", () => {
        const dir = mkdtempSync(path.join(tmpdir(), "eddy-export-names-"));
        try {
            const db = path.join(dir, "s.db");
            execFileSync(process.execPath, [BIN, "run", "--backend", "reference", "-t", "list_every_kth", "-M", "2", "-R", "1", "--judge-workers", "1", "--db", db], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
            const rows = execFileSync(process.execPath, [BIN, "export", "latest", "--db", db], { encoding: "utf8" }).trim().split("\n").map((l) => JSON.parse(l) as { params: unknown[]; parameters: Record<string, unknown> });
            expect(rows).toHaveLength(2);
            for (const r of rows) {
                expect(Object.keys(r.parameters)).toEqual(["start", "step"]);
                expect(Object.values(r.parameters)).toEqual(r.params);
            }
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    }, 60_000);
});
