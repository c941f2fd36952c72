"""Oracle for list_value_counts: counting occurrences, kept when they reach a threshold."""


def solution(values, *, m):
    counts = {}
    for x in values:
        counts[x] = counts.get(x, 0) + 1
    return {x: c for x, c in counts.items() if c >= m}


def tests(*, m):
    yield ([],), {}
    yield ([7] * m,), {7: m}
    yield ([7] * (m - 1),), {}
    mixed = [1] * m + [2] * (m + 1) + [3] * (m - 1)
    yield (mixed[::-1],), {1: m, 2: m + 1}
    yield ([-4, 0] * m,), {-4: m, 0: m}
    yield ([5, 6, 5] * m + [8],), ({5: 2 * m, 6: m} if m > 1 else {5: 2, 6: 1, 8: 1})


def inputs(rng, *, m):
    if rng.random() < 0.3:
        # Counts right at the threshold: one value m times, another m - 1 times.
        values = [7] * m + [-7] * (m - 1) + [rng.randint(-2, 2) for _ in range(rng.randint(0, 3))]
        rng.shuffle(values)
        return (values,)
    pool = rng.choice([1, 2, 4])
    length = rng.choice([0, m - 1, m, m + 1, rng.randint(0, 3 * m + 3)])
    return ([rng.randint(-pool, pool) for _ in range(max(length, 0))],)


def edge_cases(args, *, m):
    values, = args
    if not values:
        return ["empty"]
    counts = [values.count(v) for v in set(values)]
    hit = []
    if m in counts:
        hit.append("lower_bound")
    if m - 1 in counts:
        hit.append("below_range")
    return hit


def mutant_more_than(values, *, m):
    counts = {}
    for x in values:
        counts[x] = counts.get(x, 0) + 1
    return {x: c for x, c in counts.items() if c > m}


def mutant_ignores_threshold(values, *, m):
    counts = {}
    for x in values:
        counts[x] = counts.get(x, 0) + 1
    return counts


def mutant_pairs_list(values, *, m):
    counts = {}
    for x in values:
        counts[x] = counts.get(x, 0) + 1
    return sorted((x, c) for x, c in counts.items() if c >= m)


def mutant_exactly_m(values, *, m):
    counts = {}
    for x in values:
        counts[x] = counts.get(x, 0) + 1
    return {x: c for x, c in counts.items() if c == m}


def mutant_at_least_m_minus_one(values, *, m):
    counts = {}
    for x in values:
        counts[x] = counts.get(x, 0) + 1
    return {x: c for x, c in counts.items() if c >= m - 1}
