import { spawn, type ChildProcess } from "node:child_process";
import { availableParallelism } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JudgePool } from "../../src/judge/JudgePool.js";
import type { Verdict } from "../../src/judge/types.js";
import type { Category } from "../../src/vocabulary.js";
import { fixtureTemplate } from "./fixtures/templates.js";

// Issue #20: the same replay of answers with known CPU costs gets the same verdicts on an idle
// machine and on one with 4x as many busy processes as cores. Budgets are CPU time, so every
// answer below burns a known amount of CPU time (time.process_time(), which load does not
// stretch) and returns the right value: only time decides. Nothing here asserts a wall time.

const BUDGET_MS = 300;
const t = fixtureTemplate("sum_range", { budget: { timeMs: BUDGET_MS, memoryMb: 64 }, randomInputs: 5 });
const bindings = { lo: 1, hi: 3 };
const RETURN_RIGHT = "    return sum(values[1:4])\n";

/** An answer that burns `ms` of its process's CPU time in its first call, nothing after, and is right. */
function burning(ms: number): string {
    return [
        "import time",
        `_left = [${(ms / 1000).toFixed(3)}]`,
        "def sum_range(values):",
        "    if _left[0] > 0:",
        "        end = time.process_time() + _left[0]",
        "        _left[0] = 0",
        "        while time.process_time() < end:",
        "            pass",
        RETURN_RIGHT
    ].join("\n");
}

interface Case {
    name: string;
    code: string;
    category: Category;
    limit?: Verdict["limit"];
    rejudged?: boolean;
}

// The keeper stops a candidate at budget x 1.5; a run over budget within that margin is
// re-judged alone and that run decides.
const cases: Case[] = [
    { name: "fast", code: burning(0), category: "passed" },
    { name: "just under (60% of the budget)", code: burning(0.6 * BUDGET_MS), category: "passed" },
    { name: "just over (125%: within the margin, re-judged alone)", code: burning(1.25 * BUDGET_MS), category: "resource_exhaustion", limit: "cpu", rejudged: true },
    { name: "far over (an infinite loop)", code: "def sum_range(values):\n    while True:\n        pass\n" + RETURN_RIGHT, category: "resource_exhaustion", limit: "cpu" },
    { name: "sleeping", code: "import time\ndef sum_range(values):\n    time.sleep(60)\n" + RETURN_RIGHT, category: "resource_exhaustion", limit: "blocked" }
];

// A busy process that spins until killed, and stops by itself if this test's process goes away
// (its parent changes) or after ten minutes, so that none outlives the test whatever happens.
const SPIN = "const p = process.ppid, end = Date.now() + 600000; for (let i = 0; ; i++) if ((i & 0xfffff) === 0 && (process.ppid !== p || Date.now() > end)) process.exit(0);";

const busy: ChildProcess[] = [];

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

// Even a test that throws past afterAll leaves nothing spinning.
const killOnExit = (): void => {
    for (const c of busy) c.kill("SIGKILL");
};

async function replay(pool: JudgePool, pass: string): Promise<Verdict[]> {
    const out: Verdict[] = [];
    // A different oracleHash per pass: the second pass must not be served from the verdict cache.
    for (const c of cases) out.push(await pool.judge({ template: { ...t, oracleHash: `${t.oracleHash}|load-${pass}` }, bindings, code: c.code }));
    return out;
}

function show(vs: Verdict[]): string {
    return vs.map((v, i) => `${cases[i]!.name}: ${v.category}${v.limit ? `/${v.limit}` : ""}${v.rejudged ? " (re-judged)" : ""} cpu=${v.cpuMs} budget=${v.budgetMs} — ${v.detail}`).join("\n");
}

describe("verdicts under load (issue #20)", () => {
    let pool: JudgePool;
    const savedFactor = process.env.EDDY_JUDGE_CPU_FACTOR;

    beforeAll(async () => {
        process.on("exit", killOnExit);
        // Budgets as the template says, on any machine: no host-factor scaling.
        process.env.EDDY_JUDGE_CPU_FACTOR = "1";
        pool = await JudgePool.start({ workers: 1, allowUnsandboxed: true });
    });

    afterAll(async () => {
        try {
            await stopBusy();
            await pool?.close();
        } finally {
            if (savedFactor === undefined) delete process.env.EDDY_JUDGE_CPU_FACTOR;
            else process.env.EDDY_JUDGE_CPU_FACTOR = savedFactor;
            process.off("exit", killOnExit);
        }
    });

    it("gives the same verdicts idle and with 4x as many busy processes as cores", async () => {
        expect(pool.isolation.cpuFactor).toBe(1);
        const idle = await replay(pool, "idle");

        const spinners = 4 * availableParallelism();
        let loaded: Verdict[];
        try {
            startBusy(spinners);
            loaded = await replay(pool, "loaded");
            // Every busy process was still spinning when the last verdict came.
            expect(busy.filter((c) => c.exitCode === null && c.signalCode === null)).toHaveLength(spinners);
        } finally {
            await stopBusy();
        }

        const report = `idle:\n${show(idle)}\nloaded:\n${show(loaded)}`;
        expect(loaded.map((v) => v.category), report).toEqual(idle.map((v) => v.category));
        expect(loaded.map((v) => v.limit), report).toEqual(idle.map((v) => v.limit));
        for (const [pass, vs] of [["idle", idle], ["loaded", loaded]] as const) {
            cases.forEach((c, i) => {
                const v = vs[i]!;
                const what = `${pass}, ${c.name}\n${report}`;
                expect(v.cached, what).toBeUndefined();
                expect(v.category, what).toBe(c.category);
                expect(v.limit, what).toBe(c.limit);
                expect(v.rejudged === true, what).toBe(c.rejudged === true);
                expect(v.budgetMs, what).toBe(BUDGET_MS);
            });
        }
    }, 240_000);
});
