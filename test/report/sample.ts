import type { Outcome } from "../../src/vocabulary.js";
import { neighbourhood, type Cell } from "../scores/fixtures.js";

/**
 * A small two-model, two-temperature study with every neighbourhood category, a discontinuity
 * at equal bounds, harness outcomes and failing code: enough for every report section.
 */
export function sampleStudy(): Outcome[] {
    const out: Outcome[] = [];
    const templates = [
        { id: "sum_index_range", group: "list", subgroups: ["indexing", "summation"] },
        { id: "count_char", group: "string", subgroups: ["counting"] },
        { id: "set_union_size", group: "set", subgroups: ["union"] },
        { id: "binary_search_index", group: "searching", subgroups: ["bisection"] },
        { id: "copy_reverse", group: "copying", subgroups: ["reversal"] },
        { id: "gcd_range", group: "math", subgroups: ["number theory", "summation"] }
    ];
    const configs = [
        { model: "tiny-a", temperature: 0 },
        { model: "tiny-a", temperature: 0.8 },
        { model: "tiny-b", temperature: 0 }
    ];
    const params = (i: number) => (i % 7 === 3 ? [i, i] : [i, i + 1 + (i % 5)]);
    configs.forEach((c, ci) =>
        templates.forEach((t, ti) => {
            const matrix: Cell[][] = Array.from({ length: 20 }, (_, i) =>
                Array.from({ length: 5 }, (_, r): Cell => {
                    const mode = (ti + ci) % 4;
                    if (mode === 0) return 1; // perfect success
                    if (mode === 3 && ci === 2) return r === 4 && i === 0 ? "truncated" : i % 3 === 0 ? "syntax_error" : 0; // perfect failure
                    if (i % 7 === 3) return r === 0 && i === 3 ? "judge_error" : "assertion_error"; // equal bounds never solved
                    if (mode === 1) return (i + r + ci) % 4 === 0 ? "fuzzing_failure" : 1;
                    return (i * r + ti) % 5 === 0 && r > 0 ? "runtime_error" : 1;
                })
            );
            out.push(...neighbourhood(matrix, { ...c, template: t.id, group: t.group, subgroups: t.subgroups, params, runId: ci < 2 ? "run-a" : "run-b" }));
        })
    );
    return out;
}
