"""Oracle for math_factorial_base_zeros: the exponent of b in n! for any base b >= 2."""


def solution(n, *, b):
    best = None
    rest = b
    p = 2
    while rest > 1:
        if p * p > rest:
            p = rest
        if rest % p == 0:
            power = 0
            while rest % p == 0:
                rest //= p
                power += 1
            count, q = 0, p
            while q <= n:
                count += n // q
                q *= p
            best = count // power if best is None else min(best, count // power)
        p += 1
    return best


def tests(*, b):
    # Independent of solution(): compute n! and divide by b while it divides.
    import math

    for n in sorted({0, 1, b - 1, b, b + 1, 2 * b, 25, 100}):
        f = math.factorial(n)
        e = 0
        while f % b == 0:
            f //= b
            e += 1
        yield (n,), e


def inputs(rng, *, b):
    return (rng.choice([0, 1, b - 1, b, b + 1, rng.randint(0, 60), rng.randint(0, 400)]),)


def edge_cases(args, *, b):
    n, = args
    hit = ["zero"] if n == 0 else []
    if n < b:
        hit.append("below_range")
    if n == b:
        hit.append("lower_bound")
    return hit


def mutant_largest_prime_only(n, *, b):
    p, rest, largest = 2, b, 1
    while rest > 1:
        while rest % p == 0:
            rest //= p
            largest = p
        p += 1
    count, q = 0, largest
    while q <= n:
        count += n // q
        q *= largest
    return count


def mutant_base_as_prime(n, *, b):
    count, q = 0, b
    while q <= n:
        count += n // q
        q *= b
    return count


def mutant_single_division(n, *, b):
    return n // b


def mutant_ignores_multiplicity(n, *, b):
    best, rest, p = None, b, 2
    while rest > 1:
        if rest % p == 0:
            while rest % p == 0:
                rest //= p
            count, q = 0, p
            while q <= n:
                count += n // q
                q *= p
            best = count if best is None else min(best, count)
        p += 1
    return best


def mutant_previous_factorial(n, *, b):
    import math

    f = math.factorial(max(n - 1, 0))
    e = 0
    while f % b == 0:
        f //= b
        e += 1
    return e
