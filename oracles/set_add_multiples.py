"""Oracle for set_add_multiples: adding the multiples of d in an inclusive range to a set."""

KEEP_ARGUMENTS = True


def solution(items, *, lo, hi, d):
    return set(items) | {x for x in range(lo, hi + 1) if x % d == 0}


def tests(*, lo, hi, d):
    # Multiples listed by stepping from the first one at or above lo (independent of the filter above).
    first = lo + (-lo) % d
    multiples = set(range(first, hi + 1, d))
    yield (set(),), set(multiples)
    yield ({lo - 1, hi + 1},), {lo - 1, hi + 1} | multiples
    yield ({hi * d + 1, 1000},), {hi * d + 1, 1000} | multiples
    yield (set(multiples),), set(multiples)
    yield ({lo, hi},), {lo, hi} | multiples


def inputs(rng, *, lo, hi, d):
    size = rng.choice([0, 1, rng.randint(0, 6)])
    return ({rng.randint(lo - 3, hi + 3) for _ in range(size)},)


def edge_cases(args, *, lo, hi, d):
    items, = args
    if not items:
        return ["empty"]
    hit = ["overlap"] if any(lo <= x <= hi and x % d == 0 for x in items) else []
    if any(x < lo or x > hi for x in items):
        hit.append("outside_range")
    return hit


def mutant_exclusive_hi(items, *, lo, hi, d):
    return set(items) | {x for x in range(lo, hi) if x % d == 0}


def mutant_steps_from_lo(items, *, lo, hi, d):
    return set(items) | set(range(lo, hi + 1, d))


def mutant_positive_only(items, *, lo, hi, d):
    return set(items) | {x for x in range(max(lo, 1), hi + 1) if x % d == 0}


def mutant_forgets_items(items, *, lo, hi, d):
    return {x for x in range(lo, hi + 1) if x % d == 0}


def mutant_frozenset(items, *, lo, hi, d):
    return frozenset(items) | {x for x in range(lo, hi + 1) if x % d == 0}
