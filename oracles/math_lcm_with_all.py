"""Oracle for lcm_with_all: least common multiple seeded with k."""


def solution(values, *, k):
    import math

    result = k
    for v in values:
        result = result * v // math.gcd(result, v)
    return result


def tests(*, k):
    yield ([],), k
    yield ([1],), k
    yield ([k],), k
    yield ([k, k, 1],), k
    yield ([2 * k],), 2 * k
    yield ([3 * k, 2 * k],), 6 * k
    # a prime larger than every k multiplies the answer
    yield ([1009],), 1009 * k
    yield ([1009, 1013],), 1009 * 1013 * k
    # divisors of k never change it
    yield ([d for d in range(1, k + 1) if k % d == 0][-6:],), k


def inputs(rng, *, k):
    divisors = [d for d in range(1, min(k, 400) + 1) if k % d == 0] or [1]
    values = []
    for _ in range(rng.randint(0, 4)):
        r = rng.random()
        if r < 0.35:
            values.append(rng.choice(divisors))
        elif r < 0.55:
            values.append(k * rng.randint(1, 4))
        else:
            values.append(rng.randint(1, 60))
    return (values,)


def mutant_product(values, *, k):
    result = k
    for v in values:
        result *= v
    return result


def mutant_ignores_k(values, *, k):
    import math

    result = 1
    for v in values:
        result = result * v // math.gcd(result, v)
    return result


def mutant_gcd_instead(values, *, k):
    import math

    result = k
    for v in values:
        result = math.gcd(result, v)
    return result


def mutant_max_instead(values, *, k):
    return max([k] + list(values))
