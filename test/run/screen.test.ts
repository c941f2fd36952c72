/**
 * Issue #47: what a person sees on a real terminal, read from the screen of a terminal emulator (@xterm/headless),
 * not from the byte stream: eddy runs under a pseudo-terminal (util-linux's `script`), 100 columns wide, and its
 * output is played into the emulator. Notes and warnings stay above the bars (none is drawn over by a later
 * frame), the final frame stays, each bar is on the screen once, and no stale "loading…" frame is left.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it, afterAll } from "vitest";
import xterm from "@xterm/headless";
import { ensureTinyModels } from "../../src/inference/gguf/tinyModel.js";
import { BIN, cleanTmp, tmpDir } from "./helpers.js";

afterAll(cleanTmp);
const tiny = ensureTinyModels();
const SCRIPT = spawnSync("sh", ["-c", "command -v script"], { encoding: "utf8" }).stdout.trim();
const COLS = 100;

/** `eddy <args>` under a pseudo-terminal of COLS columns; the screen it leaves, line by line (scrollback included). */
async function screenOf(args: string[], cwd: string): Promise<{ code: number | null; lines: string[] }> {
    const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
    const { EDDY_DB: _db, ...env } = process.env;
    const r = spawnSync(SCRIPT, ["-qfec", `stty cols ${COLS} rows 40; ${quoted}`, "/dev/null"], { cwd, env: { ...env, TERM: "xterm" }, encoding: "utf8", timeout: 240_000 });
    const term = new xterm.Terminal({ cols: COLS, rows: 40, scrollback: 1000, allowProposedApi: true });
    await new Promise<void>((done) => term.write(`${r.stdout}${r.stderr}`, done));
    const b = term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < b.length; i++) lines.push(b.getLine(i)!.translateToString(true));
    term.dispose();
    return { code: r.status, lines: lines.filter((l) => l.trim() !== "") };
}

describe.skipIf(!SCRIPT)("the screen of a run on a real terminal", () => {
    it("the warning and the notes stay whole above the bars; the final bars are on the screen once, with the run's counts", async () => {
        const cwd = tmpDir("eddy-screen-");
        const study = ["--model", tiny.f32, "--templates", "list_every_kth,math_count_coprime", "--instances", "8", "--rounds", "2", "--max-tokens", "48", "--context-size", "1024", "--threads", "1", "--sequences", "1"];
        const { code, lines } = await screenOf(["run", ...study, "--db", "s.db"], cwd);
        const screen = lines.join("\n");
        expect(code, screen).toBe(0);
        // The model has no chat template: the warning says so, whole, on the screen (it used to be drawn over).
        expect(lines, screen).toContain("eddy: warning: no chat template in the model: eddy sends a plain completion prompt (--prompt-format)");
        expect(lines.filter((l) => /^eddy: run \S+ \(database .*s\.db\)$/.test(l)), screen).toHaveLength(1);
        // Each bar once, at its final count; nothing left of a frame from before the first answer.
        const gen = lines.filter((l) => l.startsWith("generate |"));
        const judge = lines.filter((l) => l.startsWith(`judge${" ".repeat(4)}|`));
        expect(gen, screen).toHaveLength(1);
        expect(judge, screen).toHaveLength(1);
        expect(gen[0]).toMatch(/\| 32\/32 /);
        expect(screen).not.toMatch(/loading|validating oracles|generating…/);
        // The notes come before the bars, the summary after.
        const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
        expect(at(/^eddy: warning: no chat template/)).toBeLessThan(at(/^generate \|/));
        expect(at(/^run \S+: complete in/)).toBeGreaterThan(at(/^judge {4}\|/));
        for (const l of lines) expect([...l].length).toBeLessThanOrEqual(COLS);
    }, 240_000);
});
