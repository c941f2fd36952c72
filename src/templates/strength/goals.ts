import type { Template } from "../types.js";
import type { StrengthMeasure } from "./measure.js";

/** The oracle-strength goals of issue 12, met by every shipped template. */
export const STRENGTH_GOALS = {
    /** Plausible wrong solutions per oracle. */
    minMutants: 4,
    /** Killed mutants ÷ mutants. */
    killRate: 1,
    /** Branch coverage of the model solution by the fixed tests alone. */
    fixedCoverage: 0.9,
    /** … and by the random inputs alone. */
    randomCoverage: 0.95
} as const;

/** What the goals are checked against: the judge's validation figures beside the traced measure. */
export interface StrengthInput {
    template: Template;
    solutionFailures: number;
    mutants: number;
    killRate: number;
    measure: StrengthMeasure;
}

/** Each goal the template misses, as one short line (empty when it meets them all). */
export function missedGoals(s: StrengthInput): string[] {
    const g = STRENGTH_GOALS;
    const m = s.measure;
    const missed: string[] = [];
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
    if (s.solutionFailures > 0) missed.push(`model solution fails ${s.solutionFailures} instance(s)`);
    if (s.mutants < g.minMutants) missed.push(`${s.mutants} mutant(s), need >= ${g.minMutants}`);
    if (s.killRate < g.killRate) missed.push(`kill rate ${pct(s.killRate)} < ${pct(g.killRate)}`);
    if (m.fixed.coverage < g.fixedCoverage)
        missed.push(`fixed-test branch coverage ${pct(m.fixed.coverage)} < ${pct(g.fixedCoverage)} (missed: ${m.fixed.missed.join("; ")})`);
    if (m.random.coverage < g.randomCoverage)
        missed.push(`random-input branch coverage ${pct(m.random.coverage)} < ${pct(g.randomCoverage)} (missed: ${m.random.missed.join("; ")})`);
    if (!s.template.returns) missed.push("no 'returns:' (the answer's type)");
    if (!s.template.ambiguity) missed.push("no 'ambiguity:' note");
    const never = m.edges.names.filter((n) => (m.edges.randomShare[n] ?? 0) === 0);
    if (never.length) missed.push(`edge(s) no random input hits: ${never.join(", ")}`);
    if (m.edges.unknown.length) missed.push(`edge_cases() returned name(s) not in 'edges:': ${m.edges.unknown.join(", ")}`);
    if (m.counts.solutionErrors > 0) missed.push(`model solution raised on ${m.counts.solutionErrors} traced call(s)`);
    return missed;
}
