"""Oracle for copy_stride_inclusive: a strided sublist whose stop index is inclusive."""

# The question forbids modifying the arguments: the judge fails a call that changes them.
KEEP_ARGUMENTS = True
# The question asks for a new object: an answer that returns (or holds) its argument object fails.
NEW_OBJECT = True


def solution(values, *, start, stop, step):
    return [values[i] for i in range(start, min(stop, len(values) - 1) + 1, step)]


def tests(*, start, stop, step):
    picked = []
    i = start
    while i <= stop:
        picked.append(i)
        i += step
    yield ([],), []
    yield (list(range(stop + 2)),), picked
    yield ([i * 3 for i in range(stop + 1)],), [i * 3 for i in picked]
    yield (list(range(start)),), []
    yield (list(range(start + 1)),), [start]
    yield ([-1] * (stop + 7),), [-1] * len(picked)


def inputs(rng, *, start, stop, step):
    length = rng.choice([0, start, start + 1, stop, stop + 1, stop + step, rng.randint(0, stop + 2 * step + 2)])
    return ([rng.randint(-99, 99) for _ in range(max(length, 0))],)


def mutant_exclusive_stop(values, *, start, stop, step):
    return values[start:stop:step]


def mutant_ignores_stop(values, *, start, stop, step):
    return values[start::step]


def mutant_ignores_step(values, *, start, stop, step):
    return values[start:stop + 1]


def mutant_starts_at_step(values, *, start, stop, step):
    return values[start + step:stop + 1:step]
