"""Oracle for copy_between_exclusive: a sublist with both index bounds excluded."""

# The question forbids modifying the arguments: the judge fails a call that changes them.
KEEP_ARGUMENTS = True
# The question asks for a new object: an answer that returns (or holds) its argument object fails.
NEW_OBJECT = True


def solution(values, *, lo, hi):
    return [v for i, v in enumerate(values) if lo < i < hi]


def tests(*, lo, hi):
    inside = list(range(lo + 1, hi))  # indices strictly between the bounds
    yield ([],), []
    yield (list(range(hi + 3)),), inside
    yield ([10 * i for i in range(hi + 1)],), [10 * i for i in inside]
    yield (list(range(hi)),), inside
    yield (list(range(lo + 1)),), []
    if hi - lo >= 2:
        yield (list(range(lo + 2)),), [lo + 1]


def inputs(rng, *, lo, hi):
    length = rng.choice([0, lo, lo + 1, lo + 2, hi - 1, hi, hi + 1, rng.randint(0, hi + 5)])
    return ([rng.randint(-99, 99) for _ in range(max(length, 0))],)


def mutant_inclusive_lo(values, *, lo, hi):
    return values[lo:hi]


def mutant_inclusive_hi(values, *, lo, hi):
    return values[lo + 1:hi + 1]


def mutant_both_inclusive(values, *, lo, hi):
    return values[lo:hi + 1]


def mutant_shifted_window(values, *, lo, hi):
    return values[lo + 1:hi - 1]
