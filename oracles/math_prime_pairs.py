"""Oracle for math_prime_pairs: prime pairs with a fixed gap, p in an inclusive window."""


def solution(a, *, g, w):
    def is_prime(x):
        if x < 2:
            return False
        d = 2
        while d * d <= x:
            if x % d == 0:
                return False
            d += 1
        return True

    return [(p, p + g) for p in range(a, a + w + 1) if is_prime(p) and is_prime(p + g)]


def _primes_below(limit):
    # Independent of solution(): a sieve of Eratosthenes.
    sieve = [True] * max(limit, 2)
    sieve[0] = sieve[1] = False
    for i in range(2, int(limit ** 0.5) + 1):
        if sieve[i]:
            for j in range(i * i, limit, i):
                sieve[j] = False
    return {i for i, ok in enumerate(sieve) if ok}


def tests(*, g, w):
    primes = _primes_below(3000)

    def expected(a):
        return [(p, p + g) for p in range(a, a + w + 1) if p in primes and p + g in primes]

    for a in (-w - 5, -1, 0, 1, 2, 3, 5, 11, 97, 1009 - w, 1000):
        yield (a,), expected(a)


def inputs(rng, *, g, w):
    return (rng.choice([-w, -1, 0, 1, 2, 3, rng.randint(-20, 200), rng.randint(0, 1500)]),)


def edge_cases(args, *, g, w):
    a, = args
    hit = ["negative"] if a < 0 else []
    if a == 0:
        hit.append("zero")

    def is_prime(x):
        return x >= 2 and all(x % f for f in range(2, int(x ** 0.5) + 1))

    if not any(is_prime(p) and is_prime(p + g) for p in range(a, a + w + 1)):
        hit.append("no_match")
    return hit


def mutant_pair_inside_range(a, *, g, w):
    def is_prime(x):
        return x >= 2 and all(x % d for d in range(2, int(x ** 0.5) + 1))

    return [(p, p + g) for p in range(a, a + w + 1) if is_prime(p) and is_prime(p + g) and p + g <= a + w]


def mutant_exclusive_end(a, *, g, w):
    def is_prime(x):
        return x >= 2 and all(x % d for d in range(2, int(x ** 0.5) + 1))

    return [(p, p + g) for p in range(a, a + w) if is_prime(p) and is_prime(p + g)]


def mutant_lists(a, *, g, w):
    def is_prime(x):
        return x >= 2 and all(x % d for d in range(2, int(x ** 0.5) + 1))

    return [[p, p + g] for p in range(a, a + w + 1) if is_prime(p) and is_prime(p + g)]


def mutant_one_is_prime(a, *, g, w):
    def is_prime(x):
        return x >= 1 and all(x % d for d in range(2, int(x ** 0.5) + 1))

    return [(p, p + g) for p in range(a, a + w + 1) if is_prime(p) and is_prime(p + g)]


def mutant_odd_trial_only(a, *, g, w):
    def is_prime(x):
        return x >= 2 and all(x % d for d in range(3, int(x ** 0.5) + 1, 2))

    return [(p, p + g) for p in range(a, a + w + 1) if is_prime(p) and is_prime(p + g)]
