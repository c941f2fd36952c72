"""Oracle for set_covers_within: a superset test restricted to an inclusive range."""


def solution(a, b, *, lo, hi):
    return all(x in a for x in b if lo <= x <= hi)


def tests(*, lo, hi):
    yield (set(), set()), True
    yield (set(), {lo - 1, hi + 1}), True             # b has nothing in range
    yield ({lo}, {lo}), True
    yield (set(), {lo}), False                        # missing exactly on lo
    yield (set(), {hi}), False                        # missing exactly on hi
    yield ({lo, hi}, {lo, hi, lo - 5, hi + 5}), True
    yield ({lo - 1, hi + 1}, {lo - 1, hi + 1}), True
    yield ({lo - 1}, {hi, lo - 1}), False
    yield (set(range(lo, hi + 1)) | {1000}, set(range(lo - 2, hi + 3))), True


def inputs(rng, *, lo, hi):
    pool = list(range(lo - 2, hi + 3)) if hi - lo < 20 else [lo - 1, lo, lo + 1, hi - 1, hi, hi + 1, (lo + hi) // 2]
    b = {rng.choice(pool) for _ in range(rng.randint(0, 5))}
    a = set(x for x in b if rng.random() < 0.85) | {rng.choice(pool) for _ in range(rng.randint(0, 3))}
    return (a, b)


def edge_cases(args, *, lo, hi):
    a, b = args
    if not b:
        return ["empty"]
    hit = ["lower_bound"] if lo in b else []
    if hi in b:
        hit.append("upper_bound")
    if any(x < lo or x > hi for x in b):
        hit.append("out_of_range")
    return hit


def mutant_exclusive_range(a, b, *, lo, hi):
    return all(x in a for x in b if lo < x < hi)


def mutant_ignores_range(a, b, *, lo, hi):
    return b <= a


def mutant_reversed_roles(a, b, *, lo, hi):
    return all(x in b for x in a if lo <= x <= hi)


def mutant_exclusive_hi(a, b, *, lo, hi):
    return all(x in a for x in b if lo <= x < hi)


def mutant_exclusive_lo(a, b, *, lo, hi):
    return all(x in a for x in b if lo < x <= hi)
