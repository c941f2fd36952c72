"""Oracle for first_strictly_between: first element inside an open interval."""


def solution(values, *, lo, hi):
    for v in values:
        if lo < v < hi:
            return v
    return None


def tests(*, lo, hi):
    yield ([],), None
    yield ([lo, hi],), None
    yield ([hi, lo, lo - 1, hi + 1],), None
    if hi - lo >= 2:
        yield ([lo, lo + 1],), lo + 1
        yield ([hi, hi - 1, lo + 1],), hi - 1
        yield ([lo - 5, hi + 5, lo + 1, hi - 1],), lo + 1
        mid = (lo + hi) // 2
        yield ([hi, mid, lo],), mid
    else:
        # the open interval is empty: nothing can qualify
        yield ([lo, hi, lo + 1, hi - 1],), None


def inputs(rng, *, lo, hi):
    length = rng.randint(0, 8)
    near = [lo - 1, lo, lo + 1, hi - 1, hi, hi + 1]
    values = []
    for _ in range(length):
        r = rng.random()
        if r < 0.6:
            values.append(rng.choice(near))
        elif r < 0.8 and hi > lo:
            values.append(rng.randint(lo, hi))
        else:
            values.append(rng.randint(-50, 1050))
    return (values,)


def mutant_closed_interval(values, *, lo, hi):
    for v in values:
        if lo <= v <= hi:
            return v
    return None


def mutant_half_open(values, *, lo, hi):
    for v in values:
        if lo < v <= hi:
            return v
    return None


def mutant_last_match(values, *, lo, hi):
    found = None
    for v in values:
        if lo < v < hi:
            found = v
    return found


def mutant_returns_index(values, *, lo, hi):
    for i, v in enumerate(values):
        if lo < v < hi:
            return i
    return None
