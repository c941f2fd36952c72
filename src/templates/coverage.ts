import { PROBLEM_GROUPS, RETURN_TYPES, TAXONOMY, type ProblemGroup } from "./taxonomy.js";
import type { Template } from "./types.js";

/** Counts by key, keys in first-seen order. */
type Counts = Record<string, number>;

/** Templates of one subgroup, with their answer types and arities. */
export interface SubgroupCoverage {
    name: string;
    label: string;
    templates: number;
    ids: string[];
    returns: Counts;
    arity: Counts;
}

/** What `eddy templates coverage` shows. */
export interface Coverage {
    templates: number;
    groups: { group: ProblemGroup; label: string; templates: number; returns: Counts; arity: Counts; subgroups: SubgroupCoverage[] }[];
    /** Over all templates: answer types (`unspecified` when a template has no `returns:`) and arities. */
    returns: Counts;
    arity: Counts;
    gaps: {
        /** `group/subgroup` with no template. */
        emptySubgroups: string[];
        /** `group/subgroup` with fewer than `minPerSubgroup` templates (empty ones included). */
        thinSubgroups: string[];
        /** Declared answer types no template returns. */
        unusedReturnTypes: string[];
        /** Templates without `returns:`. */
        noReturns: string[];
    };
    minPerSubgroup: number;
}

/** Templates per subgroup wanted by issue 12. */
export const MIN_PER_SUBGROUP = 3;

function bump(c: Counts, key: string): void {
    c[key] = (c[key] ?? 0) + 1;
}

/** Sorted copy of a count map (numeric keys numerically), so output is stable. */
function sorted(c: Counts): Counts {
    return Object.fromEntries(Object.entries(c).sort(([a], [b]) => (/^\d+$/.test(a) && /^\d+$/.test(b) ? Number(a) - Number(b) : a.localeCompare(b))));
}

/**
 * Groups × subgroups × answer types × arity over `templates`. A template counts once in each of
 * its subgroups (so subgroup counts may add up to more than the group's), as in the paper's Table I.
 */
export function templateCoverage(templates: Template[], minPerSubgroup = MIN_PER_SUBGROUP): Coverage {
    const returns: Counts = {};
    const arity: Counts = {};
    for (const t of templates) {
        bump(returns, t.returns ?? "unspecified");
        bump(arity, String(t.arity));
    }
    const groups = PROBLEM_GROUPS.map((group) => {
        const mine = templates.filter((t) => t.group === group);
        const gReturns: Counts = {};
        const gArity: Counts = {};
        for (const t of mine) {
            bump(gReturns, t.returns ?? "unspecified");
            bump(gArity, String(t.arity));
        }
        const subgroups = TAXONOMY[group].subgroups.map((s) => {
            const members = mine.filter((t) => t.subgroups.includes(s.name));
            const r: Counts = {};
            const a: Counts = {};
            for (const t of members) {
                bump(r, t.returns ?? "unspecified");
                bump(a, String(t.arity));
            }
            return { name: s.name, label: s.label, templates: members.length, ids: members.map((t) => t.id), returns: sorted(r), arity: sorted(a) };
        });
        return { group, label: TAXONOMY[group].label, templates: mine.length, returns: sorted(gReturns), arity: sorted(gArity), subgroups };
    });
    const all = groups.flatMap((g) => g.subgroups.map((s) => ({ key: `${g.group}/${s.name}`, n: s.templates })));
    return {
        templates: templates.length,
        groups,
        returns: sorted(returns),
        arity: sorted(arity),
        gaps: {
            emptySubgroups: all.filter((s) => s.n === 0).map((s) => s.key),
            thinSubgroups: all.filter((s) => s.n < minPerSubgroup).map((s) => s.key),
            unusedReturnTypes: RETURN_TYPES.filter((r) => r !== "none" && !(r in returns)),
            noReturns: templates.filter((t) => !t.returns).map((t) => t.id)
        },
        minPerSubgroup
    };
}
