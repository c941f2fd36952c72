"""Oracle for set_count_subsets_sum_at_most: counting subsets by their sum, bound inclusive."""


def solution(items, *, t):
    values = sorted(items)
    count = 0
    for mask in range(1 << len(values)):
        total = 0
        for i, v in enumerate(values):
            if mask >> i & 1:
                total += v
        if total <= t:
            count += 1
    return count


def _expected(items, t):
    # Independent of solution(): itertools.combinations, size by size.
    import itertools

    return sum(1 for r in range(len(items) + 1) for combo in itertools.combinations(sorted(items), r) if sum(combo) <= t)


def tests(*, t):
    zero_ok = 1 if t >= 0 else 0
    yield (set(),), zero_ok                        # the empty set, sum 0
    yield ({t},), zero_ok + 1                      # {t} sums exactly to t (t != 0) or is {0}
    yield ({t + 1},), zero_ok                      # {t + 1} is always too big
    for items in ({1, 2, 3}, {-5, 5, t}, {t - 1, t + 1, 2, -2}, set(range(-4, 6))):
        yield (set(items),), _expected(items, t)


def inputs(rng, *, t):
    size = rng.choice([0, 1, 2, rng.randint(0, 10)])
    spread = rng.choice([3, abs(t) + 2, 12])
    return ({rng.randint(-spread, spread) for _ in range(size)},)


def edge_cases(args, *, t):
    items, = args
    if not items:
        return ["empty"]
    hit = ["single"] if len(items) == 1 else []
    if any(x < 0 for x in items):
        hit.append("negative")
    return hit


def mutant_strictly_less(items, *, t):
    import itertools

    return sum(1 for r in range(len(items) + 1) for c in itertools.combinations(items, r) if sum(c) < t)


def mutant_no_empty_set(items, *, t):
    import itertools

    return sum(1 for r in range(1, len(items) + 1) for c in itertools.combinations(items, r) if sum(c) <= t)


def mutant_no_full_set(items, *, t):
    import itertools

    return sum(1 for r in range(len(items)) for c in itertools.combinations(items, r) if sum(c) <= t)


def mutant_at_least(items, *, t):
    import itertools

    return sum(1 for r in range(len(items) + 1) for c in itertools.combinations(items, r) if sum(c) >= t)


def mutant_singletons_only(items, *, t):
    return sum(1 for x in items if x <= t) + (1 if t >= 0 else 0)
