import type { ProblemGroup } from "../../templates/taxonomy.js";
import type { ParamValue } from "../../vocabulary.js";

/** What the template file of one imported question says. */
export interface TemplateYamlInput {
    id: string;
    question: number;
    /** question.txt.template's first line, `$0…$k` for the parameters. */
    text: string;
    function: string;
    arity: number;
    group: ProblemGroup;
    subgroup: string;
    returns: string | undefined;
    paramNames: string[];
    paramsSource: string;
    arguments: string;
    comparator: string;
}

/** templates/<id>.yaml of one imported question; `rows` are the neighbourhood's tuples, in order. */
export function templateYaml(p: TemplateYamlInput, rows: ParamValue[][]): { text: string; constrained: boolean } {
    const names = p.paramNames;
    // Turbulence's placeholders, ascending as Turbulence replaces them, become eddy's {{p<i>}}.
    let question = p.text;
    names.forEach((name, i) => (question = question.split(`$${i}`).join(`{{${name}}}`)));
    const distinct = names.map((_, i) => [...new Map(rows.map((t) => [JSON.stringify(t[i]), t[i]!])).values()]);
    const constraint = constraintLine(names, rows, distinct);
    const lines = [
        `# Imported from Turbulence Q${p.question} by 'eddy import turbulence' (parameters: ${p.paramsSource}).`,
        `# Argument rule: ${p.arguments} (see TURBULENCE_ARGUMENTS in the oracle).`,
        `id: ${p.id}`,
        `function: ${p.function}`,
        `arity: ${p.arity}`,
        `group: ${p.group}`,
        `subgroups: [${p.subgroup}]`,
        ...(p.returns ? [`returns: ${p.returns}`] : []),
        `question: ${JSON.stringify(question)}`,
        `ambiguity: ${JSON.stringify(`Imported unchanged from Turbulence Q${p.question}: any ambiguity of the original wording remains; its fixed tests and model solution decide.`)}`,
        `params:`,
        ...names.map((name, i) => `  ${name}: {choice: ${JSON.stringify(distinct[i])}}`),
        ...(constraint === undefined ? [] : [`constraint: ${JSON.stringify(constraint)}`]),
        `edge:`,
        ...rows.map((t) => `  - ${JSON.stringify(t)}`),
        `comparator: ${JSON.stringify(p.comparator)}`
    ];
    return { text: lines.join("\n") + "\n", constrained: constraint !== undefined || combinations(distinct) <= rows.length || names.length < 2 };
}

const combinations = (distinct: ParamValue[][]): number => distinct.reduce((n, d) => n * d.length, 1);

/**
 * The recorded tuples are the neighbourhood: when the per-parameter choices combine into more
 * tuples than that, a filtrex constraint admits only the recorded ones (numbers, strings, booleans;
 * the importer holds list- and float-valued parameters as Python text, so they compare as strings).
 * Undefined when no constraint is needed, or a value cannot be written in filtrex (a string with a
 * line break, a list): the import then warns that sampling may leave the neighbourhood.
 */
export function constraintLine(names: string[], rows: ParamValue[][], distinct: ParamValue[][]): string | undefined {
    if (combinations(distinct) <= rows.length || names.length < 2) return undefined;
    const terms: string[] = [];
    for (const t of rows) {
        const parts = t.map((v, i) => equals(names[i]!, v));
        if (parts.some((x) => x === undefined)) return undefined;
        terms.push(`(${parts.join(" and ")})`);
    }
    return terms.join(" or ");
}

/** A filtrex test that `name` holds `v`; undefined when filtrex cannot write the value. */
function equals(name: string, v: ParamValue): string | undefined {
    if (typeof v === "number") return Number.isFinite(v) ? `${name} == ${v}` : undefined;
    if (typeof v === "boolean") return v ? name : `not ${name}`;
    if (typeof v === "string") return /[\n\r]/.test(v) ? undefined : `${name} == "${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
    return undefined;
}
