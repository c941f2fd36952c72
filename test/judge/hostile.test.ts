import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JudgePool } from "../../src/judge/JudgePool.js";
import type { Category } from "../../src/judge/types.js";
import { fixtureTemplate } from "./fixtures/templates.js";

// Small limits keep this file quick; every containment was first tried with tiny limits.
const t = fixtureTemplate("sum_range", { budget: { timeMs: 1000, memoryMb: 64 }, randomInputs: 5 });
const bindings = { lo: 1, hi: 3 };
const RETURN_RIGHT = "    return sum(values[1:4])\n";
const CORRECT = "def sum_range(values):\n" + RETURN_RIGHT;
// Every hostile candidate renames its process (prctl PR_SET_NAME, inherited by forks) so that
// survivors can be found afterwards without confusing them with anyone else's processes.
const MARK = "eddyhostile";
const TAG = `import ctypes\nctypes.CDLL(None).prctl(15, b"${MARK}", 0, 0, 0)\n`;
const nonce = randomBytes(6).toString("hex");
// A root-only file outside the sandbox (not in the repo: a test run must never leave it there).
const secretDir = mkdtempSync(path.join(tmpdir(), "eddy-secret-"));
const secretFile = path.join(secretDir, "secret.txt");
const escapeFiles = [`/tmp/eddy-escape-${nonce}`, `/dev/shm/eddy-escape-${nonce}`, `/var/tmp/eddy-escape-${nonce}`];
const SLEEP = "987654";

const corpus: [string, string, Category[]][] = [
    ["infinite loop", "def sum_range(values):\n    while True:\n        pass\n", ["resource_exhaustion"]],
    ["fork bomb", "import os\ndef sum_range(values):\n    while True:\n        os.fork()\n", ["resource_exhaustion"]],
    ["memory bomb", "def sum_range(values):\n    hog = []\n    while True:\n        hog.append(' ' * 10**6)\n", ["resource_exhaustion"]],
    ["deep recursion", "def sum_range(values, depth=0):\n    return sum_range(values, depth + 1)\n", ["resource_exhaustion"]],
    [
        "deep recursion with the limit lifted",
        "import sys\nsys.setrecursionlimit(10**8)\ndef sum_range(values, depth=0):\n    return sum_range(values, depth + 1)\n",
        ["resource_exhaustion"]
    ],
    ["huge file", "def sum_range(values):\n    with open('big.bin', 'w') as f:\n        while True:\n            f.write('x' * 10**6)\n", ["resource_exhaustion"]],
    ["reading /etc/shadow", "def sum_range(values):\n    return open('/etc/shadow').read()\n", ["runtime_error"]],
    ["reading a private file outside the sandbox", `def sum_range(values):\n    return open(${JSON.stringify(secretFile)}).read()\n`, ["runtime_error"]],
    ["opening a socket", "import socket\ndef sum_range(values):\n    socket.create_connection(('1.1.1.1', 80), timeout=0.5)\n" + RETURN_RIGHT, ["runtime_error"]],
    ["killing its parent", "import os, signal\ndef sum_range(values):\n    try:\n        os.kill(os.getppid(), signal.SIGKILL)\n    except OSError:\n        pass\n" + RETURN_RIGHT, ["passed"]],
    ["ignoring SIGTERM", "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ndef sum_range(values):\n    while True:\n        time.sleep(0.05)\n", ["resource_exhaustion"]],
    ["flooding stdout", "import sys\ndef sum_range(values):\n    for _ in range(2000):\n        print('x' * 200)\n        sys.stderr.write('y' * 200 + '\\n')\n" + RETURN_RIGHT, ["passed"]],
    ["spawning subprocesses", `import subprocess\ndef sum_range(values):\n    subprocess.Popen(['sleep', '${SLEEP}'], start_new_session=True)\n` + RETURN_RIGHT, ["passed"]],
    ["sys.exit mid-test", "import sys\ndef sum_range(values):\n    sys.exit(0)\n", ["runtime_error"]],
    ["os._exit mid-test", "import os\ndef sum_range(values):\n    os._exit(0)\n", ["runtime_error"]],
    ["segfault through ctypes", "import ctypes\ndef sum_range(values):\n    return ctypes.string_at(0)\n", ["runtime_error"]],
    ["sleeping threads", "import threading, time\ndef sum_range(values):\n    threading.Thread(target=time.sleep, args=(1000,)).start()\n" + RETURN_RIGHT, ["passed"]],
    [
        "forging lines on the judge's result channel",
        "import os\ndef sum_range(values):\n    for fd in os.listdir('/proc/self/fd'):\n        try:\n            os.write(int(fd), b'garbage\\n{\"done\": true}\\n')\n        except OSError:\n            pass\n" + RETURN_RIGHT,
        ["runtime_error"]
    ],
    [
        // A forged harness-failure line must not turn the candidate's verdict into a judge_error.
        "forging a harness failure on the judge's result channel",
        "import os\nfor fd in os.listdir('/proc/self/fd'):\n    try:\n        os.write(int(fd), b'{\"setup\": \"forged\"}\\n{\"crash\": \"forged\"}\\n')\n    except OSError:\n        pass\ndef sum_range(values):\n" + RETURN_RIGHT,
        ["runtime_error"]
    ],
    [
        "writing outside its working directory",
        `def sum_range(values):\n    for p in ${JSON.stringify(escapeFiles)}:\n        try:\n            open(p, 'w').write('escaped')\n        except OSError:\n            pass\n` + RETURN_RIGHT,
        ["passed"]
    ]
];

function survivors(): string[] {
    const out = execFileSync("ps", ["-eo", "pid=,comm=,args="], { encoding: "utf8" });
    return out.split("\n").filter((l) => l.includes(MARK) || l.includes(`sleep ${SLEEP}`));
}

describe("the result channel", () => {
    it("a candidate that claims another process's pid there cannot make the judge kill that process", async () => {
        const victim = spawn("sleep", ["600"], { stdio: "ignore" });
        const pool = await JudgePool.start({ workers: 1 });
        try {
            const forge = `import os\ndef sum_range(values):\n    for fd in os.listdir('/proc/self/fd'):\n        try:\n            os.write(int(fd), b'{"pid": ${victim.pid}}\\n')\n        except OSError:\n            pass\n` + RETURN_RIGHT;
            const v = await pool.judge({ template: t, bindings, code: forge });
            expect(v.category, v.detail).toBe("passed");
            // A SIGKILL would have been sent before judge() returned; give its exit event time to arrive.
            await new Promise((r) => setTimeout(r, 300));
            expect(victim.signalCode).toBeNull();
            expect(victim.exitCode).toBeNull();
        } finally {
            victim.kill("SIGKILL");
            await pool.close();
        }
    });
});

for (const mode of ["full isolation", "without namespaces"] as const) {
    describe(`hostile corpus (${mode})`, () => {
        let pool: JudgePool;
        const saved = process.env.EDDY_JUDGE_NO_NAMESPACES;

        beforeAll(async () => {
            mkdirSync(secretDir, { recursive: true, mode: 0o700 });
            writeFileSync(secretFile, "TOP SECRET\n", { mode: 0o600 });
            if (mode === "without namespaces") process.env.EDDY_JUDGE_NO_NAMESPACES = "1";
            pool = await JudgePool.start({ workers: 1 });
            if (saved === undefined) delete process.env.EDDY_JUDGE_NO_NAMESPACES;
            else process.env.EDDY_JUDGE_NO_NAMESPACES = saved;
        });
        afterAll(async () => {
            await pool?.close();
            rmSync(secretDir, { recursive: true, force: true });
            for (const f of escapeFiles) rmSync(f, { force: true });
        });

        // Without a mount namespace the shared scratch dirs (/tmp…) stay writable for the
        // unprivileged user: recorded in the isolation notes, so that case is only checked with it.
        const cases = mode === "full isolation" ? corpus : corpus.filter(([name]) => name !== "writing outside its working directory");
        for (const [name, code, want] of cases)
            it(`${name} → ${want.join(" | ")}, and a correct answer still passes afterwards`, async () => {
                const v = await pool.judge({ template: t, bindings, code: TAG + code });
                expect(want, `${name}: ${v.category} (${v.detail})`).toContain(v.category);
                const after = await pool.judge({ template: { ...t, oracleHash: t.oracleHash + name }, bindings, code: CORRECT });
                expect(after.category, after.detail).toBe("passed");
            });

        it("leaves no stray processes and no files outside the sandbox", async () => {
            // The kernel tears a PID namespace down asynchronously; give it a moment.
            let left = survivors();
            for (let i = 0; i < 20 && left.length > 0; i++) {
                await new Promise((r) => setTimeout(r, 100));
                left = survivors();
            }
            expect(left).toEqual([]);
            if (mode === "full isolation") for (const f of escapeFiles) expect(existsSync(f), f).toBe(false);
        });

        it("the secret really was there to be stolen (the read test can fail)", () => {
            expect(existsSync(secretFile)).toBe(true);
        });
    });
}
