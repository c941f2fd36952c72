"""Oracle for list_mean_above: the mean of the elements strictly above a threshold, as a float."""


def solution(values, *, t):
    kept = [x for x in values if x > t]
    if not kept:
        return 0.0
    return sum(kept) / len(kept)


def tests(*, t):
    # Means worked out by hand in terms of t.
    yield ([],), 0.0
    yield ([t],), 0.0                              # equal to t: not above it
    yield ([t - 1, t - 7],), 0.0
    yield ([t, t + 1],), float(t + 1)
    yield ([t + 1, t + 2],), t + 1.5               # not an integer: no floor division
    yield ([t - 5, t + 1, t + 4, t + 4],), t + 3.0
    yield ([t + 2, t, t + 3, t + 3, t + 3],), t + 2.75


def inputs(rng, *, t):
    length = rng.choice([0, 1, 2, rng.randint(0, 9)])
    low = rng.choice([t - 6, t - 1])
    return ([rng.randint(low, t + 6) for _ in range(length)],)


def edge_cases(args, *, t):
    values, = args
    if not values:
        return ["empty"]
    hit = []
    if t in values:
        hit.append("lower_bound")
    if all(x <= t for x in values):
        hit.append("no_match")
    if all(x > t for x in values):
        hit.append("all_match")
    return hit


def mutant_at_least(values, *, t):
    kept = [x for x in values if x >= t]
    return sum(kept) / len(kept) if kept else 0.0


def mutant_divides_by_all(values, *, t):
    kept = [x for x in values if x > t]
    return sum(kept) / len(values) if kept else 0.0


def mutant_floor_division(values, *, t):
    kept = [x for x in values if x > t]
    return sum(kept) // len(kept) if kept else 0.0


def mutant_ignores_threshold(values, *, t):
    return sum(values) / len(values) if values else 0.0


def mutant_none_when_empty(values, *, t):
    kept = [x for x in values if x > t]
    return sum(kept) / len(kept) if kept else None
