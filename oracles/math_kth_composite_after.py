"""Oracle for kth_composite_after: counting composites after an exclusive start."""


def solution(n, *, k):
    def is_composite(m):
        if m < 4:
            return False
        d = 2
        while d * d <= m:
            if m % d == 0:
                return True
            d += 1
        return False

    m, found = n, 0
    while found < k:
        m += 1
        if is_composite(m):
            found += 1
    return m


def _composites(count):
    limit = 4 * count + 50
    flags = [False] * (limit + 1)
    for i in range(2, limit + 1):
        for j in range(2 * i, limit + 1, i):
            flags[j] = True
    return [i for i, f in enumerate(flags) if f][:count + 40]


_FIRST = [4, 6, 8, 9, 10, 12, 14, 15, 16, 18, 20, 21, 22, 24, 25, 26, 27, 28]


def tests(*, k):
    comps = _composites(k + 30)
    # from at or below zero, the k-th composite overall
    for n in (-50, -1, 0, 1, 2, 3):
        yield (n,), comps[k - 1]
    # starting on a composite excludes it
    for idx in (0, 3, 10, 20):
        yield (comps[idx],), comps[idx + k]
    # starting just below a composite includes it
    for idx in (0, 4, 11):
        yield (comps[idx] - 1,), comps[idx + k - 1]
    if k <= len(_FIRST):
        yield (0,), _FIRST[k - 1]


def inputs(rng, *, k):
    r = rng.random()
    if r < 0.3:
        return (rng.randint(-10, 5),)
    if r < 0.6:
        anchor = rng.choice([4, 8, 9, 24, 25, 48, 49, 120, 121, 168, 169, 288, 289])
        return (rng.choice([anchor, anchor - 1, anchor - 2]),)
    return (rng.randint(-30, 800),)


def mutant_inclusive_start(n, *, k):
    def is_composite(m):
        return m >= 4 and any(m % d == 0 for d in range(2, int(m ** 0.5) + 1))

    m, found = n - 1, 0
    while found < k:
        m += 1
        if is_composite(m):
            found += 1
    return m


def mutant_one_is_composite(n, *, k):
    def is_composite(m):
        return m == 1 or (m >= 4 and any(m % d == 0 for d in range(2, int(m ** 0.5) + 1)))

    m, found = n, 0
    while found < k:
        m += 1
        if is_composite(m):
            found += 1
    return m


def mutant_sqrt_bound_exclusive(n, *, k):
    def is_composite(m):
        return m >= 4 and any(m % d == 0 for d in range(2, int(m ** 0.5)))

    m, found = n, 0
    while found < k:
        m += 1
        if is_composite(m):
            found += 1
    return m


def mutant_zero_based_k(n, *, k):
    def is_composite(m):
        return m >= 4 and any(m % d == 0 for d in range(2, int(m ** 0.5) + 1))

    m, found = n, -1
    while found < k:
        m += 1
        if is_composite(m):
            found += 1
    return m
