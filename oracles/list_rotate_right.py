"""Oracle for list_rotate_right: circular shift to the right by k."""

# The question forbids modifying the arguments: the judge fails a call that changes them.
KEEP_ARGUMENTS = True


def solution(values, *, k):
    if not values:
        return []
    k %= len(values)
    return values[len(values) - k:] + values[:len(values) - k]


def tests(*, k):
    # Expected: element i lands at (i + k) mod n, placed one by one.
    for n in (1, 2, 3, 5, k, k + 1, max(k - 1, 1), 2 * k + 3):
        if n <= 0:
            continue
        values = [10 * i for i in range(n)]
        expected = [None] * n
        for i, v in enumerate(values):
            expected[(i + k) % n] = v
        yield (values,), expected
    yield ([],), []


def inputs(rng, *, k):
    length = rng.choice([0, 1, k, k + 1, max(k - 1, 0), rng.randint(0, 2 * k + 5)])
    return ([rng.randint(0, 9) for _ in range(length)],)


def mutant_rotates_left(values, *, k):
    if not values:
        return []
    k %= len(values)
    return values[k:] + values[:k]


def mutant_no_wraparound(values, *, k):
    return values[-k:] + values[:-k]


def mutant_no_empty_guard(values, *, k):
    k %= len(values)
    return values[len(values) - k:] + values[:len(values) - k]


def mutant_one_extra_step(values, *, k):
    if not values:
        return []
    k = (k + 1) % len(values)
    return values[len(values) - k:] + values[:len(values) - k]
