/** The six problem groups of the Turbulence taxonomy (papers' Table I). */
export const PROBLEM_GROUPS = ["list", "string", "set", "searching", "copying", "math"] as const;
export type ProblemGroup = (typeof PROBLEM_GROUPS)[number];


/** One subgroup of a problem group: the YAML name and the paper's label. */
export interface Subgroup {
    name: string;
    label: string;
}

/**
 * The canonical subgroups per problem group: the taxonomy of the Turbulence paper (Table I, with
 * the three math subgroups its Table III adds), in snake_case. Templates may only name these, so
 * `templates coverage` can count every subgroup and show the empty ones.
 */
export const TAXONOMY: Record<ProblemGroup, { label: string; subgroups: readonly Subgroup[] }> = {
    list: {
        label: "List Manipulation",
        subgroups: [
            { name: "slicing", label: "Slicing" },
            { name: "indexing", label: "Indexing" },
            { name: "filtering", label: "Filtering" },
            { name: "element_based", label: "Element-based Operations" },
            { name: "summation", label: "Summation" },
            { name: "sorting", label: "Sorting/Order-based Operations" },
            { name: "element_insertion", label: "Element Insertion" },
            { name: "count_elements", label: "Count elements" },
            { name: "circular_lists", label: "Circular Lists" }
        ]
    },
    string: {
        label: "String Manipulation",
        subgroups: [
            { name: "character_insertion", label: "Character Insertion" },
            { name: "indexing", label: "Indexing" },
            { name: "character_removal", label: "Character Removal" },
            { name: "substring_extraction", label: "Substring/Character Extraction" },
            { name: "palindrome", label: "Palindrome Operations" },
            { name: "anagram", label: "Anagram Detection" },
            { name: "sorting", label: "Sorting" }
        ]
    },
    set: {
        label: "Set Manipulation",
        subgroups: [
            { name: "add_elements", label: "Add Elements" },
            { name: "subset_superset", label: "Subset/Superset Operation" },
            { name: "counting_subsets", label: "Counting Subsets" },
            { name: "intersection", label: "Intersection" },
            { name: "union", label: "Union" }
        ]
    },
    searching: {
        label: "Searching",
        subgroups: [
            { name: "linear_search", label: "Linear Search" },
            { name: "index_based_search", label: "Index-based Search" },
            { name: "string_search", label: "String Search" }
        ]
    },
    copying: {
        label: "Copying",
        subgroups: [
            { name: "shallow_copy", label: "Shallow Copy" },
            { name: "copy_sublist", label: "Copy Sublist" }
        ]
    },
    math: {
        label: "Mathematical Problems",
        subgroups: [
            { name: "arithmetic", label: "Arithmetic Operations" },
            { name: "factorial", label: "Factorial Calculations" },
            { name: "prime_checking", label: "Prime Checking" },
            { name: "composite_checking", label: "Composite Checking" },
            { name: "factorisation", label: "Factorisation" },
            { name: "special_sequences", label: "Special Sequences" },
            { name: "combinatorial", label: "Combinatorial Problems" }
        ]
    }
};

/** The subgroup names a template of `group` may use, in taxonomy order. */
export function subgroupNames(group: ProblemGroup): string[] {
    return TAXONOMY[group].subgroups.map((s) => s.name);
}

/**
 * The declared answer types (`returns:`). `matrix` is a list of lists; `none` a function whose
 * answer is its effect (rare). The comparator decides equality; this says what the question asks for.
 */
export const RETURN_TYPES = ["int", "float", "bool", "str", "list", "tuple", "set", "frozenset", "dict", "matrix", "none"] as const;
export type ReturnType = (typeof RETURN_TYPES)[number];

