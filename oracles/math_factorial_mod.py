"""Oracle for factorial_mod: n! mod m, with 0!, 1! and m = 1 as edge cases."""

_FACTORIALS = [1, 1, 2, 6, 24, 120, 720, 5040, 40320, 362880, 3628800]


def solution(n, *, m):
    result = 1 % m
    for i in range(2, n + 1):
        result = result * i % m
    return result


def tests(*, m):
    for n, f in enumerate(_FACTORIALS):
        yield (n,), f % m
    # n >= m means m divides n! (m is one of the factors)
    for n in (m, m + 1, m + 7):
        yield (n,), 0
    if m > 1:
        yield (m - 1,), _wilson(m)


def _wilson(m):
    """(m-1)! mod m: m-1 for a prime m, 2 for m = 4, else 0 (Wilson's theorem and its converse)."""
    if m == 4:
        return 2
    if all(m % d for d in range(2, int(m ** 0.5) + 1)):
        return m - 1
    return 0


def inputs(rng, *, m):
    r = rng.random()
    if r < 0.4:
        return (rng.randint(0, 12),)
    if r < 0.7:
        return (max(0, m + rng.randint(-3, 1)),)
    return (rng.randint(0, 1100),)


def mutant_excludes_n(n, *, m):
    result = 1
    for i in range(1, n):
        result = result * i % m
    return result


def mutant_zero_factorial_is_zero(n, *, m):
    if n == 0:
        return 0
    result = 1
    for i in range(1, n + 1):
        result = result * i % m
    return result


def mutant_unreduced_small_n(n, *, m):
    if n <= 1:
        return 1
    result = 1
    for i in range(2, n + 1):
        result = result * i % m
    return result


def mutant_one_extra_factor(n, *, m):
    result = 1
    for i in range(1, n + 2):
        result = result * i % m
    return result
