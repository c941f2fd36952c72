import { TAXONOMY } from "../../templates/taxonomy.js";
import type { ProblemGroup } from "../../templates/taxonomy.js";

const RETURN_MAP: Record<string, string> = { int: "int", float: "float", bool: "bool", str: "str", list: "list", tuple: "tuple", set: "set", frozenset: "frozenset", dict: "dict", matrix: "matrix", none: "none" };

/** eddy's return type for the type name probe.py saw the model solution answer with. */
export function mapReturn(t: string): string | undefined {
    return RETURN_MAP[t];
}

/** A problem group from the question's wording; a `--rules` entry overrides it. */
export function guessGroup(question: string): ProblemGroup {
    const q = question.toLowerCase();
    if (/\bcop(y|ies)\b/.test(q)) return "copying";
    if (/\bsets?\b/.test(q)) return "set";
    if (/\b(find|search|index of|position of)\b/.test(q)) return "searching";
    if (/\b(strings?|characters?)\b/.test(q)) return "string";
    if (/\blists?\b/.test(q)) return "list";
    return "math";
}

// Words that point to one subgroup of the taxonomy; the first subgroup of the group otherwise.
const SUBGROUP_WORDS: [RegExp, string][] = [
    [/\bsum\b|\btotal\b/, "summation"],
    [/\bsort|\bsmallest\b|\blargest\b/, "sorting"],
    [/\bcount|how many\b/, "count_elements"],
    [/\binsert/, "element_insertion"],
    [/\bremov|\bdelet/, "character_removal"],
    [/\bpalindrom/, "palindrome"],
    [/\banagram/, "anagram"],
    [/\bsubstring|\bfrom index\b/, "substring_extraction"],
    [/\bunion\b/, "union"],
    [/\bintersect/, "intersection"],
    [/\bsubsets?\b|\bsupersets?\b/, "subset_superset"],
    [/\bprime/, "prime_checking"],
    [/\bcomposite/, "composite_checking"],
    [/\bfactorial/, "factorial"],
    [/\bfactor/, "factorisation"],
    [/\bindex|\bposition/, "indexing"],
    [/\bslice|\bfrom index|\bto index/, "slicing"],
    [/\bfilter|\bat least\b|\bonly\b/, "filtering"]
];

export function guessSubgroup(group: ProblemGroup, question: string): string {
    const q = question.toLowerCase();
    const names = TAXONOMY[group].subgroups.map((s) => s.name);
    for (const [re, name] of SUBGROUP_WORDS) if (names.includes(name) && re.test(q)) return name;
    return names[0]!;
}
