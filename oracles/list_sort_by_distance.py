"""Oracle for list_sort_by_distance: sorting by a derived key with an explicit tie-break."""

KEEP_ARGUMENTS = True


def solution(values, *, c):
    return sorted(values, key=lambda x: (abs(x - c), x))


def tests(*, c):
    yield ([],), []
    yield ([c],), [c]
    yield ([c + 1, c - 1],), [c - 1, c + 1]                       # tie: the smaller first
    yield ([c - 2, c + 1],), [c + 1, c - 2]
    yield ([c + 3, c, c - 2, c + 2, c - 3],), [c, c - 2, c + 2, c - 3, c + 3]
    yield ([c, c - 1, c],), [c, c, c - 1]
    yield ([c + 5, c - 5, c + 5],), [c - 5, c + 5, c + 5]


def inputs(rng, *, c):
    length = rng.choice([0, 1, 2, rng.randint(0, 10)])
    return ([rng.randint(c - 6, c + 6) for _ in range(length)],)


def edge_cases(args, *, c):
    values, = args
    hit = [] if values else ["empty"]
    if len(set(values)) < len(values):
        hit.append("duplicates")
    if any(2 * c - x in values for x in values if x != c):
        hit.append("tie")
    return hit


def mutant_tie_larger_first(values, *, c):
    return sorted(values, key=lambda x: (abs(x - c), -x))


def mutant_stable_ties(values, *, c):
    return sorted(values, key=lambda x: abs(x - c))


def mutant_distance_from_zero(values, *, c):
    return sorted(values, key=lambda x: (abs(x), x))


def mutant_farthest_first(values, *, c):
    return sorted(values, key=lambda x: (abs(x - c), x), reverse=True)


def mutant_signed_distance(values, *, c):
    return sorted(values, key=lambda x: (x - c, x))
