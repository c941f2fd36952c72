"""Oracle for list_count_divisible_from: counting with an index bound and a value test."""


def solution(values, *, start, d):
    return sum(1 for i in range(start, len(values)) if values[i] % d == 0)


def tests(*, start, d):
    yield ([],), 0
    yield ([d] * start,), 0                      # everything is before index start
    yield ([d] * (start + 1),), 1                # exactly one element at index start
    tail = [0, -d, d + 1, 3 * d, -2 * d - 1]
    prefix = [d * i for i in range(start)]       # multiples, but too early to count
    # 0, -d and 3d always count; d + 1 and -2d - 1 only when d == 1.
    yield (prefix + tail,), (3 if d > 1 else 5)
    yield ([1] * start + [d * 7, 2 * d + 1],), (1 if d > 1 else 2)


def inputs(rng, *, start, d):
    length = rng.choice([0, start, start + 1, start + 2, rng.randint(0, start + 8)])
    return ([rng.randint(-3 * d - 2, 3 * d + 2) for _ in range(length)],)


def edge_cases(args, *, start, d):
    values, = args
    if not values:
        return ["empty"]
    if len(values) <= start:
        return ["out_of_range"]
    hit = []
    if values[start] % d == 0:
        hit.append("lower_bound")
    if 0 in values[start:]:
        hit.append("zero")
    return hit


def mutant_after_start(values, *, start, d):
    return sum(1 for i in range(start + 1, len(values)) if values[i] % d == 0)


def mutant_ignores_start(values, *, start, d):
    return sum(1 for x in values if x % d == 0)


def mutant_skips_zero(values, *, start, d):
    return sum(1 for x in values[start:] if x != 0 and x % d == 0)


def mutant_positive_only(values, *, start, d):
    return sum(1 for x in values[start:] if x >= 0 and x % d == 0)


def mutant_before_start(values, *, start, d):
    return sum(1 for x in values[:start] if x % d == 0)
