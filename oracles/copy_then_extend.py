"""Oracle for copy_then_extend: the copy grows, the original must not."""

# The question forbids modifying the arguments: the judge fails a call that changes them.
KEEP_ARGUMENTS = True


def solution(values, *, x, k):
    copy = list(values)
    copy.extend([x] * k)
    return [values, copy]


def tests(*, x, k):
    yield ([],), [[], [x] * k]
    yield ([1, 2, 3],), [[1, 2, 3], [1, 2, 3] + [x] * k]
    yield ([x],), [[x], [x] * (k + 1)]
    yield ([0] * 4,), [[0] * 4, [0] * 4 + [x] * k]


def inputs(rng, *, x, k):
    return ([rng.choice([x, rng.randint(-999, 999)]) for _ in range(rng.randint(0, 10))],)


def mutant_no_copy(values, *, x, k):
    values.extend([x] * k)
    return [values, values]


def mutant_one_fewer(values, *, x, k):
    copy = values[:]
    for _ in range(k - 1):
        copy.append(x)
    return [values, copy]


def mutant_appends_once(values, *, x, k):
    copy = values[:]
    if k:
        copy.append(x)
    return [values, copy]


def mutant_swapped_order(values, *, x, k):
    copy = values[:] + [x] * k
    return [copy, values]
