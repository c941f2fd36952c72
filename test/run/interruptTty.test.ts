/**
 * Issue #47: Ctrl-C within a second at any time, before the first answer too. eddy runs under a real
 * pseudo-terminal (util-linux's `script`), Ctrl-C is typed into it (the terminal sends SIGINT to the whole
 * foreground process group, as a person's Ctrl-C does), and the screen is read back through a terminal
 * emulator (@xterm/headless). The moments are made long on purpose, so that the test does not depend on
 * timing: a model file of 128 GB (sparse: a tiny model's header, then nothing on disk) takes minutes to hash
 * before it loads, and a Python interpreter that ignores Ctrl-C and takes a minute to start keeps oracle
 * validation and the judge's workers starting. Before, eddy waited for them (hashing a 20 GB file: 100 s);
 * now it stops at once, says so in one summary, exits 130, and the run in the store is interrupted and
 * resumes to a complete run.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import xterm from "@xterm/headless";
import { afterAll, describe, expect, it } from "vitest";
import { ensureTinyModels } from "../../src/inference/gguf/tinyModel.js";
import { BIN, cleanTmp, tmpDir } from "./helpers.js";

afterAll(cleanTmp);
const tiny = ensureTinyModels();
const SCRIPT = spawnSync("sh", ["-c", "command -v script"], { encoding: "utf8" }).stdout.trim();
const COLS = 100;
/** Far below what the slow moments take (minutes), far above what stopping takes (under a second). */
const ENDS_WITHIN_MS = 20_000;

/**
 * `eddy <args>` under a pseudo-terminal; Ctrl-C typed once the output shows `when`. Resolves with the exit
 * code, the screen (scrollback included) and whether it ended within ENDS_WITHIN_MS of the Ctrl-C.
 */
function interrupted(args: string[], cwd: string, when: RegExp, env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; lines: string[]; endedInTime: boolean; raw: string }> {
    const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
    const { EDDY_DB: _db, ...base } = process.env;
    const p = spawn(SCRIPT, ["-qfec", `stty cols ${COLS} rows 40; ${quoted}`, "/dev/null"], { cwd, env: { ...base, ...env, TERM: "xterm" }, stdio: ["pipe", "pipe", "pipe"] });
    let raw = "";
    let sentAt = 0;
    return new Promise((resolve, reject) => {
        const onData = (d: Buffer): void => {
            raw += d.toString();
            if (!sentAt && when.test(raw)) {
                sentAt = Date.now();
                p.stdin!.write("\x03");
            }
        };
        p.stdout!.on("data", onData);
        p.stderr!.on("data", onData);
        // Nothing here waits for the slow moments to pass: past the bound, the run is killed and the test fails.
        const guard = setTimeout(() => p.kill("SIGKILL"), 240_000);
        p.once("error", reject);
        p.once("close", async (code) => {
            clearTimeout(guard);
            const endedInTime = sentAt > 0 && Date.now() - sentAt < ENDS_WITHIN_MS;
            const term = new xterm.Terminal({ cols: COLS, rows: 40, scrollback: 1000, allowProposedApi: true });
            await new Promise<void>((done) => term.write(raw, done));
            const b = term.buffer.active;
            const lines: string[] = [];
            for (let i = 0; i < b.length; i++) lines.push(b.getLine(i)!.translateToString(true));
            term.dispose();
            resolve({ code, lines: lines.filter((l) => l.trim() !== ""), endedInTime, raw });
        });
    });
}

/** What a stopped run must leave: one summary, the resume hint, a run marked interrupted that resumes to a complete one. */
function expectStopped(r: { code: number | null; lines: string[]; endedInTime: boolean }, cwd: string, db: string, beforeResume: () => void = () => {}): void {
    const screen = r.lines.join("\n");
    expect(r.code, screen).toBe(130);
    expect(r.endedInTime, screen).toBe(true);
    // The note is whole on the screen (not drawn over by the next frame), once; each bar once, its last frame
    // saying the run stopped, and nothing the terminal echoed ("^C") left over a bar.
    expect(r.lines.filter((l) => l === "eddy: stopping — keeping what is stored, dropping what is queued (Ctrl-C again to quit now)"), screen).toHaveLength(1);
    const gen = r.lines.filter((l) => l.startsWith("generate |"));
    expect(gen, screen).toHaveLength(1);
    expect(gen[0]).toMatch(/\| 0\/\d+ stopped\b/);
    expect(r.lines.filter((l) => l.startsWith(`judge${" ".repeat(4)}|`)), screen).toHaveLength(1);
    expect(r.lines.filter((l) => l.includes("^C") && l.includes("|")), screen).toEqual([]);
    // One summary, after the bars; the run is interrupted, its answers all missing.
    const summary = r.lines.filter((l) => /^run \S+: /.test(l));
    expect(summary, screen).toHaveLength(1);
    expect(summary[0]).toMatch(/^run \S+: interrupted, \d+ answers missing in /);
    expect(r.lines.filter((l) => /^ {2}answers: {2}judged 0 of \d+, 0 passed; \d+ missing$/.test(l)), screen).toHaveLength(1);
    expect(screen).toMatch(/^eddy: interrupted; resume with:\n {2}eddy run --resume \S+ --db \S+$/m);
    // No failure is reported for what Ctrl-C stopped (a worker killed while it loaded).
    expect(screen).not.toMatch(/cannot load|crashed|failed|internal error/);
    const { EDDY_DB: _db, ...env } = process.env;
    const list = spawnSync(process.execPath, [BIN, "runs", "list", "--db", db, "--json"], { cwd, encoding: "utf8", env });
    const runs = JSON.parse(list.stdout) as { id: string; status: string; counts: { generations: number; verdicts: number } }[];
    expect(runs.map((x) => [x.status, x.counts.generations, x.counts.verdicts])).toEqual([["interrupted", 0, 0]]);
    beforeResume();
    const resumed = spawnSync(process.execPath, [BIN, "run", "--resume", runs[0]!.id, "--db", db, "--no-progress"], { cwd, encoding: "utf8", env, timeout: 240_000 });
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/: complete in /);
}

describe.skipIf(!SCRIPT)(`Ctrl-C before the first answer${SCRIPT ? "" : " (skipped: util-linux's `script` is not installed)"}`, () => {
    it("while a model loads (a 128 GB file being hashed): the run stops at once, exit 130, one summary, nothing lost", async () => {
        const cwd = tmpDir("eddy-ctrl-c-");
        const big = path.join(cwd, "big.gguf");
        copyFileSync(tiny.q8_0, big);
        truncateSync(big, 128 * 1024 ** 3);
        const db = path.join(cwd, "s.db");
        const r = await interrupted(["run", "--model", big, "--templates", "list_every_kth", "--instances", "2", "--rounds", "1", "--threads", "1", "--db", db], cwd, /loading big/);
        // The resume loads a model that takes no minutes: the run holds no answer of the big file yet.
        expectStopped(r, cwd, db, () => copyFileSync(tiny.q8_0, big));
    }, 300_000);

    it("while the judge's Python starts (one that ignores Ctrl-C and takes a minute): the same", async () => {
        const cwd = tmpDir("eddy-ctrl-c-");
        const slow = path.join(cwd, "slow-python");
        const python = process.env.EDDY_PYTHON ?? "python3";
        writeFileSync(slow, `#!/bin/sh\ntrap '' INT\nsleep 60\nexec '${python.replace(/'/g, `'\\''`)}' "$@"\n`);
        chmodSync(slow, 0o755);
        const db = path.join(cwd, "r.db");
        const r = await interrupted(["run", "--backend", "reference", "--templates", "list_every_kth", "--instances", "2", "--rounds", "1", "--db", db], cwd, /validating oracles/, { EDDY_PYTHON: slow });
        expectStopped(r, cwd, db);
    }, 300_000);
});
