"""Oracle for set_union_first_n: union of a prefix of a list of sets."""

# The question forbids modifying the arguments: the judge fails a call that changes them.
KEEP_ARGUMENTS = True


def solution(sets, *, n):
    out = set()
    for s in sets[:n]:
        out |= s
    return out


def tests(*, n):
    # Set i holds just the number i, so the union of the first m sets is range(m).
    singles = [{i} for i in range(n + 3)]
    yield (singles,), set(range(n))
    yield ([],), set()
    yield ([{i} for i in range(n)],), set(range(n))                # exactly n sets
    if n > 0:
        yield ([{i} for i in range(n - 1)],), set(range(n - 1))    # fewer than n sets: all of them
        yield ([{1, 2}, {2, 3}] + [set()] * n,), {1, 2, 3} if n >= 2 else {1, 2}
    yield ([{7}] * (n + 1),), {7} if n > 0 else set()


def inputs(rng, *, n):
    count = max(rng.choice([0, n - 1, n, n + 1, rng.randint(0, n + 4)]), 0)

    def random_set():
        return {rng.randint(0, 3 * n + 5) for _ in range(rng.randint(0, 3))}

    if count <= 30:
        return ([random_set() for _ in range(count)],)
    # Long lists: a cheap pattern (some sets empty) with random sets around index n, where the
    # boundary is, so a thousand-set input costs a few random draws, not thousands.
    off = rng.randint(0, 50)
    sets = [set() if i % 5 == 0 else {(7 * i + off) % (3 * n + 5)} for i in range(count)]
    for i in range(max(0, n - 3), min(count, n + 3)):
        sets[i] = random_set()
    return (sets,)


def mutant_one_extra_set(sets, *, n):
    out = set()
    for s in sets[:n + 1]:
        out |= s
    return out


def mutant_skips_first(sets, *, n):
    out = set()
    for s in sets[1:n + 1]:
        out |= s
    return out


def mutant_intersection(sets, *, n):
    chosen = sets[:n]
    return set.intersection(*chosen) if chosen else set()


def mutant_indexes_blindly(sets, *, n):
    out = set()
    for i in range(n):
        out |= sets[i]
    return out
