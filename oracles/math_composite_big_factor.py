"""Oracle for math_composite_big_factor: composite numbers with a prime factor above k."""


def solution(n, *, k):
    largest = 1
    rest = n
    p = 2
    while p * p <= rest:
        while rest % p == 0:
            largest = p
            rest //= p
        p += 1
    if rest > 1:
        largest = max(largest, rest)
    is_composite = n > 1 and largest != n
    return is_composite and largest > k


def _next_prime(x):
    x = max(x, 2)
    while any(x % f == 0 for f in range(2, int(x ** 0.5) + 1)):
        x += 1
    return x


def tests(*, k):
    p = _next_prime(k + 1)        # the smallest prime above k
    q = _next_prime(k)            # equals k when k is prime
    yield (1,), False
    yield (p,), False             # prime, though above k
    yield (2 * p,), True
    yield (p * p,), True
    yield (4,), 2 > k
    if q == k:
        yield (2 * k,), False        # prime factors 2 and k: none strictly above k
    yield (2 ** 10,), 2 > k
    yield (6 * p,), True
    yield (3 * 5 * 7,), 7 > k


def inputs(rng, *, k):
    r = rng.random()
    if r < 0.05:
        return (1,)
    if r < 0.3:
        return (_next_prime(rng.randint(1, k + 40)),)
    if r < 0.6:
        return (_next_prime(rng.randint(max(k - 3, 1), k + 5)) * rng.randint(1, 6),)
    return (rng.randint(1, 3 * k + 50),)


def edge_cases(args, *, k):
    n, = args
    if n == 1:
        return ["one"]
    return ["composite"] if any(n % f == 0 for f in range(2, int(n ** 0.5) + 1)) else ["prime"]


def mutant_at_least_k(n, *, k):
    largest, rest, p = 1, n, 2
    while p * p <= rest:
        while rest % p == 0:
            largest, rest = p, rest // p
        p += 1
    largest = max(largest, rest) if rest > 1 else largest
    return n > 1 and largest != n and largest >= k


def mutant_accepts_primes(n, *, k):
    largest, rest, p = 1, n, 2
    while p * p <= rest:
        while rest % p == 0:
            largest, rest = p, rest // p
        p += 1
    largest = max(largest, rest) if rest > 1 else largest
    return n > 1 and largest > k


def mutant_any_divisor(n, *, k):
    is_composite = n > 3 and any(n % f == 0 for f in range(2, int(n ** 0.5) + 1))
    return is_composite and n > k


def mutant_smallest_factor(n, *, k):
    p = 2
    while p * p <= n and n % p:
        p += 1
    smallest = p if p * p <= n else n
    return n > 1 and smallest != n and smallest > k


def mutant_ignores_k(n, *, k):
    return n > 3 and any(n % f == 0 for f in range(2, int(n ** 0.5) + 1))
