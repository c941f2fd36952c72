import { execFileSync, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JudgePool } from "../../src/judge/JudgePool.js";
import { startWithoutGuard } from "../support/guardOff.js";
import { MemoryVerdictCache } from "../../src/judge/cache.js";
import type { Category } from "../../src/vocabulary.js";
import { fixtureTemplate } from "./fixtures/templates.js";
import { JOINED_THREADS, RECORDING_ATTACKS } from "./fixtures/attacks30.js";
import { ONE_THREAD_ATTACKS } from "./fixtures/attacks36.js";

// Small limits keep this file quick; every containment was first tried with tiny limits.
const t = fixtureTemplate("sum_range", { budget: { timeMs: 1000, memoryMb: 64 }, randomInputs: 5 });
const bindings = { lo: 1, hi: 3 };
const RETURN_RIGHT = "    return sum(values[1:4])\n";
const CORRECT = "def sum_range(values):\n" + RETURN_RIGHT;
// Every hostile candidate renames its process (/proc/self/comm, inherited by forks) so that
// survivors can be found afterwards without confusing them with anyone else's processes. In the
// sandbox there is no /proc to write (and no survivor can outlive its PID namespace).
const MARK = "eddyhostile";
const TAG = `try:\n    open('/proc/self/comm', 'w').write(${JSON.stringify(MARK)})\nexcept OSError:\n    pass\n`;
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
    // Signal handlers are refused in the sandbox (a handler is handed the harness's frame).
    ["ignoring SIGTERM", "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ndef sum_range(values):\n    while True:\n        time.sleep(0.05)\n", ["resource_exhaustion", "runtime_error"]],
    ["flooding stdout", "import sys\ndef sum_range(values):\n    for _ in range(2000):\n        print('x' * 200)\n        sys.stderr.write('y' * 200 + '\\n')\n" + RETURN_RIGHT, ["passed"]],
    // The sandbox's world has no `sleep` to run; without a sandbox it runs and must not survive.
    ["spawning subprocesses", `import subprocess\ndef sum_range(values):\n    subprocess.Popen(['sleep', '${SLEEP}'], start_new_session=True)\n` + RETURN_RIGHT, ["passed", "runtime_error"]],
    ["sys.exit mid-test", "import sys\ndef sum_range(values):\n    sys.exit(0)\n", ["runtime_error"]],
    ["os._exit mid-test", "import os\ndef sum_range(values):\n    os._exit(0)\n", ["runtime_error"]],
    ["segfault through ctypes", "import ctypes\ndef sum_range(values):\n    return ctypes.string_at(0)\n", ["runtime_error"]],
    // A thread left running when the call returns could run beside the harness as it records (issue #30).
    ["sleeping threads", "import threading, time\ndef sum_range(values):\n    threading.Thread(target=time.sleep, args=(1000,)).start()\n" + RETURN_RIGHT, ["runtime_error"]],
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

// Issue #9: a candidate must never see the oracle, forge a verdict or hide its failure.
const SECRET_NAME = `EDDY_TEST_SECRET_${nonce}`;
const SECRET_VALUE = `stack-secret-${nonce}`;
const IPC_KEY = 0x5e000000 + (parseInt(nonce.slice(0, 5), 16) & 0xffff);
const victimFile = path.join(secretDir, "victim.txt");
const keepTemplate = fixtureTemplate("sum_range_keep", { budget: { timeMs: 1000, memoryMb: 64 }, randomInputs: 5 });
const fixtureOracle = t.oracleFile;
const sliceKeep = fixtureTemplate("slice_keep", { budget: { timeMs: 1000, memoryMb: 64 }, randomInputs: 5 });
const evensAsSet = fixtureTemplate("evens", { comparator: "set", budget: { timeMs: 1000, memoryMb: 64 }, randomInputs: 5 });
// [name, code, wanted categories, template, only with namespaces, what the detail must say]
const integrity: [string, string, Category[], typeof t, boolean, RegExp?][] = [
    [
        "gc.get_objects() looking for the oracle's solution",
        "import gc\ndef sum_range(values):\n    for o in gc.get_objects():\n        if callable(o) and getattr(o, '__name__', '') == 'solution':\n            return o(values, lo=1, hi=3)\n    return -12345\n",
        ["runtime_error"], t, false
    ],
    [
        "sys._getframe() walking up to the harness (request, oracle path, helpers)",
        "import sys, importlib.util\ndef sum_range(values):\n    f = sys._getframe()\n    while f is not None:\n        for scope in (f.f_locals, f.f_globals):\n            for k, v in list(scope.items()):\n                if isinstance(v, dict) and 'oracle' in v:\n                    spec = importlib.util.spec_from_file_location('o', v['oracle'])\n                    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n                    return m.solution(values, **v['bindings'])\n                if k in ('prepare', 'load_oracle', 'encode', '_oracles', '_prepared'):\n                    return sum(values[1:4])\n        f = f.f_back\n    return -12345\n",
        ["assertion_error"], t, false
    ],
    [
        "reading the oracle file by its path",
        `import importlib.util\ndef sum_range(values):\n    try:\n        spec = importlib.util.spec_from_file_location('o', ${JSON.stringify(fixtureOracle)})\n        m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n        return m.solution(values, lo=1, hi=3)\n    except Exception:\n        return -12345\n`,
        ["assertion_error"], t, true
    ],
    [
        "environment strings left on the stack or in /proc",
        `import os, ctypes\n# Non-dumpable after the uid change: make /proc/self/mem readable again, as an attacker would.\nctypes.CDLL(None).prctl(4, 1, 0, 0, 0)\ndef sum_range(values):\n    needle = ${JSON.stringify(SECRET_VALUE)}.encode()\n    found = needle in os.environ.get(${JSON.stringify(SECRET_NAME)}, '').encode()\n    for line in open('/proc/self/maps'):\n        if '[stack]' in line:\n            lo, hi = (int(x, 16) for x in line.split()[0].split('-'))\n            with open('/proc/self/mem', 'rb') as mem:\n                mem.seek(lo)\n                found = found or needle in mem.read(hi - lo)\n    for p in os.listdir('/proc'):\n        try:\n            found = found or needle in open('/proc/%s/environ' % p, 'rb').read()\n        except OSError:\n            pass\n    return -12345 if found else sum(values[1:4])\n`,
        ["passed", "runtime_error"], t, false
    ],
    [
        "host command lines in /proc",
        "import os\ndef sum_range(values):\n    for p in os.listdir('/proc'):\n        try:\n            line = open('/proc/%s/cmdline' % p, 'rb').read()\n        except OSError:\n            continue\n        if b'node' in line or b'vitest' in line or b'eddy_judge.worker' in line:\n            return -12345\n    return sum(values[1:4])\n",
        ["passed"], t, true
    ],
    [
        "patching the harness's encoder to hide an argument it changed",
        "import sys, marshal, json\nCALLS = []\ndef _liar(real):\n    memo = {}\n    def fake(v, *a, **k):\n        if isinstance(v, tuple) and id(v) in memo:\n            return memo[id(v)]\n        out = real(v, *a, **k)\n        if isinstance(v, tuple):\n            memo[id(v)] = out\n        return out\n    fake.patched = True\n    return fake\ndef sum_range(values):\n    CALLS.append(1)\n    try:\n        f = sys._getframe(1)\n    except ValueError:\n        f = None  # no harness frame above the answer's (issue #30)\n    while f is not None:\n        g = f.f_globals\n        for name in ('encode', 'dumps', '_send'):\n            if callable(g.get(name)) and not getattr(g[name], 'patched', False):\n                g[name] = _liar(g[name])\n        f = f.f_back\n    for mod, name in ((marshal, 'dumps'), (json, 'dumps')):\n        if not getattr(getattr(mod, name), 'patched', False):\n            setattr(mod, name, _liar(getattr(mod, name)))\n    total = sum(values[1:4])\n    if len(CALLS) > 1:\n        values.reverse()\n    return total\n",
        ["assertion_error", "fuzzing_failure"], keepTemplate, false
    ],
    [
        "deeply nested data and lines without a kind on the result channel",
        "import os, struct\ndef sum_range(values):\n    junk = b'[' * 100000 + b'\\n{\"load\": \"x\"}\\n{\"i\": 0}\\n'\n    deep = b'[\\x01\\x00\\x00\\x00' * 5000 + b'N'\n    for fd in range(3, 64):\n        try:\n            os.write(fd, junk)\n            os.write(fd, struct.pack('>I', len(deep)) + deep)\n        except OSError:\n            pass\n    return sum(values[1:4])\n",
        ["runtime_error"], t, false
    ],
    [
        "a raw socket through ctypes",
        "import ctypes, struct\ndef sum_range(values):\n    libc = ctypes.CDLL(None, use_errno=True)\n    fd = libc.socket(2, 1, 0)\n    if fd < 0:\n        return sum(values[1:4])\n    addr = struct.pack('<HH4s8x', 2, 0x5000, bytes([1, 1, 1, 1]))\n    ok = libc.connect(fd, addr, len(addr)) == 0\n    return -12345 if ok else sum(values[1:4])\n",
        ["passed", "runtime_error"], t, false
    ],
    [
        // 200 bytes of code, 2**32 elements once expanded: repr, hash and compare must stay linear.
        "a shared-reference answer that expands exponentially",
        "def sum_range(values):\n    L = [0]\n    for _ in range(32):\n        L = [L, L]\n    return L\n",
        ["resource_exhaustion"], t, false
    ],
    [
        "a shared-reference tuple inside a set (hashing)",
        "def sum_range(values):\n    T = (0,)\n    for _ in range(40):\n        T = (T, T)\n    return {T}\n",
        ["resource_exhaustion"], t, false
    ],
    [
        "memory outside RLIMIT_AS: memfd and /dev/shm",
        "import os\ndef sum_range(values):\n    pinned = 0\n    try:\n        fd = os.memfd_create('hog')\n        os.posix_fallocate(fd, 0, 800 * 2**20)\n        pinned += 800\n    except OSError:\n        pass\n    try:\n        fd = os.open('/dev/shm/hog', os.O_CREAT | os.O_RDWR)\n        os.posix_fallocate(fd, 0, 800 * 2**20)\n        pinned += 800\n    except OSError:\n        pass\n    return -pinned if pinned else sum(values[1:4])\n",
        ["passed"], t, true
    ],
    [
        // The review's forged argument check: frames and descriptors of the harness, frames written by hand.
        "walking to the harness's frame to forge the argument check",
        "import sys, os, marshal, struct, copy\ndef sum_range(values):\n    total = sum(values[1:4])\n    original = copy.deepcopy(values)\n    values.reverse()\n    f = sys._getframe()\n    fds = list(range(3, 64))\n    while f is not None:\n        if 'fd' in f.f_locals and 'calls' in f.f_locals:\n            fds = [f.f_locals['fd']]\n        f = f.f_back\n    for fd in fds:\n        for i in range(64):\n            data = marshal.dumps(('r', i, total, (original,)))\n            try:\n                os.write(fd, struct.pack('>I', len(data) + 16) + bytes(16) + data)\n            except OSError:\n                break\n    return total\n",
        ["runtime_error", "assertion_error", "fuzzing_failure"], keepTemplate, false
    ],
    [
        "kill(-1) and killing the judge's processes",
        "import os, signal\ndef sum_range(values):\n    for target in (-1, -os.getpgid(os.getppid()) if os.getppid() > 1 else -1, os.getppid()):\n        try:\n            os.kill(target, signal.SIGKILL)\n        except OSError:\n            pass\n    return sum(values[1:4])\n",
        ["passed"], t, false
    ],
    [
        "a process that keeps re-forking to outlive its verdict",
        "import os, time\ndef sum_range(values):\n    if os.fork() == 0:\n        os.setsid()\n        while True:\n            if os.fork() != 0:\n                os._exit(0)\n            time.sleep(0.01)\n    return sum(values[1:4])\n",
        // Each call starts a chain that forks every 10 ms by the clock, and the answer forks again on its next
        // call: whether the chains have filled the 32-process limit by then depends on how fast its own calls
        // run (seen under load, as root and as nobody). The answer's own behaviour is timed, so either verdict
        // is a containment; what must hold is that no chain outlives the verdict (checked below).
        ["passed", "resource_exhaustion"], t, false
    ],
    [
        "writing to the user's files and to its working directory",
        `import os\ndef sum_range(values):\n    for p in (${JSON.stringify(victimFile)}, os.path.join(${JSON.stringify(process.cwd())}, 'eddy-escape-${nonce}')):\n        try:\n            open(p, 'a').write('escaped')\n        except OSError:\n            pass\n    open('scratch-${nonce}', 'w').write('mine')\n    return sum(values[1:4])\n`,
        ["passed"], t, false
    ],
    [
        "the static check on 250 KB of unbound names (linear, bounded)",
        "def sum_range(values):\n    return 0\n" + "x = (" + Array.from({ length: 24_000 }, (_, i) => `n${i}`).join(", ") + ")\n",
        ["static_error"], t, false
    ],
    [
        "an answer over the size cap",
        "def sum_range(values):\n    return sum(values[1:4])\n" + "x = 1\n".repeat(50_000),
        ["static_error"], t, false
    ],
    ["deeply nested brackets", "def sum_range(values):\n    return " + "(".repeat(5000) + "1" + ")".repeat(5000) + "\n", ["syntax_error", "static_error"], t, false],
    // Issue #30: no answer code runs while the harness records; each of these changed its argument.
    ...RECORDING_ATTACKS.map(([name, code]): [string, string, Category[], typeof t, boolean] => [name, code, name.includes("background thread") ? ["runtime_error"] : ["assertion_error", "fuzzing_failure"], sliceKeep, false]),
    ["a correct answer whose threads have ended when its call returns", JOINED_THREADS, ["passed"], t, false],
    // Issue #36: one thread of the answer's for its load and all its calls.
    ...ONE_THREAD_ATTACKS.map(([name, code, want, template, detail]): [string, string, Category[], typeof t, boolean, RegExp?] => [name, code, want, template === "slice_keep" ? sliceKeep : t, false, detail]),
    [
        // Issue #30: 200 bytes on the wire, 2 million values once shared references are expanded, per call: the
        // trusted comparison is bounded by what crossed the wire, and the answer's resource_exhaustion comes first.
        "a shared-reference tuple tree returned to a set template (the trusted comparison)",
        "def sum_range(values):\n    T = (0,)\n    for _ in range(20):\n        T = (T, T)\n    return [T]\n",
        ["resource_exhaustion"], evensAsSet, false
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
            // Anything written to the result channel that is not a well-formed frame is the candidate's failure.
            expect(v.category, v.detail).toBe("runtime_error");
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
            chmodSync(secretDir, 0o755);
            writeFileSync(victimFile, "untouched\n", { mode: 0o644 });
            if (mode === "without namespaces") process.env.EDDY_JUDGE_NO_NAMESPACES = "1";
            process.env[SECRET_NAME] = SECRET_VALUE;
            pool = await JudgePool.start({ workers: 1, allowUnsandboxed: mode === "without namespaces" });
            delete process.env[SECRET_NAME];
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
        // Without a sandbox, an ordinary user's candidates run as that user: its private files are
        // theirs to read (README's table says so), so that case holds only for root (a uid of its own).
        const unprotected = ["writing outside its working directory", ...(process.getuid?.() === 0 ? [] : ["reading a private file outside the sandbox"])];
        const cases = mode === "full isolation" ? corpus : corpus.filter(([name]) => !unprotected.includes(name));
        for (const [name, code, want] of cases)
            it(`${name} → ${want.join(" | ")}, and a correct answer still passes afterwards`, async () => {
                const v = await pool.judge({ template: t, bindings, code: TAG + code });
                expect(want, `${name}: ${v.category} (${v.detail})`).toContain(v.category);
                const after = await pool.judge({ template: { ...t, oracleHash: t.oracleHash + name }, bindings, code: CORRECT });
                expect(after.category, after.detail).toBe("passed");
            });

        for (const [name, code, want, template, nsOnly, detail] of integrity) {
            if (nsOnly && mode !== "full isolation") continue;
            it(`${name} → ${want.join(" | ")}`, async () => {
                const v = await pool.judge({ template: { ...template, oracleHash: template.oracleHash + mode }, bindings, code: TAG + code });
                expect(want, `${name}: ${v.category} (${v.detail})`).toContain(v.category);
                if (detail) expect(v.detail).toMatch(detail);
            });
        }

        it("SysV IPC objects do not carry over from one candidate to the next", async () => {
            // ctypes is the way to SysV IPC from Python: the guard refuses it, so this checks the
            // kernel's layer in a pool without the guard.
            const raw = await startWithoutGuard({ workers: 1, allowUnsandboxed: mode === "without namespaces" });
            const pool = raw;
            const make = `import ctypes\nlibc = ctypes.CDLL(None)\ndef sum_range(values):\n    libc.shmget(${IPC_KEY}, 4096, 0o1666)\n    libc.msgget(${IPC_KEY}, 0o1666)\n    return sum(values[1:4])\n`;
            const look = `import ctypes\nlibc = ctypes.CDLL(None)\ndef sum_range(values):\n    if libc.shmget(${IPC_KEY}, 0, 0) >= 0 or libc.msgget(${IPC_KEY}, 0) >= 0:\n        return -12345\n    return sum(values[1:4])\n`;
            expect((await pool.judge({ template: t, bindings, code: make })).category).toBe("passed");
            const v = await pool.judge({ template: t, bindings, code: look });
            expect(v.category, v.detail).toBe("passed");
            // The look-up can fail: on the host the same key does show up.
            expect(execFileSync("ipcs", ["-m"], { encoding: "utf8" })).not.toContain(IPC_KEY.toString(16));
            await raw.close();
        });

        it("the user's files were really there to be written (the write test can fail)", () => {
            if (mode === "without namespaces" && process.getuid?.() !== 0 && !pool.isolation.level.includes("landlock")) {
                // No sandbox and no Landlock, an ordinary user: the user's files are the candidate's
                // to write, as README's table says. Shown, then cleaned up.
                expect(readFileSync(victimFile, "utf8")).toContain("escaped");
                rmSync(path.join(process.cwd(), `eddy-escape-${nonce}`), { force: true });
                return;
            }
            expect(readFileSync(victimFile, "utf8")).toBe("untouched\n");
            expect(existsSync(path.join(process.cwd(), `eddy-escape-${nonce}`))).toBe(false);
            expect(existsSync(path.join(process.cwd(), `scratch-${nonce}`))).toBe(false);
        });

        it("says plainly what is and is not protected", () => {
            if (mode === "full isolation") {
                expect(pool.isolation.sandboxed).toBe(true);
                expect(pool.isolation.level).toMatch(/^bwrap\+userns\+pidns\+mountns\+ipcns\+netns/);
                expect(pool.isolation.mechanism).toMatch(/^bubblewrap \d+\.\d+/);
                expect(pool.isolation.seccomp).toBe("allow-list");
            } else {
                expect(pool.isolation.sandboxed).toBe(false);
                expect(pool.isolation.level).toContain("NO-SANDBOX");
                expect(pool.isolation.notes.join(" ")).toMatch(/WITHOUT a sandbox/);
            }
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

// Not root: the same isolation from an unprivileged user namespace (where the kernel allows one).
const nobodyPython = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures/nobody-python.sh");
const canRunAsNobody = existsSync("/usr/bin/python3") && existsSync("/usr/bin/setpriv") && process.getuid?.() === 0;
describe.skipIf(!canRunAsNobody)("as an ordinary user (user namespaces)", () => {
    let pool: JudgePool;
    beforeAll(async () => {
        pool = await JudgePool.start({ workers: 1, python: nobodyPython });
    });
    afterAll(async () => {
        await pool?.close();
    });
    it("gets bubblewrap's sandbox without root", () => {
        expect(pool.isolation.sandboxed, pool.isolation.notes.join("; ")).toBe(true);
        expect(pool.isolation.level).toMatch(/^bwrap\+userns\+pidns\+mountns\+ipcns\+netns/);
    });
    // The whole corpus, as root's runs have it: every attack and every integrity case.
    for (const [name, code, want] of corpus)
        it(`${name} → ${want.join(" | ")}`, async () => {
            const v = await pool.judge({ template: { ...t, oracleHash: t.oracleHash + "nobody" + name }, bindings, code: TAG + code });
            expect(want, `${name}: ${v.category} (${v.detail})`).toContain(v.category);
        });
    for (const [name, code, want, template, , detail] of integrity)
        it(`${name} → ${want.join(" | ")}`, async () => {
            const v = await pool.judge({ template: { ...template, oracleHash: template.oracleHash + "nobody" }, bindings, code: TAG + code });
            expect(want, `${name}: ${v.category} (${v.detail})`).toContain(v.category);
            if (detail) expect(v.detail).toMatch(detail);
        });
    it("a fork bomb is stopped by the process limit, and a correct answer passes", async () => {
        const bomb = await pool.judge({ template: t, bindings, code: TAG + "import os\ndef sum_range(values):\n    while True:\n        os.fork()\n" });
        expect(bomb.category).toBe("resource_exhaustion");
        expect((await pool.judge({ template: t, bindings, code: CORRECT })).category).toBe("passed");
    });
});

// The kernel's layers on their own, without the in-process guard (which refuses ctypes first):
// capabilities, mounts, namespaces, memfd and ptrace are refused by the kernel and seccomp.
describe("the sandbox's kernel layers alone (guard off)", () => {
    let pool: JudgePool;
    beforeAll(async () => {
        pool = await startWithoutGuard();
    });
    afterAll(async () => {
        await pool?.close();
    });
    const LIBC = "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n";
    const kernel: [string, string, Category[]][] = [
        [
            "no capability left, none in the bounding set",
            LIBC + "class H(ctypes.Structure):\n    _fields_ = [('v', ctypes.c_uint32), ('pid', ctypes.c_int)]\nclass D(ctypes.Structure):\n    _fields_ = [('e', ctypes.c_uint32), ('p', ctypes.c_uint32), ('i', ctypes.c_uint32)]\ndef sum_range(values):\n    h = H(0x20080522, 0); d = (D * 2)()\n    libc.capget(ctypes.byref(h), ctypes.byref(d))\n    caps = d[0].e | d[0].p | d[1].e | d[1].p\n    bound = sum(libc.prctl(23, c, 0, 0, 0) == 1 for c in range(41))\n    return sum(values[1:4]) if caps == 0 and bound == 0 else -12345\n",
            ["passed"]
        ],
        [
            "umount2 and mount: nothing to lift, nothing to mount",
            LIBC + `def sum_range(values):\n    bad = 0\n    for p in (b'/usr/lib', b'/proc', b'/tmp', b'/dev', b'/'):\n        bad += libc.umount2(p, 2) == 0\n    bad += libc.mount(b'none', b'/mnt', b'tmpfs', 0, None) == 0\n    bad += os.path.exists(${JSON.stringify(fixtureOracle)})\n    return -12345 if bad else sum(values[1:4])\n`,
            ["passed"]
        ],
        [
            "unshare, setns, memfd_create, ptrace, bpf, io_uring and keyctl refused",
            LIBC + "def sum_range(values):\n    calls = [(272, 0x10000000), (308, 0, 0), (319, b'x', 0), (101, 0, 1, 0, 0), (321, 0, 0, 0), (425, 1, 0), (250, 0, 0)]\n    ok = sum(libc.syscall(*c) >= 0 for c in calls)\n    return -12345 if ok else sum(values[1:4])\n",
            ["passed"]
        ],
        [
            "a clone into new namespaces refused",
            LIBC + "def sum_range(values):\n    r = libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)\n    if r == 0:\n        os._exit(0)\n    return -12345 if r > 0 else sum(values[1:4])\n",
            ["passed"]
        ]
    ];
    for (const [name, code, want] of kernel)
        it(`${name} → ${want.join(" | ")}`, async () => {
            const v = await pool.judge({ template: { ...t, oracleHash: t.oracleHash + "kernel" + name }, bindings, code });
            expect(want, `${name}: ${v.category} (${v.detail})`).toContain(v.category);
        });
});

describe("the verdict cache and the isolation mode", () => {
    it("a verdict earned without a sandbox is not reused by a sandboxed pool", async () => {
        const cache = new MemoryVerdictCache();
        process.env.EDDY_JUDGE_NO_NAMESPACES = "1";
        const weak = await JudgePool.start({ workers: 1, cache, allowUnsandboxed: true });
        delete process.env.EDDY_JUDGE_NO_NAMESPACES;
        try {
            expect((await weak.judge({ template: t, bindings, code: CORRECT })).category).toBe("passed");
            expect((await weak.judge({ template: t, bindings, code: CORRECT })).cached).toBe(true);
        } finally {
            await weak.close();
        }
        const strong = await JudgePool.start({ workers: 1, cache });
        try {
            const v = await strong.judge({ template: t, bindings, code: CORRECT });
            expect(v.category).toBe("passed");
            expect(v.cached).toBeUndefined();
        } finally {
            await strong.close();
        }
    });
});
