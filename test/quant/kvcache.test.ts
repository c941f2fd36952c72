import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa, execaNode } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { buildTinyLlama } from "../../src/inference/gguf/tinyModel.js";
import type { QuantReport } from "../../src/quant/study/types.js";
import { openStore } from "../../src/store/Store.js";
import { unwrapMessages } from "../support/messages.js";

/**
 * The KV-cache axis of `eddy quant` (`--kv-cache f16,q8_0`): one run, every file once per cache type (each a
 * configuration of it), drift per configuration, tokens per CPU-second per configuration; the study recorded with
 * the run, so `eddy view` draws the same recommendation table. A quantised cache needs a head size that is a multiple of 32: eddy's tiny model (head size 16)
 * cannot, so this writes a llama with width 256 and 4 heads (head size 64).
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BIN = path.join(ROOT, "dist/cli/bin.js");
const dir = mkdtempSync(path.join(os.tmpdir(), "eddy-quant-kv-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SHAPE = { dim: 256, layers: 1, heads: 4, kvHeads: 2, ff: 512, context: 512 };
const f32 = path.join(dir, "k256-f32.gguf");
const q8 = path.join(dir, "k256-q8_0.gguf");
writeFileSync(f32, buildTinyLlama({ quant: "f32", shape: SHAPE, name: "k256" }));
writeFileSync(q8, buildTinyLlama({ quant: "q8_0", shape: SHAPE, name: "k256" }));
const eddy = (args: string[]) => execa(process.execPath, [BIN, ...args], { cwd: ROOT, reject: false, env: { EDDY_DB: path.join(dir, "default.db") } });

describe("eddy quant --kv-cache", () => {
    it("studies every file under each cache type against the reference file with an f16 cache", async () => {
        const db = path.join(dir, "kv.db");
        const html = path.join(dir, "kv.html");
        const r = await eddy(["quant", f32, q8, "--kv-cache", "q8_0,f16", "-t", "list_every_kth", "-M", "1", "-R", "1", "--max-tokens", "8", "--threads", "1", "--drift-texts", "1", "--no-progress", "--db", db, "--json", "--out", html]);
        expect(r.exitCode, r.stderr).toBe(0);
        const report = JSON.parse(r.stdout) as QuantReport;
        // one run: every file under each cache type is a configuration of it
        const store = openStore(db, { readonly: true });
        try {
            expect(store.listRuns().map((x) => x.id)).toEqual([report.runId]);
            expect(store.configurations(report.runId).map((c) => c.model).sort()).toEqual(["k256-f32@kv=f16", "k256-f32@kv=q8_0", "k256-q8_0@kv=f16", "k256-q8_0@kv=q8_0"]);
        } finally {
            store.close();
        }
        expect(report.files.map((f) => [f.quantization, f.kv_cache, f.reference])).toEqual([
            ["F32", "f16", true], ["Q8_0", "f16", false], ["F32", "q8_0", false], ["Q8_0", "q8_0", false]
        ]);
        // each cache type generated its own answers (timed, and their CPU measured), none taken from the other's cache
        for (const f of report.files) {
            expect(f.prompt_tokens_per_s, `${f.model}`).not.toBeNull();
            expect(f.tokens_per_cpu_second, `${f.model}`).toBeGreaterThan(0);
        }
        // drift of the reference file under a q8_0 cache against itself under f16: small, not zero
        const refQ8 = report.files.find((f) => f.quantization === "F32" && f.kv_cache === "q8_0")!;
        expect(refQ8.kl_mean).toBeGreaterThan(0);
        expect(refQ8.kl_mean).toBeLessThan(0.1);
        expect(report.files.find((f) => f.reference)!.kl_mean).toBe(0);
        expect(report.files.map((f) => f.model)).toEqual(["k256-f32@kv=f16", "k256-q8_0@kv=f16", "k256-f32@kv=q8_0", "k256-q8_0@kv=q8_0"]);
        // the HTML report and the viewer draw the recommendation table, one row per configuration
        const rows = (page: string) => [...page.matchAll(/<tr class="[a-z]*" data-config="([^"]+)"/g)].map((m) => m[1]);
        expect(rows(readFileSync(html, "utf8"))).toEqual(report.files.map((f) => f.model));
        const view = execaNode(BIN, ["view", "--db", db, "--port", "0"], { cwd: ROOT, reject: false, stdout: "pipe" });
        try {
            const url = await new Promise<string>((resolve) => view.stdout!.on("data", (d: Buffer) => /(http:\/\/\S+\/)/.test(String(d)) && resolve(/(http:\/\/\S+\/)/.exec(String(d))![1]!)));
            const page = await (await fetch(`${url}run/${report.runId}/quant`)).text();
            expect(rows(page)).toEqual(report.files.map((f) => f.model));
            expect(page).toContain(report.verdict.text.slice(0, 40).replace(/&/g, "&amp;").replace(/'/g, "&#39;"));
        } finally {
            view.kill("SIGTERM");
        }
    }, 600_000);

    it("refuses an unknown cache type in one line", async () => {
        const r = await eddy(["quant", f32, q8, "--kv-cache", "f16,q3_k", "--no-progress"]);
        expect(r.exitCode).toBe(1);
        expect(unwrapMessages(r.stderr)).toMatch(/^eddy: --kv-cache must be one of f32, f16, bf16, q8_0, q5_1, q5_0, q4_1, q4_0, iq4_nl \(got 'q3_k'\)$/m);
    });
});
