"""Oracle for set_proper_subset_mod: a strict subset test on remainder sets."""


def solution(a, b, *, m):
    ra = {x % m for x in a}
    rb = {y % m for y in b}
    return ra < rb


def _residues(values, m):
    # Independent of %: subtract or add m until the value lands in 0..m-1.
    out = set()
    for x in values:
        while x < 0:
            x += m
        while x >= m:
            x -= m
        out.add(x)
    return out


def tests(*, m):
    def expected(a, b):
        ra, rb = _residues(a, m), _residues(b, m)
        return all(r in rb for r in ra) and len(ra) < len(rb)

    cases = [
        (set(), set()),
        (set(), {5}),
        ({1}, {1 + m}),                       # equal remainder sets: not proper
        ({1}, {1 + m, 2}),
        ({-1}, {m - 1, 0}),                   # -1 % m is m - 1
        ({-1}, {1, 0}),
        ({0, m, 2 * m}, {0, 3}),
        ({3, 4}, {3}),
        (set(range(-5, 5)), set(range(-5, 6))),
    ]
    for a, b in cases:
        yield (set(a), set(b)), expected(a, b)


def inputs(rng, *, m):
    spread = rng.choice([3, m + 2, 2 * m + 3])
    b = {rng.randint(-spread, spread) for _ in range(rng.randint(0, 6))}
    a = {x + m * rng.randint(-2, 2) for x in b if rng.random() < 0.7}
    if rng.random() < 0.3:
        a.add(rng.randint(-spread, spread))
    return (a, b)


def edge_cases(args, *, m):
    a, b = args
    hit = ["empty"] if not a else []
    if {x % m for x in a} == {y % m for y in b}:
        hit.append("equal_residues")
    if any(x < 0 for x in a | b):
        hit.append("negative")
    return hit


def mutant_allows_equal(a, b, *, m):
    return {x % m for x in a} <= {y % m for y in b}


def mutant_ignores_modulus(a, b, *, m):
    return a < b


def mutant_reversed(a, b, *, m):
    return {x % m for x in a} > {y % m for y in b}


def mutant_c_style_remainder(a, b, *, m):
    import math

    return {int(math.fmod(x, m)) for x in a} < {int(math.fmod(y, m)) for y in b}


def mutant_compares_sizes(a, b, *, m):
    return len({x % m for x in a}) < len({y % m for y in b})
