"""Oracle for set_subsets_of_size: enumerating k-subsets of a filtered set in a fixed order."""


def solution(items, *, k, lo):
    import itertools

    pool = sorted(x for x in items if x >= lo)
    return list(itertools.combinations(pool, k))


def _expected(items, k, lo):
    # Independent of solution(): grow subsets element by element, then sort.
    pool = sorted(x for x in items if x >= lo)
    subsets = [()]
    for x in pool:
        subsets += [s + (x,) for s in subsets if len(s) < k]
    return sorted(s for s in subsets if len(s) == k)


def tests(*, k, lo):
    yield (set(),), ([()] if k == 0 else [])
    yield ({lo - 1, lo - 2},), ([()] if k == 0 else [])
    yield ({lo},), {0: [()], 1: [(lo,)]}.get(k, [])
    for items in ({lo, lo + 1, lo + 2, lo + 3, lo - 1}, set(range(lo - 2, lo + 6)), {lo + 10, lo, lo - 10, lo + 3}):
        yield (set(items),), _expected(items, k, lo)


def inputs(rng, *, k, lo):
    size = rng.choice([0, k, k + 1, rng.randint(0, 8)])
    return ({rng.randint(lo - 3, lo + 6) for _ in range(size)},)


def edge_cases(args, *, k, lo):
    items, = args
    if not items:
        return ["empty"]
    hit = ["lower_bound"] if lo in items else []
    if len([x for x in items if x >= lo]) < k:
        hit.append("fewer_than_k")
    return hit


def mutant_lists_not_tuples(items, *, k, lo):
    import itertools

    return [list(c) for c in itertools.combinations(sorted(x for x in items if x >= lo), k)]


def mutant_strictly_greater(items, *, k, lo):
    import itertools

    return list(itertools.combinations(sorted(x for x in items if x > lo), k))


def mutant_ignores_lo(items, *, k, lo):
    import itertools

    return list(itertools.combinations(sorted(items), k))


def mutant_size_k_plus_one(items, *, k, lo):
    import itertools

    return list(itertools.combinations(sorted(x for x in items if x >= lo), k + 1))


def mutant_reverse_order(items, *, k, lo):
    import itertools

    return list(itertools.combinations(sorted((x for x in items if x >= lo), reverse=True), k))
