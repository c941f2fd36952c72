"""Oracle for math_shifted_power_sum: a partial sum of a shifted p-series, as a float."""


def solution(n, *, c, p):
    total = 0.0
    for i in range(1, n + 1):
        total += 1 / (i + c) ** p
    return total


def tests(*, c, p):
    # Exact fractions, converted once (independent of float summation).
    from fractions import Fraction

    for n in (0, 1, 2, 3, 10, 57):
        yield (n,), float(sum(Fraction(1, (i + c) ** p) for i in range(1, n + 1)))


def inputs(rng, *, c, p):
    return (rng.choice([0, 1, 2, rng.randint(0, 30), rng.randint(0, 500)]),)


def edge_cases(args, *, c, p):
    n, = args
    return ["zero"] if n == 0 else (["single"] if n == 1 else [])


def mutant_starts_at_zero(n, *, c, p):
    return sum(1 / (i + c) ** p for i in range(0, n + 1)) if c > 0 else sum(1 / (i + 1) ** p for i in range(0, n + 1))


def mutant_stops_before_n(n, *, c, p):
    return float(sum(1 / (i + c) ** p for i in range(1, n)))


def mutant_ignores_power(n, *, c, p):
    return float(sum(1 / (i + c) for i in range(1, n + 1)))


def mutant_shift_outside_power(n, *, c, p):
    return float(sum(1 / (i ** p + c) for i in range(1, n + 1)))


def mutant_integer_division(n, *, c, p):
    return float(sum(1 // (i + c) ** p for i in range(1, n + 1)))
