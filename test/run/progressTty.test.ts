import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensureTinyModels } from "../../src/inference/gguf/tinyModel.js";
import { BIN, cleanTmp, countRows, tmpDir } from "./helpers.js";

/**
 * The live progress bars as a person sees them: eddy runs under a real pseudo-terminal (util-linux's
 * `script`), 160 columns wide so that nothing but eddy itself keeps a frame within 100, and every
 * frame it draws is read back from what the terminal received.
 */

afterAll(cleanTmp);
const tiny = ensureTinyModels();
const SCRIPT = spawnSync("sh", ["-c", "command -v script"], { encoding: "utf8" }).stdout.trim();

/** `eddy <args>` under a pseudo-terminal; its whole output as the terminal received it. */
function underPty(args: string[], cwd: string): { code: number | null; raw: string } {
    const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
    const { EDDY_DB: _db, ...env } = process.env;
    const r = spawnSync(SCRIPT, ["-qfec", `stty cols 160 rows 40; ${quoted}`, "/dev/null"], { cwd, env: { ...env, TERM: "xterm" }, encoding: "utf8", timeout: 240_000 });
    return { code: r.status, raw: `${r.stdout}${r.stderr}` };
}

/** What was drawn: the text between cursor moves, carriage returns and newlines, one entry per write of a line. */
function frames(raw: string): string[] {
     
    return raw.split(/\x1b\[[0-9;?]*[A-Za-z]|\r|\n/).filter((f) => f.trim() !== "");
}
const bars = (all: string[], stage: "generate" | "judge"): { value: number; total: number; extra: string; frame: string }[] =>
    all.flatMap((frame) => {
        const m = new RegExp(`^${stage} *\\|[^|]*\\| (\\d+)/(\\d+) ?(.*)$`).exec(frame);
        return m ? [{ value: Number(m[1]), total: Number(m[2]), extra: m[3]!, frame }] : [];
    });
const cols = (s: string): number => [...s].length;

const STUDY = ["--model", tiny.f32, "--templates", "list_every_kth,math_count_coprime", "--instances", "8", "--rounds", "2", "--max-tokens", "48", "--context-size", "1024", "--threads", "1", "--sequences", "1"];
// 128 queries (about 2 s of generation here): rows are first stored 250 ms after the first answer, so
// Ctrl-C lands with most of the run left even on a loaded machine (32 queries did not, once, on CI).
const RESUMED_STUDY = [...STUDY.slice(0, 2), "--templates", "list_every_kth,math_count_coprime,string_substring_inclusive,math_count_multiples", ...STUDY.slice(4, 6), "--rounds", "4", ...STUDY.slice(8)];

describe.skipIf(!SCRIPT)(`live progress on a terminal${SCRIPT ? "" : " (skipped: util-linux's `script` is not installed)"}`, () => {
    it("a fresh run: a word of what is happening before the first answer, no stale 0/1 frame, every frame within 100 columns", () => {
        const cwd = tmpDir("eddy-pty-");
        const r = underPty(["run", ...STUDY, "--db", "s.db"], cwd);
        expect(r.code, r.raw).toBe(0);
        const all = frames(r.raw);
        const gen = bars(all, "generate");
        const judge = bars(all, "judge");
        expect(gen.length, r.raw).toBeGreaterThan(1);
        // The run's whole size from the first frame on: no "0/1" placeholder above the real bar.
        expect([...gen, ...judge].filter((b) => b.total !== 32).map((b) => b.frame)).toEqual([]);
        // Before the first answer the bar says what eddy is doing (validating oracles, loading the model), not "ETA 0s".
        const before = gen.filter((b) => b.value === 0);
        expect(before.length).toBeGreaterThan(0);
        expect(before.map((b) => b.extra)).toContain("validating oracles…");
        expect(before.map((b) => b.extra)).toContain("loading eddy-tiny-f32…");
        // Once loaded, until the first answer: "generating…", not "ETA ?" or "ETA 0s".
        expect(before.filter((b) => /ETA/.test(b.extra))).toEqual([]);
        expect(gen.at(-1)!.value).toBe(32);
        expect(gen.at(-1)!.extra).toMatch(/^\d+ tok\/s · /);
        // The tiny model's answers are all truncated: none counts as judged.
        expect(judge.at(-1)!.extra).toMatch(/32 truncated or judge_error/);
        // 100 columns, on a 160-column terminal: the bars fit by construction, not by the terminal cutting them.
        expect(all.filter((f) => cols(f) > 100)).toEqual([]);
    });

    it("the reference backend decodes nothing: no tok/s in any frame", () => {
        const cwd = tmpDir("eddy-pty-");
        const r = underPty(["run", "--backend", "reference", "--templates", "list_every_kth", "--instances", "4", "--rounds", "1", "--db", "r.db"], cwd);
        expect(r.code, r.raw).toBe(0);
        const all = frames(r.raw);
        expect(bars(all, "generate").length).toBeGreaterThan(0);
        expect(all.filter((f) => /tok\/s/.test(f))).toEqual([]);
        expect(bars(all, "judge").at(-1)).toMatchObject({ value: 4, total: 4 });
    });

    it("a resumed run counts from what was stored (k/64, never 0/(64−k))", async () => {
        // Four templates, 64 answers: answers are stored a few at a time, so a Ctrl-C after the first
        // few lands well before the last (with two templates a fast machine stored all 32 first).
        const total = 128;
        const cwd = tmpDir("eddy-pty-");
        const db = path.join(cwd, "s.db");
        // A first session stopped with Ctrl-C after a few answers (no terminal: plain lines).
        const p = spawn(process.execPath, [BIN, "run", ...RESUMED_STUDY, "--no-progress", "--db", db], { cwd, stdio: "ignore" });
        const stored = (): number => {
            try {
                return existsSync(db) ? countRows(db, "generations") : 0;
            } catch {
                return 0;
            }
        };
        while (p.exitCode === null && stored() < 4) await new Promise((r) => setTimeout(r, 30));
        expect(p.exitCode, "the first session ended before Ctrl-C could land").toBe(null);
        p.kill("SIGINT");
        await new Promise((r) => p.once("exit", r));
        const before = stored();
        expect(before).toBeGreaterThanOrEqual(4);
        expect(before).toBeLessThan(total);
        const id = (spawnSync(process.execPath, [BIN, "runs", "list", "--db", db, "--json"], { encoding: "utf8" }).stdout.match(/"id": "([^"]+)"/) ?? [])[1]!;
        const r = underPty(["run", "--resume", id, "--db", db], cwd);
        expect(r.code, r.raw).toBe(0);
        const gen = bars(frames(r.raw), "generate");
        expect(gen.filter((b) => b.total !== total).map((b) => b.frame)).toEqual([]);
        expect(gen[0]!.value).toBeGreaterThanOrEqual(before);
        expect(gen.at(-1)!.value).toBe(total);
    });
});
