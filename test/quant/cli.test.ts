import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { buildTinyLlama, ensureTinyModels } from "../../src/inference/gguf/tinyModel.js";
import type { QuantReport } from "../../src/quant/study/types.js";
import { unwrapMessages } from "../support/messages.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The built CLI (test/globalSetup.ts builds dist/ first). */
const BIN = path.join(ROOT, "dist/cli/bin.js");
const dir = mkdtempSync(path.join(os.tmpdir(), "eddy-quant-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const eddy = (args: string[]) => execa(process.execPath, [BIN, ...args], { cwd: ROOT, reject: false, env: { EDDY_DB: path.join(dir, "default.db") } });
// A small study: one template, 2 instances, 1 round, few tokens, one thread (the library default is ~1000x slower here).
const STUDY = ["--templates", "list_every_kth", "--instances", "2", "--rounds", "1", "--max-tokens", "24", "--threads", "1", "--no-progress"];

describe("eddy quant on the tiny models", () => {
    const tiny = ensureTinyModels();

    it("prints per-file JSON with quantization, top1_agreement and kl_mean, writes HTML, and reuses the run", async () => {
        const db = path.join(dir, "quant.db");
        const html = path.join(dir, "quant.html");
        const first = await eddy(["quant", tiny.q4_0, tiny.f32, tiny.q8_0, ...STUDY, "--db", db, "--json", "--out", html]);
        expect(first.stderr).not.toMatch(/internal error/);
        expect(first.exitCode, first.stderr).toBe(0);
        const r = JSON.parse(first.stdout) as QuantReport;
        // most precise first; the reference is F32 by default
        expect(r.files.map((f) => f.quantization)).toEqual(["F32", "Q8_0", "Q4_0"]);
        expect(r.reference).toBe(tiny.f32);
        for (const f of r.files) {
            expect(f).toHaveProperty("top1_agreement");
            expect(f).toHaveProperty("kl_mean");
            expect(f.drift_positions).toBeGreaterThan(0);
            expect(f.size_bytes).toBeGreaterThan(0);
            expect(f.memory_bytes).toBeGreaterThan(0);
            // tokens per CPU-second of the inference process, measured around this study's generation
            expect(f.tokens_per_cpu_second, f.model).toBeGreaterThan(0);
        }
        const [self, q8, q4] = r.files;
        expect(self!.kl_mean).toBeLessThanOrEqual(1e-9);
        expect(self!.top1_agreement).toBe(1);
        expect(q4!.kl_mean!).toBeGreaterThan(q8!.kl_mean!);
        // the same study on every file: identical instance and round slots
        const slots = (f: QuantReport["files"][number]) => Object.values(f.categories).reduce((a, b) => a + b, 0);
        expect(r.files.map(slots)).toEqual([2, 2, 2]);
        expect(r.drift.source).toBe("reference answers");
        const page = readFileSync(html, "utf8");
        expect(page).toContain("<svg");
        expect(page).toContain("Quantisation study");

        // the same command again: the run is complete, and the drift measured on the same texts, files and settings is kept
        // (with progress: a drift measured again would say "token drift of <file> measured on N texts")
        const repeat = await eddy(["quant", tiny.q4_0, tiny.f32, tiny.q8_0, ...STUDY.filter((a) => a !== "--no-progress"), "--db", db, "--json"]);
        expect(repeat.exitCode, repeat.stderr).toBe(0);
        expect(repeat.stderr).not.toMatch(/token drift of/);
        const rr = JSON.parse(repeat.stdout) as QuantReport;
        expect(rr.files.map((f) => [f.model, f.kl_mean, f.top1_agreement, f.drift_positions])).toEqual(r.files.map((f) => [f.model, f.kl_mean, f.top1_agreement, f.drift_positions]));

        // the same command again continues the same run: nothing generated twice
        const again = await eddy(["quant", tiny.f32, tiny.q8_0, tiny.q4_0, ...STUDY, "--db", db, "--json", "--drift-texts", "0"]);
        expect(again.exitCode, again.stderr).toBe(0);
        const r2 = JSON.parse(again.stdout) as QuantReport;
        expect(r2.runId).toBe(r.runId);
        expect(r2.drift.source).toBe("skipped");
        expect(r2.files.map((f) => f.categories)).toEqual(r.files.map((f) => f.categories));
        // nothing generated again: no CPU time added, the figures are the first session's
        expect(r2.files.map((f) => f.tokens_per_cpu_second)).toEqual(r.files.map((f) => f.tokens_per_cpu_second));
    });

    it("refuses files that are not quantisations of one model, with a one-line error", async () => {
        const other = path.join(dir, "other.gguf");
        writeFileSync(other, buildTinyLlama({ quant: "f32", overrideDims: { tensor: "blk.0.ffn_up.weight", dims: [64, 96] } }));
        const res = await eddy(["quant", tiny.f32, other, ...STUDY, "--db", path.join(dir, "bad.db")]);
        expect(res.exitCode).not.toBe(0);
        expect(unwrapMessages(res.stderr).trim()).toMatch(/^eddy: other\.gguf is not a quantisation of the same model as eddy-tiny-f32\.gguf: tensor /);
        expect(unwrapMessages(res.stderr).trim().split("\n")).toHaveLength(1);
        const one = await eddy(["quant", tiny.f32, ...STUDY]);
        expect(unwrapMessages(one.stderr)).toMatch(/at least two GGUF files/);
    });
});
