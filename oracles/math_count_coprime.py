"""Oracle for count_coprime: gcd with zero, one and negatives as edge cases."""


def solution(values, *, k):
    import math

    return sum(1 for x in values if math.gcd(x, k) == 1)


def _prime_factors(n):
    out, d = set(), 2
    while d * d <= n:
        while n % d == 0:
            out.add(d)
            n //= d
        d += 1
    if n > 1:
        out.add(n)
    return out


def tests(*, k):
    factors = _prime_factors(k)

    def coprime(x):
        # coprime iff no prime factor of k divides x (independent of math.gcd)
        return all(x % p != 0 for p in factors)

    yield ([],), 0
    yield ([1, -1],), 2
    yield ([0],), (1 if k == 1 else 0)
    yield ([k, -k, 2 * k],), (3 if k == 1 else 0)
    yield ([k + 1, k - 1],), 2  # neighbours of k share no factor with it
    sample = list(range(-30, 31)) + [k * k + 1, 7 * k, 1001]
    yield (sample,), sum(1 for x in sample if coprime(x))
    if factors:
        p = min(factors)
        yield ([p, -p, p * p],), 0


def inputs(rng, *, k):
    values = []
    for _ in range(rng.randint(0, 12)):
        r = rng.random()
        if r < 0.2:
            values.append(rng.choice([0, 1, -1, k, -k]))
        elif r < 0.5:
            values.append(rng.randint(-5, 5) * rng.choice([2, 3, 5, 7, k]))
        else:
            values.append(rng.randint(-1000, 1000))
    return (values,)


def mutant_not_divisible(values, *, k):
    return sum(1 for x in values if x % k != 0)


def mutant_zero_always_coprime(values, *, k):
    import math

    return sum(1 for x in values if x == 0 or math.gcd(x, k) == 1)


def mutant_returns_the_elements(values, *, k):
    import math

    return [x for x in values if math.gcd(x, k) == 1]


def mutant_positive_only(values, *, k):
    import math

    return sum(1 for x in values if x > 0 and math.gcd(x, k) == 1)

