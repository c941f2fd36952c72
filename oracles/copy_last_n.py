"""Oracle for copy_last_n: the last n elements, with n = 0 and short lists as edge cases."""

# The question forbids modifying the arguments: the judge fails a call that changes them.
KEEP_ARGUMENTS = True
# The question asks for a new object: an answer that returns (or holds) its argument object fails.
NEW_OBJECT = True


def solution(values, *, n):
    if n == 0:
        return []
    return list(values[-n:])


def tests(*, n):
    yield ([],), []
    yield (list(range(n)),), list(range(n))
    yield (list(range(n + 1)),), list(range(1, n + 1))
    yield (list(range(n + 5)),), list(range(5, n + 5))
    yield ([7],), ([7] if n >= 1 else [])
    yield ([3, 1, 2],), [3, 1, 2][3 - min(n, 3):]
    if n >= 1:
        yield (list(range(n - 1)),), list(range(n - 1))


def inputs(rng, *, n):
    length = rng.choice([0, 1, n - 1, n, n + 1, n + 2, rng.randint(0, n + 10)])
    return ([rng.randint(-999, 999) for _ in range(max(length, 0))],)


def edge_cases(args, *, n):
    """Which named edges an input hits: used by `eddy templates validate --strength`."""
    (values,) = args
    hit = ["empty"] if not values else []
    if len(values) < n:
        hit.append("shorter_than_n")
    elif len(values) == n:
        hit.append("exactly_n")
    else:
        hit.append("longer_than_n")
    return hit


def mutant_negative_slice(values, *, n):
    return values[-n:]


def mutant_off_by_one(values, *, n):
    return values[len(values) - n + 1:] if n > 0 else []


def mutant_unclamped_start(values, *, n):
    return values[len(values) - n:] if n > 0 else []


def mutant_first_n(values, *, n):
    return values[:n]
