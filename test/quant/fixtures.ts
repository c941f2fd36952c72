import type { Category } from "../../src/vocabulary.js";
import type { Outcome } from "../../src/vocabulary.js";

const CODE: Record<string, Category> = { P: "passed", A: "assertion_error", F: "fuzzing_failure", R: "runtime_error", T: "truncated", J: "judge_error", N: "no_function" };

/** Outcomes of one model from a compact table: template → instance → one letter per round (P passed, A assertion, F fuzzing, R runtime, T truncated, J judge error, N no function). */
export function outcomes(model: string, table: Record<string, string[]>): Outcome[] {
    const out: Outcome[] = [];
    for (const [template, instances] of Object.entries(table))
        instances.forEach((rounds, instance) =>
            [...rounds].forEach((letter, round) =>
                out.push({
                    runId: "r1", config: `${model} t=0 default`, model, quantization: model, temperature: 0, wrapper: "default",
                    template, group: "list", subgroups: [], instance, params: [instance], round, seed: round,
                    category: CODE[letter]!, detail: letter === "P" ? "" : `failed ${letter}`, code: `def f(): return ${instance}`, response: ""
                })
            )
        );
    return out;
}
