import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { JudgePool } from "../../judge/JudgePool.js";
import type { PeerEvidence } from "../../store/publishedVerdicts.js";
import type { Template } from "../../templates/types.js";
import { HARNESS_CATEGORIES, type Category } from "../../vocabulary.js";
import { oneLine } from "../../util/errors.js";
import type { EvalPlusRules } from "./evalplusVersions.js";
import { runProbes, type ProbeInput, type ProbeSpec } from "./probe.js";
import type { EvalPlusStatus } from "./samples.js";

/**
 * What EvalPlus's sandbox (evalplus/eval/utils.py reliability_guard) takes away that eddy's does not:
 * an answer that uses one of these passes in eddy and fails there. Module names it sets to None in
 * sys.modules, and functions it sets to None.
 */
const GUARDED: { name: string; re: RegExp }[] = [
    ...["ipdb", "joblib", "resource", "psutil", "tkinter"].map((m) => ({ name: `import ${m}`, re: new RegExp(`^\\s*(?:import|from)\\s+${m}\\b`, "m") })),
    ...["os.getcwd", "os.chdir", "os.system", "os.kill", "os.putenv", "os.remove", "os.unlink", "os.rename", "os.fork", "shutil.rmtree", "shutil.move", "subprocess.Popen", "subprocess.run", "subprocess.check_output"].map((f) => ({
        name: f,
        re: new RegExp(`\\b${f.replace(".", "\\.")}\\s*\\(`)
    }))
];

/** The names an answer uses that EvalPlus's reliability_guard disables. */
export function guardedNames(code: string): string[] {
    return GUARDED.filter((g) => g.re.test(code)).map((g) => g.name);
}

/** One sample where eddy's verdict and EvalPlus's differ. */
export interface Disagreeing {
    template: Template;
    taskId: string;
    round: number;
    code: string;
    status: EvalPlusStatus;
    eddy: Category;
    eddyDetail: string;
    /** How many base inputs the problem has (eddy's fixed tests are base then plus). */
    baseInputs: number;
}

const HARNESS = new Set<string>(HARNESS_CATEGORIES);
/** The largest input (as EvalPlus's results write it) a probe looks up among the imported problem's: it travels in the probe's oracle. */
const MAX_REPORTED_CHARS = 8_000_000;

/** eddy's failing fixed test (1-based), as the judge's detail names it. */
export function eddyFailingTest(detail: string): number | undefined {
    const m = /(?:^|\bon )fixed test (\d+)\b/.exec(detail);
    return m ? Number(m[1]) : undefined;
}

/**
 * The input that decided a disagreement, as far as the files say: for a sample EvalPlus failed, the
 * input its results name in the failing group (read by that version's rule: which input a timeout
 * names moved in ffe7896); for one eddy failed, eddy's failing fixed test.
 */
export function decisiveInput(d: Disagreeing, rules: EvalPlusRules, dataset: "humaneval" | "mbpp"): { evidence: PeerEvidence; input: ProbeInput | null } {
    const guarded = guardedNames(d.code);
    const base = { dataset, entryPoint: d.template.function, ...(guarded.length ? { guarded } : {}) };
    if (d.eddy === "passed") {
        const failedBase = d.status.base !== "pass";
        const group = failedBase ? "base" : "plus";
        const status = failedBase ? d.status.base : (d.status.plus ?? "not run");
        const raw = (failedBase ? d.status.baseFailRaw : d.status.plusFailRaw) ?? [];
        const reported = raw[0] ?? null;
        const evidence: PeerEvidence = { side: "published", group, status, reported: reported === null ? null : reported.slice(0, 200), ...base };
        if (reported !== null && reported.length > MAX_REPORTED_CHARS)
            return { evidence: { ...evidence, note: `the input EvalPlus names takes ${Math.round(reported.length / 1e6)} MB of JSON: not looked up` }, input: null };
        if (reported !== null) return { evidence, input: { group, reported, ...(status === "timeout" && rules.failTests === "new" ? { after: true } : {}) } };
        // No input named: EvalPlus stopped at the first input (a timeout; or, before ffe7896, a failure
        // there), or the sample failed before any input (while its code loaded).
        if (status === "timeout" || rules.failTests === "old") return { evidence, input: { group, index: 0 } };
        return { evidence: { ...evidence, note: "EvalPlus names no failing input: the sample failed before its first input (while its code loaded) or its inputs were not recorded" }, input: null };
    }
    const n = eddyFailingTest(d.eddyDetail);
    const evidence: PeerEvidence = { side: "eddy", group: null, status: null, reported: null, ...base };
    if (n === undefined) return { evidence: { ...evidence, note: "eddy's verdict names no fixed test" }, input: null };
    const group = n <= d.baseInputs ? "base" : "plus";
    const index = group === "base" ? n - 1 : n - 1 - d.baseInputs;
    return { evidence: { ...evidence, group, status: group === "base" ? d.status.base : d.status.plus }, input: { group, index } };
}

/**
 * Probes every disagreement in eddy's sandbox (the answer and the canonical solution on the input
 * that decided) and returns what was found, per sample in order; eddy's harness outcomes are not
 * disagreements and get none.
 */
export async function gatherEvidence(
    items: Disagreeing[],
    rules: EvalPlusRules,
    opts: { dataset: "humaneval" | "mbpp"; workers?: number; onLog?: (line: string) => void }
): Promise<(PeerEvidence | null)[]> {
    const plan = items.map((d) => (HARNESS.has(d.eddy) ? null : decisiveInput(d, rules, opts.dataset)));
    const probed = plan.flatMap((p, i) => (p?.input ? [{ i, spec: { template: items[i]!.template, taskId: items[i]!.taskId, dataset: opts.dataset, input: p.input } as ProbeSpec, code: items[i]!.code }] : []));
    const out: (PeerEvidence | null)[] = plan.map((p) => p?.evidence ?? null);
    if (probed.length === 0) return out;
    const log = opts.onLog ?? (() => {});
    const dir = mkdtempSync(path.join(tmpdir(), "eddy-probe-"));
    let pool: JudgePool | undefined;
    try {
        pool = await JudgePool.start({ workers: Math.min(opts.workers ?? availableParallelism(), probed.length) });
        const factor = pool.isolation.cpuFactor ?? 1;
        let done = 0;
        let logged = Date.now();
        log(`evidence: probing ${probed.length} disagreement(s) with EvalPlus in the sandbox (the answer and the canonical solution on the input that decided)`);
        const results = await runProbes(pool, dir, probed, () => {
            done++;
            if (done === probed.length || Date.now() - logged > 5_000) {
                logged = Date.now();
                log(`evidence: ${done}/${probed.length} disagreement(s) probed`);
            }
        });
        results.forEach((r, k) => {
            const i = probed[k]!.i;
            out[i] = { ...out[i]!, answer: r.answer, canonical: r.canonical, cpuFactor: factor };
        });
    } catch (err) {
        // The verdicts stand without it: each disagreement says why it has no evidence.
        const why = `the probes could not run: ${oneLine(err)}`;
        log(`warning: ${why}`);
        for (const { i } of probed) out[i] = { ...out[i]!, note: why };
    } finally {
        await pool?.close();
        rmSync(dir, { recursive: true, force: true });
    }
    return out;
}
