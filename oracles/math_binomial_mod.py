"""Oracle for math_binomial_mod: binomial coefficients modulo m, exact for large n."""


def solution(n, *, k, m):
    import math

    return math.comb(n, k) % m


def _pascal(n, k):
    # Independent of math.comb: build row n of Pascal's triangle.
    row = [1]
    for _ in range(n):
        row = [1] + [row[i] + row[i + 1] for i in range(len(row) - 1)] + [1]
    return row[k] if k <= n else 0


def tests(*, k, m):
    for n in sorted({0, 1, k - 1 if k else 0, k, k + 1, k + 5, 2 * k + 3, 40, 120}):
        yield (n,), _pascal(n, k) % m


def inputs(rng, *, k, m):
    return (rng.choice([0, k, k + 1, max(k - 1, 0), rng.randint(0, 60), rng.randint(100, 300)]),)


def edge_cases(args, *, k, m):
    n, = args
    hit = ["zero"] if n == 0 else []
    if n < k:
        hit.append("below_range")
    if n == k:
        hit.append("equal_bounds")
    return hit


def mutant_no_modulus(n, *, k, m):
    import math

    return math.comb(n, k)


def mutant_arrangements(n, *, k, m):
    import math

    return math.perm(n, k) % m


def mutant_k_minus_one(n, *, k, m):
    import math

    return math.comb(n, max(k - 1, 0)) % m


def mutant_float_factorials(n, *, k, m):
    import math

    if k > n:
        return 0
    return int(math.factorial(n) / (math.factorial(k) * math.factorial(n - k))) % m


def mutant_n_plus_one(n, *, k, m):
    import math

    return math.comb(n + 1, k) % m
