/**
 * Issue #30: time accounting that cannot blame load on the answer. A correct answer that never
 * sleeps is `passed` however busy the machine is: its CPU is counted for every thread (exited ones
 * included) and "sleeping or blocked" is decided from its own state (no CPU used and no thread
 * runnable over the window), never from wall time minus a sample of the threads alive now.
 * The busy processes are started and stopped here; nothing asserts a wall time. Both modes: with
 * bubblewrap and without a sandbox.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JudgePool } from "../../src/judge/JudgePool.js";
import { pythonCommand } from "../../src/judge/workerScript.js";
import type { Verdict } from "../../src/judge/types.js";
import { fixtureTemplate } from "./fixtures/templates.js";
import { CPU_BOUND_CORRECT } from "./fixtures/attacks30.js";

const t = fixtureTemplate("sum_range", { budget: { timeMs: 1000, memoryMb: 64 }, randomInputs: 5 });
const bindings = { lo: 1, hi: 3 };
// Each burns 0.4 s of CPU, well inside the 1000 ms budget, and answers right: only the accounting
// can make it fail. At a fifth of a core that is 2 s of wall time, twice the blocked window.
const correct = CPU_BOUND_CORRECT;
const RETURN_RIGHT = "    return sum(values[1:4])\n";
const SLEEPING = "import time\ndef sum_range(values):\n    time.sleep(60)\n" + RETURN_RIGHT;

const SPIN = "const p = process.ppid, end = Date.now() + 600000; for (let i = 0; ; i++) if ((i & 0xfffff) === 0 && (process.ppid !== p || Date.now() > end)) process.exit(0);";
const busy: ChildProcess[] = [];
const killOnExit = (): void => {
    for (const c of busy) c.kill("SIGKILL");
};
function startBusy(n: number): void {
    for (let i = 0; i < n; i++) busy.push(spawn(process.execPath, ["-e", SPIN], { stdio: "ignore" }));
}
async function stopBusy(): Promise<void> {
    const all = busy.splice(0);
    await Promise.all(
        all.map(
            (c) =>
                new Promise<void>((resolve) => {
                    if (c.exitCode !== null || c.signalCode !== null) return resolve();
                    c.once("exit", () => resolve());
                    c.kill("SIGKILL");
                })
        )
    );
}
const spinning = () => busy.filter((c) => c.exitCode === null && c.signalCode === null).length;
const show = (v: Verdict) => `${v.category}${v.limit ? "/" + v.limit : ""} cpu=${v.cpuMs} — ${v.detail}`;

for (const mode of ["bubblewrap", "without a sandbox"] as const) {
    describe(`time accounting (${mode})`, () => {
        let pool: JudgePool;
        const saved = { factor: process.env.EDDY_JUDGE_CPU_FACTOR, ns: process.env.EDDY_JUDGE_NO_NAMESPACES };
        let pass = 0;
        const judge = (code: string) => pool.judge({ template: { ...t, oracleHash: `${t.oracleHash}|acct-${mode}-${pass++}` }, bindings, code });

        beforeAll(async () => {
            process.on("exit", killOnExit);
            process.env.EDDY_JUDGE_CPU_FACTOR = "1";
            if (mode === "without a sandbox") process.env.EDDY_JUDGE_NO_NAMESPACES = "1";
            try {
                pool = await JudgePool.start({ workers: 1, allowUnsandboxed: mode === "without a sandbox" });
            } finally {
                if (saved.ns === undefined) delete process.env.EDDY_JUDGE_NO_NAMESPACES;
                else process.env.EDDY_JUDGE_NO_NAMESPACES = saved.ns;
            }
        });
        afterAll(async () => {
            try {
                await stopBusy();
                await pool?.close();
            } finally {
                if (saved.factor === undefined) delete process.env.EDDY_JUDGE_CPU_FACTOR;
                else process.env.EDDY_JUDGE_CPU_FACTOR = saved.factor;
                process.off("exit", killOnExit);
            }
        });

        it("idle: exiting threads, a load-time burn and an exit-time burn pass; a sleeper is stopped as blocked", async () => {
            expect(pool.isolation.sandboxed).toBe(mode === "bubblewrap");
            for (const [name, code] of correct) {
                const v = await judge(code);
                expect(v.category, `${name}: ${show(v)}`).toBe("passed");
                // The CPU of every thread is counted, exited ones included. A verdict that ends sooner in wall
                // time than its budget spread over every core does not wait for the keeper's measurement
                // (it cannot be over budget), so the measurement is read where it is always waited for.
                const measured = await pool.profile({ template: { ...t, oracleHash: `${t.oracleHash}|acct-${mode}-${pass++}` }, bindings, code });
                expect(measured.category, name).toBe("passed");
                expect(measured.cpuMs ?? 0, `${name}: ${JSON.stringify(measured)}`).toBeGreaterThan(300);
            }
            const s = await judge(SLEEPING);
            expect(s.category, show(s)).toBe("resource_exhaustion");
            expect(s.limit).toBe("blocked");
        }, 120_000);

        it("with 4 busy processes per core: the same three pass, and a correct CPU-bound answer passes 10 times out of 10", async () => {
            const n = 4 * availableParallelism();
            startBusy(n);
            try {
                const out: string[] = [];
                for (const [name, code] of correct) out.push(`${name}: ${show(await judge(code))}`);
                for (let i = 0; i < 10; i++) out.push(`CPU-bound #${i + 1}: ${show(await judge(correct[0]![1] + `\n# run ${i}\n`))}`);
                expect(spinning()).toBe(n);
                expect(out.filter((line) => !/: passed /.test(line)), out.join("\n")).toEqual([]);
            } finally {
                await stopBusy();
            }
        }, 240_000);
    });
}

describe("the host factor: measured once per machine on a quiet moment, stored, reused", () => {
    let home = "";
    const saved = { factor: process.env.EDDY_JUDGE_CPU_FACTOR, xdg: process.env.XDG_CACHE_HOME };
    beforeAll(() => {
        home = mkdtempSync(path.join(tmpdir(), "eddy-factor-"));
        delete process.env.EDDY_JUDGE_CPU_FACTOR;
        process.env.XDG_CACHE_HOME = home;
    });
    afterAll(async () => {
        await stopBusy();
        if (saved.factor !== undefined) process.env.EDDY_JUDGE_CPU_FACTOR = saved.factor;
        if (saved.xdg === undefined) delete process.env.XDG_CACHE_HOME;
        else process.env.XDG_CACHE_HOME = saved.xdg;
        rmSync(home, { recursive: true, force: true });
    });

    it("a stored factor is reused at pool start, under load too, and recorded in the isolation report", async () => {
        const first = await JudgePool.start({ workers: 1 });
        const measured = first.isolation;
        await first.close();
        expect(["measured", "measured-busy"]).toContain(measured.cpuFactorSource);
        // Whatever the first start saw, a stored value (here: one written by hand) is what later pools use.
        const { execFileSync } = await import("node:child_process");
        // The key names the judge's own interpreter (its version is part of it).
        const key = execFileSync(pythonCommand(), ["-c", "from eddy_judge.budget import machine_key; print(machine_key())"], {
            env: { ...process.env, PYTHONPATH: path.resolve("src/judge/python") },
            encoding: "utf8"
        }).trim();
        mkdirSync(path.join(home, "eddy"), { recursive: true });
        writeFileSync(path.join(home, "eddy", "host-factor.json"), JSON.stringify({ version: 1, machines: { [key]: { factor: 1.4142, measuredAt: "2026-01-01T00:00:00Z" } } }));
        startBusy(4 * availableParallelism());
        try {
            const loaded = await JudgePool.start({ workers: 1 });
            await loaded.close();
            expect(loaded.isolation.cpuFactor).toBe(1.4142);
            expect(loaded.isolation.cpuFactorSource).toBe("cache");
            expect(loaded.isolation.notes.join(" ")).toMatch(/factor 1\.41 \(measured once on a quiet moment and stored/);
        } finally {
            await stopBusy();
        }
    }, 120_000);
});
