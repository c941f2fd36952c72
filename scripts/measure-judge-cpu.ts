/**
 * CPU and minor page faults per verdict, by process (`npx tsx scripts/measure-judge-cpu.ts [N]`):
 * one worker judges N answers whose calls do nothing and N correct answers (fresh code texts),
 * one at a time; /proc gives each process's CPU ticks and minor faults before and after: Node,
 * the worker, the zygote, and each of the worker's two long-lived keepers (the zygote's children)
 * with its reaped children (every candidate it made). `total` is all of them together, per
 * verdict. Less sensitive to a loaded machine than wall times: what a process itself costs does
 * not depend on how long it waits for a CPU.
 */
import { readFileSync, readdirSync } from "node:fs";
import { loadavg } from "node:os";
import { JudgePool } from "../src/judge/JudgePool.js";
import { loadTemplate } from "../src/templates/loadTemplates.js";
import { builtInLibrary } from "../src/templates/library.js";
import { sampleInstances } from "../src/templates/instances.js";

interface Stat { pid: number; ppid: number; comm: string; cmd: string; minflt: number; cminflt: number; utime: number; stime: number; cutime: number; cstime: number }

function stat(pid: number): Stat | undefined {
    try {
        const s = readFileSync(`/proc/${pid}/stat`, "utf8");
        const comm = s.slice(s.indexOf("(") + 1, s.lastIndexOf(")"));
        const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
        // f[0] is field 3 (state)
        const n = (i: number): number => Number(f[i - 3]);
        let cmd = "";
        try {
            cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        } catch {
            // gone meanwhile
        }
        return { pid, ppid: n(4), comm, cmd, minflt: n(10), cminflt: n(11), utime: n(14), stime: n(15), cutime: n(16), cstime: n(17) };
    } catch {
        return undefined;
    }
}

function tree(root: number): Stat[] {
    const all = readdirSync("/proc").filter((p) => /^\d+$/.test(p)).map((p) => stat(Number(p))).filter((s): s is Stat => s !== undefined);
    const out: Stat[] = [];
    const todo = [root];
    while (todo.length) {
        const p = todo.pop()!;
        for (const s of all) if (s.ppid === p) { out.push(s); todo.push(s.pid); }
    }
    return out;
}

const N = Number(process.argv[2] ?? 200);
const TICK_MS = 10;
const pool = await JudgePool.start({ workers: 1 });
try {
    const t = { ...loadTemplate(builtInLibrary(), "list_every_kth"), randomInputs: 50 };
    const inst = sampleInstances(t, 1, 1)[0]!;
    const correct = await pool.answerSource(t, inst.bindings, "solution");
    const args = Array.from({ length: t.arity }, (_, i) => `a${i}`).join(", ");
    const kinds: Record<string, (i: number) => string> = {
        noop: (i) => `def ${t.function}(${args}):\n    return None\n# m ${i}\n`,
        correct: (i) => `${correct}\n# m ${i}\n`
    };
    const out: Record<string, unknown> = { n: N, load_average_start: loadavg().map((x) => Math.round(x * 10) / 10) };
    for (const [kind, code] of Object.entries(kinds)) {
        for (let i = -3; i < 0; i++) await pool.judge({ template: t, bindings: inst.bindings, code: code(i - 1000) });
        const self0 = stat(process.pid)!;
        const a = tree(process.pid);
        const lives: Record<string, { cpu: number; minflt: number }> = {};
        for (let i = 0; i < N; i++) {
            const r = await pool.profile({ template: t, bindings: inst.bindings, code: code(i) });
            for (const [name, p] of Object.entries(r.phases)) {
                if (p.minflt === undefined) continue;
                const l = (lives[name] ??= { cpu: 0, minflt: 0 });
                l.cpu += p.cpu_ms ?? 0;
                l.minflt += p.minflt;
            }
        }
        const self1 = stat(process.pid)!;
        const b = new Map(tree(process.pid).map((s) => [s.pid, s]));
        const per = (x: number): number => Math.round((x / N) * 1000) / 1000;
        const nodeCpu = (self1.utime + self1.stime - self0.utime - self0.stime) * TICK_MS;
        const rows: Record<string, unknown> = { node: { cpu_ms: per(nodeCpu), minflt: per(self1.minflt - self0.minflt) } };
        let total = nodeCpu;
        // Roles from the tree: the zygote runs its boot code (bubblewrap's command line holds it
        // too, after bwrap's own name); its children are the worker's keepers.
        const boots = (x: Stat | undefined): boolean => x !== undefined && x.cmd.includes("eddy_sandbox.zygote") && !/bwrap$/.test(x.cmd.split("\0")[0]!);
        const byPid = new Map(a.map((x) => [x.pid, x]));
        const zygotes = new Set(a.filter((x) => boots(x) && !boots(byPid.get(x.ppid))).map((x) => x.pid));
        const role = (x: Stat): string => (zygotes.has(x.pid) ? "zygote" : zygotes.has(x.ppid) ? "keeper" : x.cmd.includes("eddy_judge") ? "worker" : x.comm);
        for (const s0 of a) {
            const s1 = b.get(s0.pid);
            if (!s1 || s0.comm === "esbuild" || s0.comm === "bwrap") continue;
            total += (s1.utime + s1.stime - s0.utime - s0.stime + s1.cutime + s1.cstime - s0.cutime - s0.cstime) * TICK_MS;
            const name = `${role(s0)}#${s0.pid}`;
            rows[name] = {
                cpu_ms: per((s1.utime + s1.stime - s0.utime - s0.stime) * TICK_MS),
                minflt: per(s1.minflt - s0.minflt),
                children_cpu_ms: per((s1.cutime + s1.cstime - s0.cutime - s0.cstime) * TICK_MS),
                children_minflt: per(s1.cminflt - s0.cminflt)
            };
        }
        for (const [name, l] of Object.entries(lives)) rows[name] = { cpu_ms: per(l.cpu), minflt: per(l.minflt) };
        rows.total = { cpu_ms: per(total) };
        out[kind] = rows;
    }
    out.load_average_end = loadavg().map((x) => Math.round(x * 10) / 10);
    console.log(JSON.stringify(out));
} finally {
    await pool.close();
}
