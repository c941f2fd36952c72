"""Oracle for set_add_shifted_evens: a one-step image of the even elements, added to the set."""

KEEP_ARGUMENTS = True


def solution(items, *, k):
    return frozenset(items) | frozenset(x + k for x in items if x % 2 == 0)


def tests(*, k):
    yield (set(),), frozenset()
    yield ({1, 3},), frozenset({1, 3})
    yield ({0},), frozenset({0, k})
    yield ({-4, 7},), frozenset({-4, 7, -4 + k})
    yield ({2, 4, 5},), frozenset({2, 4, 5, 2 + k, 4 + k})
    yield ({10, 10 + k},), frozenset({10, 10 + k, 10 + 2 * k} if (10 + k) % 2 == 0 else {10, 10 + k})


def inputs(rng, *, k):
    size = rng.choice([0, 1, rng.randint(0, 7)])
    return ({rng.randint(-12, 12) for _ in range(size)},)


def edge_cases(args, *, k):
    items, = args
    if not items:
        return ["empty"]
    hit = ["zero"] if 0 in items else []
    if any(x < 0 and x % 2 == 0 for x in items):
        hit.append("negative")
    if any(x % 2 == 0 and x + k in items for x in items):
        hit.append("collision")
    return hit


def mutant_plain_set(items, *, k):
    return set(items) | {x + k for x in items if x % 2 == 0}


def mutant_shifts_all(items, *, k):
    return frozenset(items) | frozenset(x + k for x in items)


def mutant_shifts_odds(items, *, k):
    return frozenset(items) | frozenset(x + k for x in items if x % 2 == 1)


def mutant_drops_originals(items, *, k):
    return frozenset(x + k if x % 2 == 0 else x for x in items)


def mutant_closure(items, *, k):
    out = set(items)
    frontier = [x for x in items if x % 2 == 0]
    steps = 0
    while frontier and steps < 3:
        nxt = [x + k for x in frontier]
        out.update(nxt)
        frontier = [x for x in nxt if x % 2 == 0]
        steps += 1
    return frozenset(out)
