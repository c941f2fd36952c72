"""Oracle for list_circular_pair_sums: adding each element to the one k places later, circularly."""


def solution(values, *, k):
    n = len(values)
    return [values[i] + values[(i + k) % n] for i in range(n)]


def tests(*, k):
    yield ([],), []
    yield ([5],), [10]
    for length in (2, 3, 7, k, k + 1):
        if length == 0:
            continue
        values = [10 ** (i % 4) * (i + 1) for i in range(length)]
        shift = k % length
        rotated = values[shift:] + values[:shift]      # rotated[i] is values[(i + k) mod L]
        yield (values,), [a + b for a, b in zip(values, rotated)]


def inputs(rng, *, k):
    length = rng.choice([0, 1, k, k + 1, rng.randint(0, 12)])
    return ([rng.randint(-30, 30) for _ in range(length)],)


def edge_cases(args, *, k):
    values, = args
    if not values:
        return ["empty"]
    hit = ["single"] if len(values) == 1 else []
    if k % len(values) == 0:
        hit.append("multiple_of_length")
    if k >= len(values):
        hit.append("k_beyond_length")
    return hit


def mutant_looks_back(values, *, k):
    n = len(values)
    return [values[i] + values[(i - k) % n] for i in range(n)]


def mutant_no_wrap(values, *, k):
    n = len(values)
    return [values[i] + (values[i + k] if i + k < n else 0) for i in range(n)]


def mutant_k_plus_one(values, *, k):
    n = len(values)
    return [values[i] + values[(i + k + 1) % n] for i in range(n)]


def mutant_ignores_k(values, *, k):
    n = len(values)
    return [values[i] + values[(i + 1) % n] for i in range(n)]


def mutant_drops_wrapped(values, *, k):
    n = len(values)
    return [values[i] + values[i + k] for i in range(n) if i + k < n]
