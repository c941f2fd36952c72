"""Oracle for list_insert_after_every: periodic insertion, counted from 1, including the end."""

KEEP_ARGUMENTS = True


def solution(values, *, x, k):
    out = []
    for position, v in enumerate(values, start=1):
        out.append(v)
        if position % k == 0:
            out.append(x)
    return out


def _expected(values, x, k):
    # Independent of solution(): cut into chunks of k, a full chunk is followed by x.
    out = []
    for start in range(0, len(values), k):
        chunk = values[start:start + k]
        out.extend(chunk)
        if len(chunk) == k:
            out.append(x)
    return out


def tests(*, x, k):
    yield ([],), []
    yield (list(range(100, 100 + k - 1)),), list(range(100, 100 + k - 1))   # no full group
    yield (list(range(100, 100 + k)),), list(range(100, 100 + k)) + [x]
    for length in (k + 1, 2 * k, 2 * k + 1, 3 * k + 2):
        values = list(range(200, 200 + length))
        yield (values,), _expected(values, x, k)


def inputs(rng, *, x, k):
    length = rng.choice([0, k - 1, k, k + 1, 2 * k, rng.randint(0, 3 * k + 2)])
    return ([rng.randint(-50, 50) for _ in range(max(length, 0))],)


def edge_cases(args, *, x, k):
    values, = args
    if not values:
        return ["empty"]
    return ["multiple_of_k"] if len(values) % k == 0 else (["shorter_than_k"] if len(values) < k else [])


def mutant_zero_based(values, *, x, k):
    out = []
    for i, v in enumerate(values):
        out.append(v)
        if i % k == 0:
            out.append(x)
    return out


def mutant_not_at_end(values, *, x, k):
    out = []
    for position, v in enumerate(values, start=1):
        out.append(v)
        if position % k == 0 and position < len(values):
            out.append(x)
    return out


def mutant_inserts_before(values, *, x, k):
    out = []
    for position, v in enumerate(values, start=1):
        if position % k == 0:
            out.append(x)
        out.append(v)
    return out


def mutant_every_k_plus_one(values, *, x, k):
    out = []
    for position, v in enumerate(values, start=1):
        out.append(v)
        if position % (k + 1) == 0:
            out.append(x)
    return out


def mutant_inserts_k(values, *, x, k):
    out = []
    for position, v in enumerate(values, start=1):
        out.append(v)
        if position % k == 0:
            out.append(k)
    return out
