"""Oracle for set_common_at_least: intersection filtered by an inclusive lower bound."""


def solution(a, b, *, t):
    return {x for x in a & b if x >= t}


def tests(*, t):
    yield ({t - 1, t, t + 1}, {t - 1, t, t + 1}), {t, t + 1}   # t itself is kept, t - 1 is not
    yield ({t, t + 5}, {t + 5, t + 9}), {t + 5}
    yield ({t}, {t + 1}), set()
    yield (set(), {t}), set()
    yield ({t + 1, t + 2}, set()), set()
    yield ({t - 3, t + 3}, {t - 3, t + 3, t + 4}), {t + 3}


def inputs(rng, *, t):
    pool = list(range(t - 4, t + 5))
    return ({rng.choice(pool) for _ in range(rng.randint(0, 7))}, {rng.choice(pool) for _ in range(rng.randint(0, 7))})


def mutant_strictly_greater(a, b, *, t):
    return {x for x in a & b if x > t}


def mutant_union(a, b, *, t):
    return {x for x in a | b if x >= t}


def mutant_only_first_set(a, b, *, t):
    return {x for x in a if x >= t}


def mutant_at_most(a, b, *, t):
    return {x for x in a & b if x <= t}
