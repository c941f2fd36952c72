"""Oracle for recurrence_term: a Fibonacci-like sequence with chosen seeds, numbered from 0."""

# Fibonacci numbers F(0..): t(n) = first * F(n-1) + second * F(n) for n >= 1
_FIB = [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987]


def solution(n, *, first, second):
    a, b = first, second
    for _ in range(n):
        a, b = b, a + b
    return a


def tests(*, first, second):
    yield (0,), first
    yield (1,), second
    yield (2,), first + second
    yield (3,), first + 2 * second
    for n in range(4, len(_FIB)):
        yield (n,), first * _FIB[n - 1] + second * _FIB[n]


def inputs(rng, *, first, second):
    return (rng.choice([0, 1, 2, 3, rng.randint(0, 20), rng.randint(0, 60)]),)


def mutant_one_based(n, *, first, second):
    a, b = first, second
    for _ in range(n - 1):
        a, b = b, a + b
    return a


def mutant_one_step_ahead(n, *, first, second):
    a, b = first, second
    for _ in range(n):
        a, b = b, a + b
    return b


def mutant_swapped_seeds(n, *, first, second):
    a, b = second, first
    for _ in range(n):
        a, b = b, a + b
    return a


def mutant_wrong_base_case(n, *, first, second):
    if n <= 1:
        return first
    a, b = first, second
    for _ in range(n):
        a, b = b, a + b
    return a
