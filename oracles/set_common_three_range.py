"""Oracle for set_common_three_range: a three-way intersection inside an open interval."""

KEEP_ARGUMENTS = True


def solution(a, b, c, *, lo, hi):
    return {x for x in a & b & c if lo < x < hi}


def tests(*, lo, hi):
    inside = set(range(lo + 1, hi))
    yield (set(), set(), set()), set()
    yield ({lo, hi}, {lo, hi}, {lo, hi}), set()               # bounds excluded
    every = set(range(lo - 1, hi + 2))
    yield (set(every), set(every), set(every)), set(inside)
    yield (set(every), set(every), set()), set()              # only two sets share them
    yield ({lo + 1, 500}, {lo + 1, 500, hi - 1}, {hi - 1, lo + 1, 500}), ({lo + 1} if lo + 1 < hi else set())
    yield (set(every), {hi - 1, lo - 1}, set(every)), ({hi - 1} if lo < hi - 1 else set())


def inputs(rng, *, lo, hi):
    pool = [lo - 1, lo, lo + 1, hi - 1, hi, hi + 1, rng.randint(lo, hi)]
    return tuple({rng.choice(pool) for _ in range(rng.randint(0, 6))} for _ in range(3))


def edge_cases(args, *, lo, hi):
    a, b, c = args
    common = a & b & c
    if not (a and b and c):
        return ["empty"]
    hit = ["lower_bound"] if lo in common else []
    if hi in common:
        hit.append("upper_bound")
    return hit


def mutant_inclusive(a, b, c, *, lo, hi):
    return {x for x in a & b & c if lo <= x <= hi}


def mutant_ignores_third(a, b, c, *, lo, hi):
    return {x for x in a & b if lo < x < hi}


def mutant_union(a, b, c, *, lo, hi):
    return {x for x in a | b | c if lo < x < hi}


def mutant_includes_hi(a, b, c, *, lo, hi):
    return {x for x in a & b & c if lo < x <= hi}


def mutant_sorted_list(a, b, c, *, lo, hi):
    return sorted(x for x in a & b & c if lo < x < hi)
