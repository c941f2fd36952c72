"""Oracle for set_shifted_subset: {x + k for x in a} is a subset of b."""


def solution(a, b, *, k):
    return {x + k for x in a} <= b


def tests(*, k):
    a = {1, 5, 20}
    exact = {1 + k, 5 + k, 20 + k}
    yield (a, exact), True                          # equal after the shift
    yield (a, exact | {1000}), True                 # strict subset
    yield (a, exact - {5 + k}), False               # one element missing
    yield (set(), set()), True
    yield (set(), {3}), True
    yield ({0}, {k}), True
    yield ({0}, {k + 1}), False
    if k != 0:
        yield (a, a), False                         # unshifted a is not enough
        yield (a, {1 - k, 5 - k, 20 - k}), False    # shifted the wrong way


def inputs(rng, *, k):
    a = {rng.randint(-20, 20) for _ in range(rng.randint(0, 6))}
    b = {x + k for x in a} | {rng.randint(-40, 40) for _ in range(rng.randint(0, 3))}
    roll = rng.random()
    if roll < 0.3 and b:
        b.discard(rng.choice(sorted(b)))
    elif roll < 0.4:
        b = {x + k for x in a}
    return (a, b)


def mutant_shift_wrong_way(a, b, *, k):
    return {x - k for x in a} <= b


def mutant_proper_subset(a, b, *, k):
    return {x + k for x in a} < b


def mutant_superset(a, b, *, k):
    return {x + k for x in a} >= b


def mutant_any_element(a, b, *, k):
    return not a or any(x + k in b for x in a)
