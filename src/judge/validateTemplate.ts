import type { Instance, Template } from "../templates/types.js";
import type { Category, ParamValue } from "../vocabulary.js";
import type { JudgePool } from "./JudgePool.js";
import type { Verdict } from "./types.js";

/** How one mutant fared: killed on the first instance where it did not pass. */
export interface MutantResult {
    name: string;
    killed: boolean;
    /** Instance index that killed it. */
    killedOn?: number;
    /** The verdict category that killed it. */
    category?: Category;
}

/** Oracle validation of one template (SPEC §2): the solution passes everywhere, the mutants are rejected. */
export interface TemplateValidation {
    template: Template;
    instances: Instance[];
    /** Instances where the model solution did not pass its own oracle. */
    solutionFailures: { index: number; params: ParamValue[]; verdict: Verdict }[];
    mutants: MutantResult[];
    /** Killed mutants ÷ mutants (0 when the oracle has none). */
    killRate: number;
}

// Instances judged at once per mutant: enough to keep every worker busy, few enough that a
// mutant killed early does not waste much work.
const CHUNK = 8;

/** Runs the model solution on every instance and each mutant until some instance rejects it. */
export async function validateTemplate(pool: JudgePool, t: Template, instances: Instance[]): Promise<TemplateValidation> {
    const judgeAs = async (inst: Instance, which: string): Promise<Verdict> =>
        pool.judge({ template: t, bindings: inst.bindings, code: await pool.answerSource(t, inst.bindings, which) });

    const solutionVerdicts = await Promise.all(instances.map((inst) => judgeAs(inst, "solution")));
    const solutionFailures = solutionVerdicts
        .map((verdict, k) => ({ index: instances[k]!.index, params: instances[k]!.params, verdict }))
        .filter((f) => f.verdict.category !== "passed");

    const mutants: MutantResult[] = [];
    for (const name of await pool.mutants(t)) {
        let result: MutantResult = { name, killed: false };
        for (let start = 0; start < instances.length && !result.killed; start += CHUNK) {
            const chunk = instances.slice(start, start + CHUNK);
            const verdicts = await Promise.all(chunk.map((inst) => judgeAs(inst, name)));
            // A harness failure proves nothing about the mutant: only a model-category failure kills it.
            const k = verdicts.findIndex((v) => v.category !== "passed" && v.category !== "judge_error");
            if (k >= 0) result = { name, killed: true, killedOn: chunk[k]!.index, category: verdicts[k]!.category };
        }
        mutants.push(result);
    }
    const killed = mutants.filter((m) => m.killed).length;
    return { template: t, instances, solutionFailures, mutants, killRate: mutants.length > 0 ? killed / mutants.length : 0 };
}
