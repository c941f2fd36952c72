"""Oracle for divide_round_half_away: integer rounding with ties away from zero."""


def solution(n, *, d):
    q, r = divmod(abs(n), d)
    if 2 * r >= d:
        q += 1
    return q if n >= 0 else -q


def tests(*, d):
    yield (0,), 0
    yield (d,), 1
    yield (-d,), -1
    yield (7 * d,), 7
    yield (-7 * d,), -7
    if d % 2 == 0:
        half = d // 2
        yield (half,), 1  # exactly 0.5
        yield (-half,), -1
        yield (5 * d + half,), 6  # exactly 5.5
        yield (-5 * d - half,), -6
        yield (2 * d + half,), 3  # 2.5: banker's rounding would give 2
        yield (-2 * d - half,), -3
    if d >= 3:
        yield (d // 2 - (1 if d % 2 == 0 else 0),), 0  # just below one half
        yield (d // 2 + 1,), 1  # just above one half
        yield (-(d // 2 + 1),), -1
        yield (3 * d - 1,), 3
        yield (-3 * d + 1,), -3


def inputs(rng, *, d):
    r = rng.random()
    if r < 0.5:
        base = d * rng.randint(-20, 20)
        offset = rng.choice([d // 2, (d + 1) // 2, d // 2 - 1, d // 2 + 1, 0, 1, -1])
        return (base + rng.choice([offset, -offset]),)
    if r < 0.8:
        return (rng.randint(-5 * d, 5 * d),)
    return (rng.randint(-10 ** 6, 10 ** 6),)


def edge_cases(args, *, d):
    """Which named edges an input hits: used by `eddy templates validate --strength`."""
    (n,) = args
    hit = ["zero"] if n == 0 else []
    if n < 0:
        hit.append("negative")
    if n % d == 0:
        hit.append("exact_multiple")
    if 2 * (abs(n) % d) == d:
        hit.append("exact_half")
    return hit


def mutant_bankers_round(n, *, d):
    return round(n / d)


def mutant_floor_half_up(n, *, d):
    return (n + d // 2) // d


def mutant_add_half_truncate(n, *, d):
    return int(n / d + 0.5)


def mutant_ties_toward_zero(n, *, d):
    q, r = divmod(abs(n), d)
    if 2 * r > d:
        q += 1
    return q if n >= 0 else -q
