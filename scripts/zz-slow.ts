import { JudgePool } from "../src/judge/JudgePool.js";
import { loadTemplate } from "../src/templates/loadTemplates.js";
import { builtInLibrary } from "../src/templates/library.js";
import { sampleInstances } from "../src/templates/instances.js";
const pool = await JudgePool.start({ workers: 2 });
const t = { ...loadTemplate(builtInLibrary(), "list_every_kth"), randomInputs: 50 };
const inst = sampleInstances(t, 1, 1)[0]!;
const correct = await pool.answerSource(t, inst.bindings, "solution");
for (let i = 0; i < 4; i++) {
  const slow = correct.replace(/\ndef (\w+)\(([^)]*)\):\n/, (_m: string, fn: string, a: string) => `\ndef ${fn}(${a}):\n    import time\n    _t = time.process_time()\n    while time.process_time() - _t < 0.002:\n        pass\n`) + `\n# ${i}\n`;
  const one = await pool.judge({ template: t, bindings: inst.bindings, code: slow });
  const two = await Promise.all([0, 1].map((k) => pool.judge({ template: { ...t, oracleHash: t.oracleHash + `|${i}|${k}` }, bindings: inst.bindings, code: slow + `# ${k}\n` })));
  console.log("alone", Math.round(one.ms), Math.round(one.cpuMs), one.category, " two at once", two.map((v) => `${Math.round(v.ms)}/${Math.round(v.cpuMs)}`).join(" "));
}
await pool.close();
