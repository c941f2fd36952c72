import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { EXPORT_FORMATS, exportFormat } from "../../src/export/formats.js";
import type { ExportFormat } from "../../src/export/types.js";

/** The export formats are one registry: a format is one module in src/export plus one line in EXPORT_FORMATS. */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const isFormat = (v: unknown): v is ExportFormat => typeof v === "object" && v !== null && "id" in v && "write" in v && typeof (v as ExportFormat).write === "function";

/** `file:line` of each line outside src/export that branches on a format id (what the registry replaces). */
function dispatchesOnFormat(line: string, ids: readonly string[]): boolean {
    const alt = ids.map((i) => i.replace(/[^a-z]/g, "")).join("|");
    return new RegExp(`format\\s*[!=]==\\s*["'](${alt})["']|["'](${alt})["']\\s*[!=]==\\s*[\\w.]*format|case\\s+["'](${alt})["']\\s*:`, "i").test(line);
}

describe("export formats: one registry", () => {
    it("every format a module in src/export declares is registered once, with a unique id and a help line", async () => {
        const declared: ExportFormat[] = [];
        for (const f of readdirSync(path.join(ROOT, "src/export")).filter((f) => f.endsWith(".ts"))) {
            const mod = (await import(path.join(ROOT, "src/export", f))) as Record<string, unknown>;
            declared.push(...Object.values(mod).filter(isFormat));
        }
        expect(declared.length).toBeGreaterThanOrEqual(5);
        expect(declared.filter((d) => !EXPORT_FORMATS.includes(d)).map((d) => d.id)).toEqual([]);
        const ids = EXPORT_FORMATS.map((f) => f.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(EXPORT_FORMATS.filter((f) => f.help.trim() === "").map((f) => f.id)).toEqual([]);
        expect(exportFormat("csv").id).toBe("csv");
        expect(() => exportFormat("xml")).toThrow(/unknown export format 'xml' \(use jsonl, csv, evalplus, inspect, eee\)/);
    });

    it("no file outside src/export branches on a format id: the command asks the registry", () => {
        const ids = EXPORT_FORMATS.map((f) => f.id);
        const files = readdirSync(path.join(ROOT, "src"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts") && !f.startsWith("export"));
        const found = files.flatMap((f) =>
            readFileSync(path.join(ROOT, "src", f), "utf8")
                .split("\n")
                .flatMap((line, i) => (dispatchesOnFormat(line, ids) ? [`src/${f}:${i + 1}: ${line.trim()}`] : []))
        );
        expect(files.length).toBeGreaterThan(100);
        expect(found).toEqual([]);
        // The scan sees the forms of dispatch the registry replaced.
        const caught = [`if (format === "evalplus") return x;`, `return o.format === 'csv' ? a : b;`, `    case "eee":`, `if ("inspect" === o.format) {}`];
        expect(caught.filter((l) => !dispatchesOnFormat(l, ids))).toEqual([]);
        expect([`.option("--format <fmt>", "jsonl | csv")`, `const name = "csv";`].filter((l) => dispatchesOnFormat(l, ids))).toEqual([]);
    });
});
