"""Oracle for list_insert_at: insert one value at a position, appending when past the end."""

# The question forbids modifying the arguments: the judge fails a call that changes them.
KEEP_ARGUMENTS = True


def solution(values, *, x, pos):
    out = list(values)
    out.insert(pos, x)
    return out


def tests(*, x, pos):
    # Expected lists built by hand from ranges rather than by list.insert.
    n = pos + 3
    base = [1000 + i for i in range(n)]
    yield (base,), [1000 + i for i in range(pos)] + [x] + [1000 + i for i in range(pos, n)]
    yield ([],), [x]
    yield ([1000 + i for i in range(pos)],), [1000 + i for i in range(pos)] + [x]       # length == pos: goes last
    yield ([1000 + i for i in range(pos + 1)],), [1000 + i for i in range(pos)] + [x, 1000 + pos]
    if pos > 0:
        yield ([1000 + i for i in range(pos - 1)],), [1000 + i for i in range(pos - 1)] + [x]  # too short: appended


def inputs(rng, *, x, pos):
    length = rng.choice([0, pos - 1, pos, pos + 1, rng.randint(0, pos + 5)])
    return ([rng.randint(-9, 9) for _ in range(max(length, 0))],)


def mutant_after_pos(values, *, x, pos):
    out = list(values)
    out.insert(pos + 1, x)
    return out


def mutant_replaces(values, *, x, pos):
    return values[:pos] + [x] + values[pos + 1:]


def mutant_ignores_short_list(values, *, x, pos):
    if pos > len(values):
        return list(values)
    return values[:pos] + [x] + values[pos:]


def mutant_before_pos(values, *, x, pos):
    out = list(values)
    out.insert(max(pos - 1, 0), x)
    return out
