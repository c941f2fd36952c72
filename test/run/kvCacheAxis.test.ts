import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { buildTinyLlama } from "../../src/inference/gguf/tinyModel.js";
import { generationUsage } from "../../src/store/quantStudy.js";
import { openStore } from "../../src/store/Store.js";
import { unwrapMessages } from "../support/messages.js";

/**
 * `eddy run --kv-cache f16,q8_0`: the KV-cache axis inside one run. Each type is a configuration of its own
 * (label `<model>@kv=<type>`, the type in its metadata and in the run's identity), answered by a context with
 * that cache, with the CPU its inference process spent recorded per configuration (tokens per CPU-second).
 * A quantised cache needs a head size that is a multiple of 32: a llama of width 256 with 4 heads (head size 64).
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BIN = path.join(ROOT, "dist/cli/bin.js");
const dir = mkdtempSync(path.join(os.tmpdir(), "eddy-run-kv-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const model = path.join(dir, "k256-f32.gguf");
writeFileSync(model, buildTinyLlama({ quant: "f32", shape: { dim: 256, layers: 1, heads: 4, kvHeads: 2, ff: 512, context: 512 }, name: "k256" }));
const eddy = (args: string[]) => execa(process.execPath, [BIN, ...args], { cwd: ROOT, reject: false, env: { EDDY_DB: path.join(dir, "default.db") } });
const STUDY = ["-m", model, "-t", "list_every_kth", "-M", "2", "-R", "1", "--max-tokens", "8", "--threads", "1", "--no-progress"];

/** The run's configurations as stored: label, cache type in the metadata, answers. */
function configurations(db: string, runId: string) {
    const store = openStore(db, { readonly: true });
    try {
        return store.configurations(runId).map((c) => ({ model: c.model, kvCache: (JSON.parse(c.metadata_json ?? "{}") as { kvCache?: string }).kvCache, answers: store.generatedKeys(c.id).size }));
    } finally {
        store.close();
    }
}

describe("eddy run --kv-cache with several types", () => {
    const db = path.join(dir, "axis.db");

    it("makes each type a configuration of one run, in its label, metadata and the run's identity, and records its CPU time", async () => {
        const plan = await eddy(["run", ...STUDY, "--kv-cache", "f16,q8_0", "--db", db, "--dry-run", "--json"]);
        expect(plan.exitCode, plan.stderr).toBe(0);
        expect(JSON.parse(plan.stdout)).toMatchObject({ models: ["k256-f32@kv=f16", "k256-f32@kv=q8_0"], queries: 4 });

        const r = await eddy(["run", ...STUDY, "--kv-cache", "f16,q8_0", "--db", db]);
        expect(r.exitCode, r.stderr).toBe(0);
        const runId = r.stdout.trim();
        expect(configurations(db, runId)).toEqual([
            { model: "k256-f32@kv=f16", kvCache: "f16", answers: 2 },
            { model: "k256-f32@kv=q8_0", kvCache: "q8_0", answers: 2 }
        ]);
        const store = openStore(db, { readonly: true });
        try {
            expect(JSON.parse(store.getRun(runId)!.config_json).kvCache).toEqual(["f16", "q8_0"]);
            // the CPU the inference process spent generating each configuration's answers
            const usage = generationUsage(store, runId);
            expect(usage.map((u) => u.model)).toEqual(["k256-f32@kv=f16", "k256-f32@kv=q8_0"]);
            for (const u of usage) {
                expect(u.cpuMs, u.model).toBeGreaterThan(0);
                expect(u.responses).toBe(2);
                expect(u.generatedTokens).toBeGreaterThan(0);
            }
        } finally {
            store.close();
        }

        // the same command again continues the same run: nothing generated twice, no CPU recorded for nothing
        const again = await eddy(["run", ...STUDY, "--kv-cache", "f16,q8_0", "--db", db]);
        expect(again.exitCode, again.stderr).toBe(0);
        expect(again.stdout.trim()).toBe(runId);
        const store2 = openStore(db, { readonly: true });
        try {
            expect(generationUsage(store2, runId).map((u) => u.responses)).toEqual([2, 2]);
        } finally {
            store2.close();
        }
    }, 300_000);

    it("keeps one type the run's setting, as before the axis (no label change), and refuses an unknown type in one line", async () => {
        const r = await eddy(["run", ...STUDY, "--kv-cache", "q8_0", "--db", path.join(dir, "one.db"), "--dry-run", "--json"]);
        expect(r.exitCode, r.stderr).toBe(0);
        expect(JSON.parse(r.stdout).models).toEqual(["k256-f32"]);
        const bad = await eddy(["run", ...STUDY, "--kv-cache", "f16,q3_k", "--db", path.join(dir, "bad.db")]);
        expect(bad.exitCode).toBe(1);
        expect(unwrapMessages(bad.stderr).trim()).toMatch(/^eddy: --kv-cache must be one of f32, f16, bf16, q8_0, q5_1, q5_0, q4_1, q4_0, iq4_nl \(got 'q3_k'\)$/);
    });
});
