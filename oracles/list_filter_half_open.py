"""Oracle for list_filter_half_open: keep lo < x <= hi, order and duplicates preserved."""


def solution(values, *, lo, hi):
    return [x for x in values if lo < x <= hi]


def tests(*, lo, hi):
    # Expected values are written out from the bounds, not computed by a filter.
    yield ([lo, hi],), [hi] if hi > lo else []
    yield ([lo - 1, lo, lo + 1, hi, hi + 1],), ([lo + 1] if lo + 1 <= hi else []) + ([hi] if hi > lo else [])
    yield ([],), []
    yield ([hi, hi, lo],), [hi, hi] if hi > lo else []
    yield ([hi + 1, lo - 1],), []
    if hi - lo >= 2:
        yield ([hi - 1, lo + 1],), [hi - 1, lo + 1]   # original order, not sorted


def inputs(rng, *, lo, hi):
    near = [lo - 1, lo, lo + 1, hi - 1, hi, hi + 1]
    length = rng.randint(0, 12)
    return ([rng.choice(near) if rng.random() < 0.6 else rng.randint(lo - 20, hi + 20) for _ in range(length)],)


def edge_cases(args, *, lo, hi):
    """Which named edges an input hits: used by `eddy templates validate --strength`."""
    (values,) = args
    hit = []
    if not values:
        hit.append("empty")
    if lo in values:
        hit.append("lower_bound")
    if hi in values:
        hit.append("upper_bound")
    if lo == hi:
        hit.append("equal_bounds")
    if any(x < lo for x in values):
        hit.append("below_range")
    if any(x > hi for x in values):
        hit.append("above_range")
    return hit


def mutant_both_inclusive(values, *, lo, hi):
    return [x for x in values if lo <= x <= hi]


def mutant_both_exclusive(values, *, lo, hi):
    return [x for x in values if lo < x < hi]


def mutant_swapped_ends(values, *, lo, hi):
    return [x for x in values if lo <= x < hi]


def mutant_deduplicated(values, *, lo, hi):
    out = []
    for x in values:
        if lo < x <= hi and x not in out:
            out.append(x)
    return out


def mutant_sorted(values, *, lo, hi):
    return sorted(x for x in values if lo < x <= hi)
