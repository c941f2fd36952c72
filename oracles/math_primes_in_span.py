"""Oracle for primes_in_span: primes in a closed interval, with 0, 1, 2 and squares as traps."""

_SMALL_PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97]


def solution(a, *, width):
    def is_prime(n):
        if n < 2:
            return False
        d = 2
        while d * d <= n:
            if n % d == 0:
                return False
            d += 1
        return True

    return [p for p in range(a, a + width + 1) if is_prime(p)]


def _sieve(limit):
    flags = [True] * (limit + 1)
    flags[0:2] = [False, False]
    for i in range(2, int(limit ** 0.5) + 1):
        if flags[i]:
            flags[i * i::i] = [False] * len(flags[i * i::i])
    return [i for i, f in enumerate(flags) if f]


def tests(*, width):
    primes = _sieve(1200 + width)

    def expect(a):
        return [p for p in primes if a <= p <= a + width]

    for a in (-width - 1, -width, -1, 0, 1, 2, 3, 4, 9, 24, 25, 48, 97, 120, 1000):
        yield (a,), expect(a)
    # hand-checked values that do not depend on the sieve
    yield (-width - 5,), []
    if width == 0:
        yield (97,), [97]
        yield (1,), []
        yield (2,), [2]
    elif 6 <= width <= 97:
        yield (0,), [p for p in _SMALL_PRIMES if p <= width]


def inputs(rng, *, width):
    r = rng.random()
    if r < 0.3:
        return (rng.randint(-width - 3, 5),)
    if r < 0.6:
        # start or end exactly on a prime or a prime square
        anchor = rng.choice([2, 3, 5, 7, 11, 13, 4, 9, 25, 49, 121, 169, 97, 101])
        return (rng.choice([anchor, anchor - width, anchor + 1, anchor - width - 1]),)
    return (rng.randint(-20, 1000),)


def mutant_exclusive_end(a, *, width):
    def is_prime(n):
        return n >= 2 and all(n % d for d in range(2, int(n ** 0.5) + 1))

    return [p for p in range(a, a + width) if is_prime(p)]


def mutant_one_is_prime(a, *, width):
    def is_prime(n):
        return n >= 1 and all(n % d for d in range(2, int(n ** 0.5) + 1))

    return [p for p in range(a, a + width + 1) if is_prime(p)]


def mutant_sqrt_bound_exclusive(a, *, width):
    def is_prime(n):
        return n >= 2 and all(n % d for d in range(2, int(n ** 0.5)))

    return [p for p in range(a, a + width + 1) if is_prime(p)]


def mutant_two_excluded(a, *, width):
    def is_prime(n):
        return n > 2 and all(n % d for d in range(2, int(n ** 0.5) + 1))

    return [p for p in range(a, a + width + 1) if is_prime(p)]
