"""Oracle for list_insert_before_first: insertion at the position found by a linear scan."""

KEEP_ARGUMENTS = True


def solution(values, *, x, t):
    for i, v in enumerate(values):
        if v >= t:
            return values[:i] + [x] + values[i:]
    return values + [x]


def tests(*, x, t):
    yield ([],), [x]
    yield ([t],), [x, t]                                  # equal to t qualifies
    yield ([t - 1],), [t - 1, x]
    yield ([t - 1, t + 1, t],), [t - 1, x, t + 1, t]      # only the first qualifying one
    yield ([t - 3, t - 2, t, t - 1],), [t - 3, t - 2, x, t, t - 1]
    yield ([t + 2, t + 3],), [x, t + 2, t + 3]
    yield ([t - 5, t - 5],), [t - 5, t - 5, x]


def inputs(rng, *, x, t):
    length = rng.choice([0, 1, rng.randint(0, 8)])
    low = rng.choice([t - 6, t - 2])
    high = rng.choice([t - 1, t, t + 3])
    return ([rng.randint(low, high) for _ in range(length)],)


def edge_cases(args, *, x, t):
    values, = args
    if not values:
        return ["empty"]
    firsts = [v for v in values if v >= t]
    if not firsts:
        return ["no_match"]
    hit = ["lower_bound"] if firsts[0] == t else []
    if values[0] >= t:
        hit.append("first_element")
    return hit


def mutant_strictly_greater(values, *, x, t):
    for i, v in enumerate(values):
        if v > t:
            return values[:i] + [x] + values[i:]
    return values + [x]


def mutant_inserts_after(values, *, x, t):
    for i, v in enumerate(values):
        if v >= t:
            return values[:i + 1] + [x] + values[i + 1:]
    return values + [x]


def mutant_before_last_match(values, *, x, t):
    for i in range(len(values) - 1, -1, -1):
        if values[i] >= t:
            return values[:i] + [x] + values[i:]
    return values + [x]


def mutant_prepends_when_none(values, *, x, t):
    for i, v in enumerate(values):
        if v >= t:
            return values[:i] + [x] + values[i:]
    return [x] + values


def mutant_at_most(values, *, x, t):
    for i, v in enumerate(values):
        if v <= t:
            return values[:i] + [x] + values[i:]
    return values + [x]
