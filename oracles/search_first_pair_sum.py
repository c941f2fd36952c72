"""Oracle for search_first_pair_sum: the earliest-completed pair with a given sum."""


def solution(values, *, t):
    first_index = {}
    for j, v in enumerate(values):
        if t - v in first_index:
            return (first_index[t - v], j)
        if v not in first_index:
            first_index[v] = j
    return None


def tests(*, t):
    def expected(values):
        # Independent of solution(): brute force, j outer, i inner.
        for j in range(len(values)):
            for i in range(j):
                if values[i] + values[j] == t:
                    return (i, j)
        return None

    yield ([],), None
    yield ([t],), None
    yield ([t - 100, 100],), (0, 1)
    half = t // 2
    if 2 * half == t:
        yield ([half],), None                      # no pairing with itself
        yield ([half, half],), (0, 1)
    yield ([1, t - 5, 7, 5, t - 1],), expected([1, t - 5, 7, 5, t - 1])
    yield ([t - 3, 50, t - 2, 2, 3],), expected([t - 3, 50, t - 2, 2, 3])   # smallest j wins over smallest i
    yield ([4, t - 4, t - 4, 4],), (0, 1)
    yield ([200, 300, 400],), expected([200, 300, 400])


def inputs(rng, *, t):
    length = rng.choice([0, 1, 2, rng.randint(0, 9)])
    values = [rng.randint(-10, 10) + rng.choice([0, t // 2, t]) for _ in range(length)]
    return (values,)


def edge_cases(args, *, t):
    values, = args
    if not values:
        return ["empty"]
    hit = ["duplicates"] if len(set(values)) < len(values) else []
    if not any(values[i] + values[j] == t for j in range(len(values)) for i in range(j)):
        hit.append("no_match")
    return hit


def mutant_smallest_i_first(values, *, t):
    for i in range(len(values)):
        for j in range(i + 1, len(values)):
            if values[i] + values[j] == t:
                return (i, j)
    return None


def mutant_pairs_with_itself(values, *, t):
    for j in range(len(values)):
        for i in range(j + 1):
            if values[i] + values[j] == t:
                return (i, j)
    return None


def mutant_returns_list(values, *, t):
    for j in range(len(values)):
        for i in range(j):
            if values[i] + values[j] == t:
                return [i, j]
    return None


def mutant_largest_i(values, *, t):
    for j in range(len(values)):
        for i in range(j - 1, -1, -1):
            if values[i] + values[j] == t:
                return (i, j)
    return None


def mutant_returns_values(values, *, t):
    for j in range(len(values)):
        for i in range(j):
            if values[i] + values[j] == t:
                return (values[i], values[j])
    return None
