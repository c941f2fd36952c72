"""Oracle for set_add_range: a set plus an inclusive integer range."""

# The question forbids modifying the arguments: the judge fails a call that changes them.
KEEP_ARGUMENTS = True


def solution(items, *, lo, hi):
    return set(items) | set(range(lo, hi + 1))


def tests(*, lo, hi):
    # Expected sets listed by a while loop from lo to hi.
    span, x = set(), lo
    while x <= hi:
        span.add(x)
        x += 1
    yield (set(),), span
    yield ({lo - 1, hi + 1},), span | {lo - 1, hi + 1}
    yield ({lo, hi},), span
    yield ({1000},), span | {1000}


def inputs(rng, *, lo, hi):
    return ({rng.randint(lo - 5, hi + 5) for _ in range(rng.randint(0, 8))},)


def edge_cases(args, *, lo, hi):
    """Which named edges an input hits: used by `eddy templates validate --strength`."""
    (items,) = args
    hit = ["empty"] if not items else []
    if lo == hi:
        hit.append("equal_bounds")
    if any(lo <= x <= hi for x in items):
        hit.append("overlap")
    if lo - 1 in items or hi + 1 in items:
        hit.append("neighbours")
    return hit


def mutant_exclusive_hi(items, *, lo, hi):
    return set(items) | set(range(lo, hi))


def mutant_exclusive_lo(items, *, lo, hi):
    return set(items) | set(range(lo + 1, hi + 1))


def mutant_forgets_items(items, *, lo, hi):
    return set(range(lo, hi + 1))


def mutant_returns_update(items, *, lo, hi):
    return set(items).update(range(lo, hi + 1))
