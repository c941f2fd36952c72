import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { writeReport } from "../../src/cli/commands/reportOutput.js";
import { renderReport } from "../../src/report/renderReport.js";
import { sampleStudy } from "./sample.js";

const dirs: string[] = [];
afterEach(() => {
    vi.restoreAllMocks();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe.skipIf(process.platform === "win32")("report files", () => {
    it("are written 0600 (folders made 0700) whatever the umask, by the writer report, loop report and mutate report share", async () => {
        const dir = mkdtempSync(path.join(os.tmpdir(), "eddy-report-file-"));
        dirs.push(dir);
        vi.spyOn(process.stderr, "write").mockImplementation(() => true);
        const old = process.umask(0o022);
        try {
            for (const format of ["html", "json", "md"] as const) {
                const file = path.join(dir, "out", `report.${format}`);
                const text = await renderReport(sampleStudy(), [{ id: "run-a" }, { id: "run-b" }], format, { generated: "2026-01-01T00:00:00Z" });
                writeReport(text, format, file);
                expect(statSync(file).mode & 0o777).toBe(0o600);
                expect(readFileSync(file, "utf8")).toBe(text);
            }
            expect(statSync(path.join(dir, "out")).mode & 0o777).toBe(0o700);
        } finally {
            process.umask(old);
        }
    });
});
