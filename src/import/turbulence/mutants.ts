import type { ParamValue } from "../../vocabulary.js";
import type { MutantSpec } from "./oracleSource.js";

/** Candidate mutants from the solution template: integer parameters one off, comparisons flipped. */
export function deriveMutants(solutionTemplate: string, tuples: ParamValue[][]): MutantSpec[] {
    const out: MutantSpec[] = [];
    const k = tuples[0]?.length ?? 0;
    for (let i = 0; i < k; i++) {
        const ints = tuples.every((t) => typeof t[i] === "number" && Number.isInteger(t[i]));
        const token = new RegExp(`\\$${i}(?!\\d)`, "g");
        if (!ints || !token.test(solutionTemplate)) continue;
        out.push({ name: `mutant_p${i}_plus_one`, template: solutionTemplate.replace(token, `($${i} + 1)`), how: `$${i} replaced by $${i} + 1` });
        out.push({ name: `mutant_p${i}_minus_one`, template: solutionTemplate.replace(token, `($${i} - 1)`), how: `$${i} replaced by $${i} - 1` });
    }
    const flips: Record<string, string> = { "<=": "<", "<": "<=", ">=": ">", ">": ">=" };
    const cmp = /(?<![-<>=!])(<=|>=|<|>)(?![<>=])/g;
    let m: RegExpExecArray | null;
    let count = 0;
    while ((m = cmp.exec(solutionTemplate)) && count < 4) {
        const line = solutionTemplate.slice(solutionTemplate.lastIndexOf("\n", m.index) + 1, m.index);
        if (/^\s*(def|from|import)\b|->/.test(line) || /["']/.test(line)) continue; // signatures, imports, text
        count++;
        const at = m.index;
        out.push({
            name: `mutant_compare_${count}`,
            template: solutionTemplate.slice(0, at) + flips[m[1]!]! + solutionTemplate.slice(at + m[1]!.length),
            how: `comparison ${count} '${m[1]}' replaced by '${flips[m[1]!]}'`
        });
    }
    return out;
}

/** Wrong answers that need nothing from the solution: used only when too few mutants can be derived. */
export function genericMutants(argNames: string[]): MutantSpec[] {
    return [
        { name: "mutant_generic_returns_none", body: "return None", how: "returns None" },
        { name: "mutant_generic_returns_first_argument", body: `return ${argNames[0] ?? "None"}`, how: "returns its first argument" },
        { name: "mutant_generic_raises", body: "raise ValueError('not implemented')", how: "raises" }
    ];
}
