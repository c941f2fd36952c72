import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { JudgePool, nextWaiter } from "../../src/judge/JudgePool.js";
import { probeIsolation } from "../../src/judge/isolation.js";
import { fixtureTemplate } from "./fixtures/templates.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const fake = path.join(here, "fixtures/crashing-python.sh");
const t = fixtureTemplate("sum_range", { budget: { timeMs: 1000, memoryMb: 64 }, randomInputs: 5 });
const bindings = { lo: 1, hi: 3 };
const CORRECT = "def sum_range(values):\n    return sum(values[1:4])\n";
const saved = { ...process.env };
const scratch = mkdtempSync(path.join(tmpdir(), "eddy-pool-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

afterEach(() => {
    process.env = { ...saved };
});

describe("dispatch", () => {
    const waiter = (instance?: string, passed = 0) => ({ instance, passed });
    const slot = (...prepared: string[]) => ({ prepared: new Set(prepared) });

    it("a freed worker takes a request for an instance it prepared, else one no other worker prepared, else the head", () => {
        const mine = slot("a"), other = slot("b");
        const slots = [mine, other];
        expect(nextWaiter([], mine, slots)).toBe(-1);
        expect(nextWaiter([waiter("b"), waiter("c"), waiter("a")], mine, slots)).toBe(2);
        expect(nextWaiter([waiter("b"), waiter("c"), waiter("a")], other, slots)).toBe(0);
        expect(nextWaiter([waiter("b"), waiter("b"), waiter("c")], mine, slots)).toBe(2);
        // Requests that prepare nothing (sources, mutants, a pool held whole) are nobody's: the first goes.
        expect(nextWaiter([waiter("b"), waiter(undefined), waiter("c")], mine, slots)).toBe(1);
        // Everything waiting is the other worker's: this one does not idle, it takes the head.
        expect(nextWaiter([waiter("b"), waiter("b")], mine, slots)).toBe(0);
    });

    it("the head goes first once later requests have passed it 8 times, and only the first 64 are looked at", () => {
        const mine = slot("a");
        const slots = [mine, slot("b")];
        expect(nextWaiter([waiter("b", 7), waiter("a")], mine, slots)).toBe(1);
        expect(nextWaiter([waiter("b", 8), waiter("a")], mine, slots)).toBe(0);
        const far = [...Array.from({ length: 64 }, () => waiter("b")), waiter("a")];
        expect(nextWaiter(far, mine, slots)).toBe(0);
        expect(nextWaiter(far.slice(1), mine, slots)).toBe(63);
    });

    it("an instance's answers go to the worker that prepared it: each instance is prepared once", async () => {
        const log = path.join(scratch, "prepared.log");
        process.env.EDDY_TEST_PREPARED_LOG = log;
        const counted = fixtureTemplate("sum_range_counted", { budget: { timeMs: 1000, memoryMb: 64 }, randomInputs: 5 });
        const pool = await JudgePool.start({ workers: 2 });
        try {
            const a = { lo: 1, hi: 3 };
            const b = { lo: 0, hi: 2 };
            const judge = (bindings: { lo: number; hi: number }, i: number) => pool.judge({ template: counted, bindings, code: `def sum_range(values):\n    return sum(values[${bindings.lo}:${bindings.hi + 1}])\n# ${i}\n` });
            const preparations = () => readFileSync(log, "utf8").trim().split("\n");
            // Two at once: one worker each, each prepares its instance.
            const first = await Promise.all([judge(a, 0), judge(b, 1)]);
            // One at a time, in the other order: both workers are free, and the one that prepared each takes it
            // (before, the first free worker took both, and prepared the other's instance too).
            const next = [await judge(b, 2), await judge(a, 3)];
            for (const v of [...first, ...next]) expect(v.category, v.detail).toBe("passed");
            expect(preparations(), preparations().join("; ")).toHaveLength(2);
            expect(new Set(preparations().map((l) => l.split(" ")[0])).size).toBe(2);
            // Queued (nextWaiter above decides the order; a worker with nothing of its own takes another's).
            const queued = await Promise.all([a, b, a, b, a, b].map((x, i) => judge(x, 4 + i)));
            for (const v of queued) expect(v.category, v.detail).toBe("passed");
        } finally {
            await pool.close();
        }
    });
});

describe("worker failures", () => {
    it("a worker that dies mid-judgement is replaced and the judgement retried once", async () => {
        process.env.COUNTER = path.join(scratch, "first");
        const pool = await JudgePool.start({ workers: 1, python: fake });
        try {
            const v = await pool.judge({ template: t, bindings, code: CORRECT });
            expect(v.category).toBe("passed");
        } finally {
            await pool.close();
        }
    });

    it("a harness that keeps failing gives judge_error, never a model category", async () => {
        process.env.COUNTER = path.join(scratch, "always");
        process.env.CRASH_ALWAYS = "1";
        const pool = await JudgePool.start({ workers: 1, python: fake });
        try {
            const v = await pool.judge({ template: t, bindings, code: CORRECT });
            expect(v.category).toBe("judge_error");
            expect(v.detail).toMatch(/judge worker exited with status 3/);
        } finally {
            await pool.close();
        }
    });
});

describe("the worker's replies", () => {
    it("a judge reply of the wrong shape is a judge_error that says so, never a verdict", async () => {
        // The real worker, its verdicts given an unknown category and no limit field (no ' in the
        // Python: bash quotes it with them).
        const odd = path.join(scratch, "odd-reply.sh");
        const boot = [
            "import sys",
            "sys.path.insert(0, sys.argv[1])",
            "import eddy_judge.worker as w",
            "real = w.handle",
            "def handle(req):",
            "    r = real(req)",
            '    if req.get("op") == "judge":',
            '        r["category"] = "pass"',
            '        del r["limit"]',
            "    return r",
            "w.handle = handle",
            "w.main()"
        ].join("\n");
        writeFileSync(odd, `#!/bin/bash\nexec python3 -I -c '${boot}' "$4"\n`, { mode: 0o755 });
        const pool = await JudgePool.start({ workers: 1, python: odd });
        try {
            const v = await pool.judge({ template: t, bindings, code: CORRECT });
            expect(v.category).toBe("judge_error");
            expect(v.detail).toMatch(/malformed reply to judge: category/);
        } finally {
            await pool.close();
        }
    });

    it("the largest code accepted is the worker's own (verdicts.py), and the pool refuses more without a worker", async () => {
        const python = execFileSync("python3", ["-c", "import sys; sys.path.insert(0, sys.argv[1]); from eddy_judge.verdicts import MAX_CODE_BYTES; print(MAX_CODE_BYTES)", path.join(here, "../../src/judge/python")], { encoding: "utf8" });
        const pool = await JudgePool.start({ workers: 1 });
        try {
            expect(pool.maxCodeBytes).toBe(Number(python.trim()));
            const big = CORRECT + "#".repeat(pool.maxCodeBytes);
            const v = await pool.judge({ template: t, bindings, code: big });
            expect(v).toMatchObject({ category: "static_error", ms: 0 });
            expect(v.detail).toContain(`more than the judge accepts (${Math.floor(pool.maxCodeBytes / 1024)} KB)`);
        } finally {
            await pool.close();
        }
    });
});

describe("starting", () => {
    it("when one worker cannot start, the ones that did are stopped and start() fails with one line", async () => {
        // Only the first start wins the mkdir; every other start exits at once.
        const once = path.join(scratch, "start-once.sh");
        writeFileSync(once, `#!/bin/bash\nif mkdir "${path.join(scratch, "started")}" 2>/dev/null; then exec python3 "$@"; fi\nexit 7\n`, { mode: 0o755 });
        await expect(JudgePool.start({ workers: 2, python: once })).rejects.toThrow(/failed to start: judge worker exited with status 7/);
        expect(psChildren().filter((l) => l.includes("eddy_judge"))).toEqual([]);
    });
});

describe("closing", () => {
    it("close() with answers still queued: they become judge_error and no new worker is started", async () => {
        const pool = await JudgePool.start({ workers: 1 });
        // Both calls run synchronously up to their first await: one holds the only worker, one waits.
        const queued = [pool.judge({ template: t, bindings, code: CORRECT }), pool.judge({ template: t, bindings, code: CORRECT + "# waits\n" })];
        await pool.close();
        for (const v of await Promise.all(queued)) {
            expect(v.category).toBe("judge_error");
            expect(v.detail).toContain("closed");
        }
        expect(psChildren().filter((l) => l.includes("eddy_judge"))).toEqual([]);
    });
});

/** Command lines of this test process's children (`ps` exits 1 when there are none). */
function psChildren(): string[] {
    try {
        return execFileSync("ps", ["-o", "args=", "--ppid", String(process.pid)], { encoding: "utf8" }).split("\n").filter(Boolean);
    } catch {
        return [];
    }
}

describe("isolation", () => {
    it("probeIsolation reports the level in force", async () => {
        const r = await probeIsolation();
        expect(r.level).toMatch(/rlimits/);
        expect(r.rlimits).toEqual(expect.arrayContaining(["cpu", "as", "nproc", "fsize", "nofile"]));
    });

    it("without namespaces: start() refuses unless unsandboxed judging is allowed, and says so plainly", async () => {
        process.env.EDDY_JUDGE_NO_NAMESPACES = "1";
        delete process.env.EDDY_ALLOW_UNSANDBOXED;
        await expect(JudgePool.start({ workers: 1 })).rejects.toThrow(/--allow-unsandboxed.*answers run WITHOUT a sandbox/);
        expect(psChildren().filter((l) => l.includes("eddy_judge"))).toEqual([]);
        process.env.EDDY_ALLOW_UNSANDBOXED = "1";
        const viaEnv = await JudgePool.start({ workers: 1 });
        expect(viaEnv.isolation.sandboxed).toBe(false);
        await viaEnv.close();
        const r = await probeIsolation();
        expect(r.sandboxed).toBe(false);
        expect(r.level).toMatch(/^NO-SANDBOX/);
    });

    it("without namespaces: sockets are refused, escaped processes are still killed, verdicts unchanged", async () => {
        process.env.EDDY_JUDGE_NO_NAMESPACES = "1";
        const pool = await JudgePool.start({ workers: 1, allowUnsandboxed: true });
        try {
            expect(pool.isolation.network).toBe("seccomp");
            expect(pool.isolation.pidNamespace).toBe(false);
            const sock = await pool.judge({ template: t, bindings, code: "import socket\ndef sum_range(values):\n    socket.socket()\n    return 0\n" });
            expect(sock.category).toBe("runtime_error");
            expect(sock.detail).toContain("PermissionError");
            const spawn = "import subprocess\ndef sum_range(values):\n    subprocess.Popen(['sleep', '876543'], start_new_session=True)\n    return sum(values[1:4])\n";
            const spawned = await pool.judge({ template: t, bindings, code: spawn });
            expect(spawned.category, spawned.detail).toBe("passed");
            expect((await pool.judge({ template: t, bindings, code: "def sum_range(values):\n    while True:\n        pass\n" })).category).toBe("resource_exhaustion");
            expect((await pool.judge({ template: t, bindings, code: CORRECT })).category).toBe("passed");
        } finally {
            await pool.close();
        }
        const ps = execFileSync("ps", ["-eo", "args="], { encoding: "utf8" });
        expect(ps.split("\n").filter((l) => l.includes("sleep 876543"))).toEqual([]);
    });
});
