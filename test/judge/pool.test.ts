import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { JudgePool } from "../../src/judge/JudgePool.js";
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

describe("isolation", () => {
    it("probeIsolation reports the level in force", async () => {
        const r = await probeIsolation();
        expect(r.level).toMatch(/rlimits/);
        expect(r.rlimits).toEqual(expect.arrayContaining(["cpu", "as", "nproc", "fsize", "nofile"]));
    });

    it("without namespaces: sockets are refused, escaped processes are still killed, verdicts unchanged", async () => {
        process.env.EDDY_JUDGE_NO_NAMESPACES = "1";
        const pool = await JudgePool.start({ workers: 1 });
        try {
            expect(pool.isolation.network).toBe("socket-blocked");
            expect(pool.isolation.pidNamespace).toBe(false);
            const sock = await pool.judge({ template: t, bindings, code: "import socket\ndef sum_range(values):\n    socket.socket()\n    return 0\n" });
            expect(sock.category).toBe("runtime_error");
            expect(sock.detail).toContain("network access is disabled");
            const spawn = "import subprocess\ndef sum_range(values):\n    subprocess.Popen(['sleep', '876543'], start_new_session=True)\n    return sum(values[1:4])\n";
            expect((await pool.judge({ template: t, bindings, code: spawn })).category).toBe("passed");
            expect((await pool.judge({ template: t, bindings, code: "def sum_range(values):\n    while True:\n        pass\n" })).category).toBe("resource_exhaustion");
            expect((await pool.judge({ template: t, bindings, code: CORRECT })).category).toBe("passed");
        } finally {
            await pool.close();
        }
        const ps = execFileSync("ps", ["-eo", "args="], { encoding: "utf8" });
        expect(ps.split("\n").filter((l) => l.includes("sleep 876543"))).toEqual([]);
    });
});
