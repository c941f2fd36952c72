"""Oracle for list_circular_window: n consecutive elements of a circular list, as a tuple."""


def solution(values, start, *, n):
    return tuple(values[(start + i) % len(values)] for i in range(n))


def tests(*, n):
    # Expected values from a long repeated copy of the list, sliced (no modular arithmetic).
    for values, start in (([1, 2, 3], 0), ([1, 2, 3], 2), ([7], 0), ([4, 5], 1), ([9, 8, 7, 6, 5], 3)):
        long = values * (n // len(values) + 2)
        yield (values, start), tuple(long[start:start + n])


def inputs(rng, *, n):
    length = rng.choice([1, 2, n, n + 1, rng.randint(1, 9)])
    length = max(length, 1)
    values = [rng.randint(-20, 20) for _ in range(length)]
    start = rng.choice([0, length - 1, rng.randrange(length)])
    return (values, start)


def edge_cases(args, *, n):
    values, start = args
    hit = ["single"] if len(values) == 1 else []
    if start + n <= len(values):
        hit.append("no_wrap")
    elif start + n <= 2 * len(values):
        hit.append("wraps")
    else:
        hit.append("wraps_twice")
    return hit


def mutant_returns_list(values, start, *, n):
    return [values[(start + i) % len(values)] for i in range(n)]


def mutant_no_wrap(values, start, *, n):
    return tuple(values[start:start + n])


def mutant_starts_after(values, start, *, n):
    return tuple(values[(start + 1 + i) % len(values)] for i in range(n))


def mutant_one_short(values, start, *, n):
    return tuple(values[(start + i) % len(values)] for i in range(n - 1))


def mutant_wraps_once(values, start, *, n):
    return tuple((values[start:] + values[:start])[:n])
