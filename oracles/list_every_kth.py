"""Oracle for list_every_kth: an extended slice with a start and a step."""

# The question forbids modifying the arguments: the judge fails a call that changes them.
KEEP_ARGUMENTS = True


def solution(values, *, start, step):
    return values[start::step]


def tests(*, start, step):
    n = start + 3 * step + 2
    values = list(range(100, 100 + n))
    # Expected positions listed by a counting loop, independently of slicing.
    expected, pos = [], start
    while pos < n:
        expected.append(100 + pos)
        pos += step
    yield (values,), expected
    yield ([],), []
    yield (list(range(start)),), []                   # exactly `start` elements: nothing to take
    yield (list(range(start + 1)),), [start]          # one more: only the start element
    yield (["x"] * (start + step),), ["x"]            # the second position is one past the end
    yield (["y"] * (start + step + 1),), ["y", "y"]   # ... and here exactly the last index


def inputs(rng, *, start, step):
    length = rng.choice([0, start, start + 1, start + step, start + step + 1, rng.randint(0, start + 4 * step + 3)])
    return ([rng.randint(-50, 50) for _ in range(length)],)


def mutant_start_off_by_one(values, *, start, step):
    return values[start + 1::step]


def mutant_ignores_start(values, *, start, step):
    return values[::step]


def mutant_one_based_start(values, *, start, step):
    return values[max(start - 1, 0)::step]


def mutant_step_plus_one(values, *, start, step):
    return values[start::step + 1]


def mutant_inclusive_end(values, *, start, step):
    out, pos = [], start
    while pos <= len(values):
        out.append(values[pos])
        pos += step
    return out
