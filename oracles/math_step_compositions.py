"""Oracle for math_step_compositions: ordered compositions of n with parts in [lo, hi]."""


def solution(n, *, lo, hi):
    ways = [0] * (n + 1)
    ways[0] = 1
    for total in range(1, n + 1):
        for step in range(lo, hi + 1):
            if step <= total:
                ways[total] += ways[total - step]
    return ways[n]


def _count(n, lo, hi):
    # Independent of solution(): count compositions by their number of parts with a memo.
    from functools import lru_cache

    @lru_cache(maxsize=None)
    def go(rest):
        if rest == 0:
            return 1
        return sum(go(rest - s) for s in range(lo, min(hi, rest) + 1))

    return go(n)


def tests(*, lo, hi):
    yield (0,), 1
    yield (lo,), 1                                   # one step of size lo; two steps are too long
    if lo > 1:
        yield (lo - 1,), 0                           # too small for any step
    yield (hi,), _count(hi, lo, hi)
    for n in (hi + 1, lo + hi, 2 * hi + 1, 30, 60):
        yield (n,), _count(n, lo, hi)


def inputs(rng, *, lo, hi):
    return (rng.choice([0, lo - 1, lo, hi, hi + 1, rng.randint(0, 20), rng.randint(0, 60)]),)


def edge_cases(args, *, lo, hi):
    n, = args
    if n == 0:
        return ["zero"]
    hit = ["below_range"] if n < lo else []
    if n == lo:
        hit.append("lower_bound")
    if n == hi:
        hit.append("upper_bound")
    return hit


def mutant_exclusive_hi(n, *, lo, hi):
    ways = [1] + [0] * n
    for total in range(1, n + 1):
        ways[total] = sum(ways[total - s] for s in range(lo, hi) if s <= total)
    return ways[n]


def mutant_zero_gives_zero(n, *, lo, hi):
    if n == 0:
        return 0
    ways = [1] + [0] * n
    for total in range(1, n + 1):
        ways[total] = sum(ways[total - s] for s in range(lo, hi + 1) if s <= total)
    return ways[n]


def mutant_unordered(n, *, lo, hi):
    ways = [1] + [0] * n
    for s in range(lo, hi + 1):
        for total in range(s, n + 1):
            ways[total] += ways[total - s]
    return ways[n]


def mutant_ignores_lo(n, *, lo, hi):
    ways = [1] + [0] * n
    for total in range(1, n + 1):
        ways[total] = sum(ways[total - s] for s in range(1, hi + 1) if s <= total)
    return ways[n]


def mutant_exclusive_lo(n, *, lo, hi):
    ways = [1] + [0] * n
    for total in range(1, n + 1):
        ways[total] = sum(ways[total - s] for s in range(lo + 1, hi + 1) if s <= total)
    return ways[n]
