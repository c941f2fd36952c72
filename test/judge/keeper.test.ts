import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JudgePool } from "../../src/judge/JudgePool.js";
import { fixtureTemplate } from "./fixtures/templates.js";
import { startWithoutGuard } from "../support/guardOff.js";

// Each worker's keepers are long-lived (issue #36): the zygote forks two per worker, each enters
// its user namespace once and then clones one candidate after another into new PID, mount and IPC
// namespaces. These tests look at the keepers from outside (/proc) and at what one answer could
// leave for the next answers of the same keepers.
const t = fixtureTemplate("sum_range", { budget: { timeMs: 1000, memoryMb: 64 }, randomInputs: 5 });
const bindings = { lo: 1, hi: 3 };
const RIGHT = "sum(values[1:4])";
let n = 0;
const fresh = (code: string): string => `${code}# ${process.pid} ${Date.now()} ${n++}\n`;

interface Proc { pid: number; ppid: number; cmd: string }

function processes(): Proc[] {
    const out: Proc[] = [];
    for (const name of readdirSync("/proc")) {
        if (!/^\d+$/.test(name)) continue;
        try {
            const stat = readFileSync(`/proc/${name}/stat`, "utf8");
            const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
            out.push({ pid: Number(name), ppid, cmd: readFileSync(`/proc/${name}/cmdline`, "utf8") });
        } catch {
            // gone meanwhile
        }
    }
    return out;
}

/** The keepers of this process's pools: children of a zygote (the process that runs the zygote's
 * boot code and whose parent does not), among this process's descendants. */
function keepers(): number[] {
    const all = processes();
    const mine = new Set([process.pid]);
    for (let grew = true; grew; ) {
        grew = false;
        for (const p of all) if (!mine.has(p.pid) && mine.has(p.ppid)) { mine.add(p.pid); grew = true; }
    }
    // (bubblewrap's own command line holds the zygote's: its first word tells them apart)
    const zygoteCode = (p: Proc | undefined): boolean => p !== undefined && p.cmd.includes("eddy_sandbox.zygote") && !/bwrap$/.test(p.cmd.split("\0")[0]!);
    const byPid = new Map(all.map((p) => [p.pid, p]));
    const zygotes = all.filter((p) => mine.has(p.pid) && zygoteCode(p) && !zygoteCode(byPid.get(p.ppid)));
    return all.filter((p) => zygotes.some((z) => z.pid === p.ppid)).map((p) => p.pid).sort((a, b) => a - b);
}

async function killAndWait(pids: number[]): Promise<void> {
    for (const pid of pids) process.kill(pid, "SIGKILL");
    for (let i = 0; i < 200 && pids.some((p) => keepers().includes(p)); i++) await new Promise((r) => setTimeout(r, 10));
}

for (const mode of ["bubblewrap", "without a sandbox"] as const) {
    describe(`a worker's keepers (${mode})`, () => {
        let pool: JudgePool;
        beforeAll(async () => {
            const saved = process.env.EDDY_JUDGE_NO_NAMESPACES;
            if (mode === "without a sandbox") process.env.EDDY_JUDGE_NO_NAMESPACES = "1";
            try {
                pool = await JudgePool.start({ workers: 1, allowUnsandboxed: mode === "without a sandbox" });
            } finally {
                if (saved === undefined) delete process.env.EDDY_JUDGE_NO_NAMESPACES;
                else process.env.EDDY_JUDGE_NO_NAMESPACES = saved;
            }
        });
        afterAll(async () => {
            await pool?.close();
        });
        const judge = (code: string) => pool.judge({ template: t, bindings, code: fresh(code) });

        it("live on across answers: two per worker, the same two after six answers, each answer a process of its own", async () => {
            // In bubblewrap's world each answer is PID 1 of its own PID namespace.
            const pid1 = mode === "bubblewrap" ? "os.getpid() == 1" : "os.getpid() != 1";
            const code = `import os\ndef sum_range(values):\n    return ${RIGHT} if ${pid1} else ['pid', os.getpid()]\n`;
            expect((await judge(code)).category).toBe("passed");
            const before = keepers();
            expect(before).toHaveLength(2);
            for (let i = 0; i < 6; i++) {
                const v = await judge(code);
                expect(v.category, v.detail).toBe("passed");
            }
            expect(keepers()).toEqual(before);
        });

        it("a killed keeper is replaced, and the next verdicts are right (both killed, then one of them)", async () => {
            const code = `def sum_range(values):\n    return ${RIGHT}\n`;
            expect((await judge(code)).category).toBe("passed");
            const first = keepers();
            expect(first).toHaveLength(2);
            await killAndWait(first);
            for (let i = 0; i < 3; i++) {
                const v = await judge(code);
                expect(v.category, v.detail).toBe("passed");
            }
            const second = keepers();
            expect(second).toHaveLength(2);
            expect(second.filter((p) => first.includes(p))).toEqual([]);
            await killAndWait([second[0]!]);
            for (let i = 0; i < 3; i++) {
                const v = await judge(code);
                expect(v.category, v.detail).toBe("passed");
            }
            expect(keepers()).toHaveLength(2);
            expect(keepers()).toContain(second[1]);
        });
    });
}

// What one answer leaves where the kernel would keep it (SysV objects, processes in the keeper's
// user namespace, which RLIMIT_NPROC counts, files) must not reach the next answers of the same
// keepers: the two after it cover both of the worker's keepers. The guard is off so that the
// answer can call libc's SysV functions itself (ctypes); the kernel's layers are what is tested.
describe("what an answer leaves behind, seen by the next answers of the same keepers (bubblewrap, guard off)", () => {
    let pool: JudgePool;
    beforeAll(async () => {
        pool = await startWithoutGuard();
    });
    afterAll(async () => {
        await pool?.close();
    });
    const key = 0x5e000 + (process.pid % 4096);
    const files = JSON.stringify(["/tmp/left-behind", "/dev/shm/left-behind", "left-behind"]);
    const LIBC = "import ctypes, os, time\nlibc = ctypes.CDLL(None, use_errno=True)\n";
    // Ten processes that sleep on, each in a session of its own (an answer cannot ignore
    // signals: rt_sigaction is refused), SysV objects of each kind, and files.
    // At load (once, not per call).
    const leaves =
        LIBC +
        `made = [libc.shmget(${key}, 4096, 0o1600) >= 0, libc.semget(${key}, 1, 0o1600) >= 0, libc.msgget(${key}, 0o1600) >= 0]\n` +
        `for _ in range(10):\n` +
        `    if os.fork() == 0:\n` +
        `        os.setsid()\n` +
        `        time.sleep(600)\n` +
        `        os._exit(0)\n` +
        `for p in ${files}:\n` +
        `    open(p, 'w').write('left')\n` +
        `def sum_range(values):\n` +
        `    return ${RIGHT} if all(made) else ['not made', made]\n`;
    // Finds none of it, and may start 22 processes of its own at once: with ten left over in the
    // keeper's user namespace (which counts the keeper too), RLIMIT_NPROC (32) would refuse some.
    // Few and brief: as an ordinary user they count against that user's processes, which a
    // concurrent test without a sandbox shares (README, "What is protected").
    const looks =
        LIBC +
        `seen = [libc.shmget(${key}, 0, 0o600) >= 0, libc.semget(${key}, 0, 0o600) >= 0, libc.msgget(${key}, 0o600) >= 0]\n` +
        `seen += [p for p in ${files} if os.path.exists(p)]\n` +
        `kids, refused = [], 0\n` +
        `for _ in range(22):\n` +
        `    try:\n` +
        `        pid = os.fork()\n` +
        `    except OSError:\n` +
        `        refused += 1\n` +
        `        continue\n` +
        `    if pid == 0:\n` +
        `        time.sleep(0.05)\n` +
        `        os._exit(0)\n` +
        `    kids.append(pid)\n` +
        `for pid in kids:\n` +
        `    os.waitpid(pid, 0)\n` +
        `def sum_range(values):\n` +
        `    return ${RIGHT} if not any(seen) and refused == 0 else ['seen', seen, 'refused', refused]\n`;

    it("SysV objects, sleeping processes and files: none of it, and a whole process allowance", async () => {
        if (!pool.isolation.sandboxed) return; // without namespaces the keeper removes SysV objects and kills by uid (README)
        const left = await pool.judge({ template: t, bindings, code: fresh(leaves) });
        expect(left.category, left.detail).toBe("passed");
        for (let i = 0; i < 2; i++) {
            const v = await pool.judge({ template: t, bindings, code: fresh(looks) });
            expect(v.detail).not.toContain("seen");
            expect(v.category, v.detail).toBe("passed");
        }
    });
});
