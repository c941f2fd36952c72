/**
 * The judge as labs run it: an ordinary user (nobody) who owns their copy of eddy, its judge
 * package and its oracles. Every attack of issue #19 that needs that setting is tried here, with
 * bubblewrap and (where it applies) without a sandbox, with the in-process guard on and off (off:
 * what the kernel's layers hold on their own).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { availableParallelism } from "node:os";
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IsolationReport, JudgeEnvironment, Verdict } from "../../src/judge/types.js";
import { fixtureTemplate } from "./fixtures/templates.js";
import { CPU_BOUND_CORRECT, JOINED_THREADS, RECORDING_ATTACKS } from "./fixtures/attacks30.js";
import { NUMPY_ANSWERS } from "./fixtures/numpy.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const canRun = process.getuid?.() === 0 && existsSync("/usr/sbin/runuser") && existsSync("/usr/bin/python3") && existsSync(path.join(root, "dist/judge/JudgePool.js"));
const bindings = { lo: 1, hi: 3 };
const CORRECT = "def sum_range(values):\n    return sum(values[1:4])\n";
// Issue #44: the system Python's numpy, for answers that import it (CI installs python3-numpy: scripts/setup.sh).
const NO_NUMPY = canRun && spawnSync("/usr/bin/python3", ["-I", "-c", "import numpy"]).status !== 0 ? "/usr/bin/python3 cannot import numpy: install Debian's python3-numpy (what scripts/setup.sh does)" : undefined;

interface Case {
    name: string;
    code: string;
    template?: "sum" | "keep" | "other" | "slice";
}

let copy = "";

function templates(): Record<string, ReturnType<typeof fixtureTemplate>> {
    const at = (name: string, oracle: string) => ({ ...fixtureTemplate(oracle, { budget: { timeMs: 1000, memoryMb: 64 }, randomInputs: 5 }), id: "asuser_" + name, oracleFile: path.join(copy, "oracles", oracle + ".py") });
    return { sum: at("sum", "sum_range"), keep: at("keep", "sum_range_keep"), other: at("other", "evens"), slice: at("slice", "slice_keep") };
}

/** Runs the copy's judge as nobody; one verdict per case, in order. */
function judgeAsNobody(cases: Case[], env: Record<string, string>): { isolation: IsolationReport; environment: JudgeEnvironment; verdicts: Verdict[] } {
    const t = templates();
    const input = JSON.stringify({
        allowUnsandboxed: env.EDDY_JUDGE_NO_NAMESPACES === "1",
        cases: cases.map((c) => ({ template: { ...t[c.template ?? "sum"]!, oracleHash: `${c.name}-${JSON.stringify(env)}` }, bindings, code: c.code }))
    });
    const r = spawnSync("runuser", ["-u", "nobody", "--", "env", "-i", "PATH=/usr/bin:/bin", "EDDY_PYTHON=/usr/bin/python3", "HOME=" + copy, ...Object.entries(env).map(([k, v]) => `${k}=${v}`), process.execPath, path.join(copy, "judge-driver.mjs")], {
        input,
        encoding: "utf8",
        timeout: 300_000,
        maxBuffer: 64 * 1024 * 1024
    });
    if (r.status !== 0) throw new Error(`driver failed (${r.status}): ${r.stderr}`);
    return JSON.parse(r.stdout) as { isolation: IsolationReport; environment: JudgeEnvironment; verdicts: Verdict[] };
}

const oracleOf = (name: string) => () => path.join(copy, "oracles", name + ".py");
const workerPy = () => path.join(copy, "src/judge/python/eddy_judge/worker.py");

// Unmount everything it can, mount what it likes, then load an oracle from the host: the
// attack that passed in `userns` mode when the candidate held every capability.
const unmountAndLoad = (oracle: string) =>
    "import ctypes, importlib.util\n" +
    "libc = ctypes.CDLL(None, use_errno=True)\n" +
    "def sum_range(values):\n" +
    "    for p in (b'/proc', b'/tmp', b'/usr/lib', b'/dev', b'/', " + JSON.stringify(path.dirname(oracle)) + ".encode()):\n" +
    "        libc.umount2(p, 2)\n" +
    "    libc.mount(b'none', b'/', None, 32 | 4096 | 1, None)\n" +
    "    libc.unshare(0x10000000 | 0x00020000)\n" +
    "    try:\n" +
    "        spec = importlib.util.spec_from_file_location('o', " + JSON.stringify(oracle) + ")\n" +
    "        m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n" +
    "        return m.solution(values, lo=1, hi=3)\n" +
    "    except Exception:\n" +
    "        return -12345\n";

const appendTo = (file: string) =>
    "def sum_range(values):\n" +
    "    try:\n" +
    "        open(" + JSON.stringify(file) + ", 'a').write('\\ndef solution(*a, **k):\\n    return \"PWNED\"\\n')\n" +
    "    except OSError:\n" +
    "        pass\n" +
    "    return sum(values[1:4])\n";

// The forged argument check of the review: walk up to the harness's frame, take its calls and its
// result descriptor, change the argument and write the harness's frames itself.
const FORGE_ARGUMENT_CHECK =
    "import sys, os, gc, marshal, struct, copy\n" +
    "def sum_range(values):\n" +
    "    total = sum(values[1:4])\n" +
    "    original = copy.deepcopy(values)\n" +
    "    values.reverse()\n" +
    "    found = None\n" +
    "    f = sys._getframe()\n" +
    "    while f is not None:\n" +
    "        if 'calls' in f.f_locals and 'fd' in f.f_locals:\n" +
    "            found = f.f_locals\n" +
    "        f = f.f_back\n" +
    "    if found is None:\n" +
    "        for o in gc.get_objects():\n" +
    "            pass\n" +
    "    fds = [found['fd']] if found else list(range(3, 64))\n" +
    "    for fd in fds:\n" +
    "        for i in range(64):\n" +
    "            data = marshal.dumps(('r', i, total, (original,)))\n" +
    "            try:\n" +
    "                os.write(fd, struct.pack('>I', len(data) + 16) + bytes(16) + data)\n" +
    "            except OSError:\n" +
    "                break\n" +
    "    return total\n";

// Signals to eddy's own Node process by every call that can send one (pid, thread ids, queued).
const SIGNAL_EDDY =
    "import ctypes, os\n" +
    "libc = ctypes.CDLL(None, use_errno=True)\n" +
    "def sum_range(values):\n" +
    "    pid = __NODE_PID__\n" +
    "    try:\n" +
    "        tids = [int(t) for t in os.listdir('/proc/%d/task' % pid)]\n" +
    "    except OSError:\n" +
    "        tids = [pid]\n" +
    "    info = (ctypes.c_int * 32)(9, 0, -1)\n" +
    "    for tid in tids:\n" +
    "        libc.syscall(200, tid, 9)\n" +
    "        libc.syscall(234, pid, tid, 9)\n" +
    "        libc.syscall(297, pid, tid, 9, info)\n" +
    "    libc.syscall(129, pid, 9, info)\n" +
    "    try:\n" +
    "        os.kill(pid, 9)\n" +
    "    except OSError:\n" +
    "        pass\n" +
    "    return sum(values[1:4])\n";

describe.skipIf(!canRun)("as an ordinary user who owns the checkout", () => {
    beforeAll(() => {
        copy = mkdtempSync(path.join(tmpdir(), "eddy-user-copy-"));
        chmodSync(copy, 0o755);
        cpSync(path.join(root, "dist"), path.join(copy, "dist"), { recursive: true });
        cpSync(path.join(root, "src/judge/python"), path.join(copy, "src/judge/python"), { recursive: true });
        cpSync(path.join(root, "src/languages"), path.join(copy, "src/languages"), { recursive: true });
        cpSync(path.join(root, "package.json"), path.join(copy, "package.json"));
        cpSync(path.join(here, "fixtures/oracles"), path.join(copy, "oracles"), { recursive: true });
        cpSync(path.join(here, "fixtures/judge-driver.mjs"), path.join(copy, "judge-driver.mjs"));
        symlinkSync(path.join(root, "node_modules"), path.join(copy, "node_modules"));
        execFileSync("chown", ["-R", "-h", "nobody:nogroup", copy]);
    });
    afterAll(() => {
        if (copy) rmSync(copy, { recursive: true, force: true });
    });

    const attacks = (): Case[] => [
        { name: "unmount-load", code: unmountAndLoad(oracleOf("sum_range")()) },
        { name: "append-oracle", code: appendTo(oracleOf("evens")()) },
        { name: "append-worker", code: appendTo(workerPy()) },
        { name: "pwned", code: "def sum_range(values):\n    return 'PWNED'\n", template: "other" },
        { name: "forge", code: FORGE_ARGUMENT_CHECK, template: "keep" },
        { name: "signal-eddy", code: SIGNAL_EDDY },
        { name: "correct", code: CORRECT },
        // Issue #30: answer code run while the harness records, to put back a changed argument.
        ...RECORDING_ATTACKS.map(([name, code]): Case => ({ name: "record: " + name, code, template: "slice" })),
        { name: "joined threads", code: JOINED_THREADS }
    ];
    const recordingHeld = (by: Record<string, Verdict>) => {
        for (const [name] of RECORDING_ATTACKS) {
            const v = by["record: " + name]!;
            expect(v.category, `${name}: ${v.detail}`).not.toBe("passed");
            if (name.includes("background thread")) expect(v.detail).toMatch(/left a thread running/);
            else expect(v.detail, name).toMatch(/modified its argument|expected/);
        }
        expect(by["joined threads"]!.category, by["joined threads"]!.detail).toBe("passed");
    };
    const untouched = () => {
        for (const f of [oracleOf("evens")(), oracleOf("sum_range")(), workerPy()]) expect(readFileSync(f, "utf8"), f).not.toContain("PWNED");
    };

    for (const guard of ["on", "off"] as const)
        it(`bubblewrap, guard ${guard}: nothing escapes, nothing is rewritten, nothing forged`, () => {
            const { isolation, verdicts } = judgeAsNobody(attacks(), guard === "off" ? { EDDY_JUDGE_GUARD: "0" } : {});
            expect(isolation.mode).toBe("bwrap");
            expect(isolation.sandboxed).toBe(true);
            expect(isolation.mechanism).toMatch(/bubblewrap \d/);
            const by = Object.fromEntries(attacks().map((c, i) => [c.name, verdicts[i]!]));
            // Never the oracle's answer: with the guard, ctypes is refused; without it, nothing is mounted to lift.
            expect(["assertion_error", "runtime_error"], by["unmount-load"]!.detail).toContain(by["unmount-load"]!.category);
            expect(by["append-oracle"]!.category, by["append-oracle"]!.detail).toBe("passed");
            expect(by["append-worker"]!.category, by["append-worker"]!.detail).toBe("passed");
            expect(by.pwned!.category).not.toBe("passed");
            expect(by.forge!.category, by.forge!.detail).not.toBe("passed");
            if (guard === "on") expect(by.forge!.detail).toMatch(/^tampering: /);
            expect(["passed", "runtime_error"]).toContain(by["signal-eddy"]!.category);
            expect(by.correct!.category, by.correct!.detail).toBe("passed");
            recordingHeld(by);
            untouched();
        });

    for (const mode of ["bubblewrap", "without a sandbox"] as const)
        it(`time accounting (${mode}): with 4 busy processes per core, correct CPU-bound answers pass (issue #30)`, () => {
            const spin = "const p = process.ppid, end = Date.now() + 600000; for (let i = 0; ; i++) if ((i & 0xfffff) === 0 && (process.ppid !== p || Date.now() > end)) process.exit(0);";
            const busy: ChildProcess[] = Array.from({ length: 4 * availableParallelism() }, () => spawn(process.execPath, ["-e", spin], { stdio: "ignore" }));
            try {
                const cases = CPU_BOUND_CORRECT.map(([name, code]) => ({ name, code }));
                const env: Record<string, string> = { EDDY_JUDGE_CPU_FACTOR: "1", ...(mode === "without a sandbox" ? { EDDY_JUDGE_NO_NAMESPACES: "1" } : {}) };
                const { isolation, verdicts } = judgeAsNobody(cases, env);
                expect(isolation.sandboxed).toBe(mode === "bubblewrap");
                expect(busy.filter((c) => c.exitCode === null && c.signalCode === null)).toHaveLength(busy.length);
                const shown = verdicts.map((v, i) => `${cases[i]!.name}: ${v.category} ${v.detail}`);
                expect(shown.filter((line) => !line.includes(": passed ")), shown.join("\n")).toEqual([]);
            } finally {
                for (const c of busy) c.kill("SIGKILL");
            }
        });

    for (const mode of ["bubblewrap", "without a sandbox"] as const)
        it.skipIf(NO_NUMPY !== undefined)(`answers that import numpy (${mode}): the system Python's own numpy, read-only, right and wrong as they are${NO_NUMPY ? ` (skipped: ${NO_NUMPY})` : ""}`, () => {
            const cases: Case[] = [...Object.entries(NUMPY_ANSWERS.right).map(([name, code]) => ({ name, code })), { name: "wrong", code: NUMPY_ANSWERS.wrong }, { name: "version", code: NUMPY_ANSWERS.version }];
            const { isolation, environment, verdicts } = judgeAsNobody(cases, mode === "without a sandbox" ? { EDDY_JUDGE_NO_NAMESPACES: "1" } : {});
            expect(isolation.sandboxed).toBe(mode === "bubblewrap");
            expect(environment.packages.numpy).toMatch(/^\d+\.\d+/);
            const by = Object.fromEntries(cases.map((c, i) => [c.name, verdicts[i]!]));
            for (const name of Object.keys(NUMPY_ANSWERS.right)) expect(by[name]!.category, `${name}: ${by[name]!.detail}`).toBe("passed");
            expect(by.wrong!.category, by.wrong!.detail).toBe("assertion_error");
            expect(by.version!.detail).toContain(`got '${environment.packages.numpy}'`);
        });

    it("without a sandbox (only when allowed): eddy's process survives every signal, and the report says what is not protected", () => {
        const cases = attacks().filter((c) => ["signal-eddy", "forge", "correct", "joined threads"].includes(c.name) || c.name.startsWith("record: "));
        const { isolation, verdicts } = judgeAsNobody(cases, { EDDY_JUDGE_NO_NAMESPACES: "1", EDDY_JUDGE_GUARD: "0" });
        const by = Object.fromEntries(cases.map((c, i) => [c.name, verdicts[i]!]));
        expect(isolation.sandboxed).toBe(false);
        expect(isolation.notes.join(" ")).toMatch(/WITHOUT a sandbox/);
        expect(isolation.notes.join(" ")).toMatch(/does not hide eddy's \/proc entries/);
        // The driver finished and answered: the signals never reached it.
        expect(verdicts).toHaveLength(cases.length);
        recordingHeld(by);
        expect(by["signal-eddy"]!.category, by["signal-eddy"]!.detail).toBe("passed");
        expect(by.forge!.category, by.forge!.detail).not.toBe("passed");
        expect(by.correct!.category).toBe("passed");
    });
});
