// Only the concurrent pass of bench-judge (same jobs), for profiling.
import { JudgePool } from "../src/judge/JudgePool.js";
import { loadTemplate } from "../src/templates/loadTemplates.js";
import { builtInLibrary } from "../src/templates/library.js";
import { sampleInstances } from "../src/templates/instances.js";
const ids = ["list_every_kth", "string_substring_inclusive", "math_count_multiples", "search_find_in_window", "set_union_first_n", "copy_last_n"];
const pool = await JudgePool.start({ workers: 2 });
const jobs: any[] = [];
for (const id of ids) {
  const t = { ...loadTemplate(builtInLibrary(), id), randomInputs: 50 };
  const mutant = (await pool.mutants(t))[0];
  const args = Array.from({ length: t.arity }, (_, i) => `a${i}`).join(", ");
  for (const inst of sampleInstances(t, 4, 1)) {
    const correct = await pool.answerSource(t, inst.bindings, "solution");
    jobs.push({ t, inst, kind: "correct", code: correct });
    if (mutant) jobs.push({ t, inst, kind: "wrong", code: await pool.answerSource(t, inst.bindings, mutant) });
    jobs.push({ t, inst, kind: "crashing", code: `def ${t.function}(${args}):\n    raise RuntimeError("boom")\n` });
    jobs.push({ t, inst, kind: "slow", code: correct.replace(/\ndef (\w+)\(([^)]*)\):\n/, (_m: string, fn: string, a: string) => `\ndef ${fn}(${a}):\n    import time\n    _t = time.process_time()\n    while time.process_time() - _t < 0.002:\n        pass\n`) });
  }
}
const tag = process.argv[2] ?? "x";
console.error("READY"); await new Promise((r) => setTimeout(r, 2500));
const t0 = performance.now();
const v = await Promise.all(jobs.map((j) => pool.judge({ template: { ...j.t, oracleHash: j.t.oracleHash + tag }, bindings: j.inst.bindings, code: j.code })));
console.error("END", performance.now() - t0, "cpuMs slow:", v.filter((_, k) => jobs[k].kind === "slow").map((x) => Math.round(x.cpuMs)).slice(0, 6).join(","));
await pool.close();
