import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Command } from "commander";
import { afterEach, describe, expect, it } from "vitest";
import { registerExportCommand } from "../../src/cli/commands/ExportCommand.js";
import { openStore } from "../../src/store/Store.js";

const dirs: string[] = [];
afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A database with one judged response in run `r1`. */
function studyDb(dir: string): string {
    const db = path.join(dir, "eddy.db");
    const store = openStore(db);
    try {
        store.createOrFindRun({ id: "r1", configHash: "h", config: {}, eddyVersion: "0.1.0", backend: "reference", seed: 1 }, false);
        const c = store.upsertConfiguration({ runId: "r1", model: "m", temperature: 0, wrapper: "default", decoding: { temperature: 0 } as never });
        store.recordTemplates("r1", [{ id: "t1", oracleHash: "h", group: "g", subgroups: [], function: "f" }]);
        store.insertInstances("r1", [{ templateId: "t1", index: 0, params: [1], bindings: {}, question: "q" }]);
        const key = { configId: c.id, templateId: "t1", instance: 0, round: 0 };
        store.writeBatch({
            generations: [{ ...key, seed: 1, prompt: "[]", response: "r", code: "def f(): pass", stopReason: "eogToken", promptTokens: 1, generatedTokens: 1, ttftMs: 1, genMs: 1 } as never],
            verdicts: [{ ...key, category: "assertion_error", judgeCategory: "assertion_error", detail: "expected 42 (hidden oracle)", ms: 1 }],
            responses: [],
            verdictCache: []
        });
    } finally {
        store.close();
    }
    return db;
}

async function eddyExport(args: string[]): Promise<void> {
    const program = new Command().exitOverride();
    registerExportCommand(program);
    await program.parseAsync(["export", ...args], { from: "user" });
}

describe.skipIf(process.platform === "win32")("eddy export --out", () => {
    it("writes the file 0600 (new folders 0700) under umask 022, and tightens an existing world-readable file", async () => {
        const dir = mkdtempSync(path.join(os.tmpdir(), "eddy-export-private-"));
        dirs.push(dir);
        const db = studyDb(dir);
        const old = process.umask(0o022);
        try {
            const out = path.join(dir, "new", "run.csv");
            await eddyExport(["r1", "--format", "csv", "--out", out, "--db", db]);
            expect(statSync(out).mode & 0o777).toBe(0o600);
            expect(statSync(path.dirname(out)).mode & 0o777).toBe(0o700);
            expect(readFileSync(out, "utf8")).toContain("expected 42 (hidden oracle)");

            const existing = path.join(dir, "run.jsonl");
            writeFileSync(existing, "old contents that are longer than nothing\n".repeat(100));
            chmodSync(existing, 0o644);
            await eddyExport(["r1", "--out", existing, "--db", db]);
            expect(statSync(existing).mode & 0o777).toBe(0o600);
            const lines = readFileSync(existing, "utf8").trim().split("\n");
            expect(lines).toHaveLength(1);
            expect(JSON.parse(lines[0]!).detail).toBe("expected 42 (hidden oracle)");
        } finally {
            process.umask(old);
        }
    });
});
