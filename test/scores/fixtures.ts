import type { Category } from "../../src/vocabulary.js";
import type { ParamValue } from "../../src/vocabulary.js";
import type { Outcome } from "../../src/vocabulary.js";

/** Cell of a results matrix: 1 = passed, 0 = assertion_error, or an explicit category. */
export type Cell = 0 | 1 | Category;

/** Options describing the configuration and template of {@link neighbourhood}. */
export interface NbOptions {
    config?: string;
    model?: string;
    temperature?: number;
    template?: string;
    group?: string;
    subgroups?: string[];
    params?: (i: number) => ParamValue[];
    runId?: string;
}

/** Outcomes of one neighbourhood from a matrix rows = instances, columns = rounds. */
export function neighbourhood(matrix: Cell[][], o: NbOptions = {}): Outcome[] {
    const model = o.model ?? "m";
    const temperature = o.temperature ?? 0;
    const config = o.config ?? `${model} t=${temperature} default`;
    const out: Outcome[] = [];
    matrix.forEach((row, i) =>
        row.forEach((cell, j) => {
            const category: Category = cell === 1 ? "passed" : cell === 0 ? "assertion_error" : cell;
            out.push({
                runId: o.runId ?? "run1",
                config,
                model,
                quantization: null,
                temperature,
                wrapper: "default",
                template: o.template ?? "t1",
                group: o.group ?? "list",
                subgroups: o.subgroups ?? ["indexing"],
                instance: i,
                params: o.params ? o.params(i) : [i, i + 2],
                round: j,
                seed: 1000 * i + j,
                category,
                detail: category === "passed" ? "" : `failed on instance ${i}`,
                code: category === "no_function" ? null : `def f(x):\n    return ${i}`,
                response: "```python\n...\n```"
            });
        })
    );
    return out;
}
