"""Oracle for count_multiples: closed-interval divisibility counting, negatives included."""


def solution(a, b, *, d):
    if a > b:
        return 0
    return b // d - (a - 1) // d


def tests(*, d):
    yield (0, 0), 1
    yield (1, d - 1), 0
    yield (d, d), 1
    yield (d + 1, d + 1), (1 if d == 1 else 0)
    yield (1, d), 1
    yield (0, d), 2
    yield (-d, d), 3
    yield (-d, -1), 1
    yield (d, 5 * d), 5
    yield (d, 5 * d - 1), 4
    yield (d + 1, 5 * d), 4
    yield (5, 4), 0
    yield (d, 0), 0  # a > b
    yield (-3 * d, -d), 3
    # brute force over a small range, independent of the closed form
    yield (-2 * d - 3, 2 * d + 3), sum(1 for x in range(-2 * d - 3, 2 * d + 4) if x % d == 0)


def inputs(rng, *, d):
    r = rng.random()
    if r < 0.5:
        # bounds on, or one away from, multiples of d
        a = d * rng.randint(-5, 5) + rng.choice([-1, 0, 0, 1])
        b = d * rng.randint(-5, 5) + rng.choice([-1, 0, 0, 1])
    else:
        a = rng.randint(-3000, 3000)
        b = a + rng.randint(-5, 3 * d + 5)
    return (a, b)


def edge_cases(args, *, d):
    """Which named edges an input hits: used by `eddy templates validate --strength`."""
    a, b = args
    hit = []
    if a == b:
        hit.append("equal_bounds")
    if a > b:
        hit.append("reversed_bounds")
    if a < 0:
        hit.append("negative")
    if a <= 0 <= b:
        hit.append("contains_zero")
    if a % d == 0 and b % d == 0:
        hit.append("on_multiples")
    return hit


def mutant_exclusive_b(a, b, *, d):
    if a > b:
        return 0
    return (b - 1) // d - (a - 1) // d


def mutant_floor_difference(a, b, *, d):
    if a > b:
        return 0
    return b // d - a // d


def mutant_no_empty_check(a, b, *, d):
    return b // d - (a - 1) // d


def mutant_truncating_division(a, b, *, d):
    if a > b:
        return 0
    return int(b / d) - int((a - 1) / d)
