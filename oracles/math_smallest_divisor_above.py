"""Oracle for smallest_divisor_above: the first divisor past an exclusive threshold."""


def solution(n, *, k):
    for d in range(k + 1, n + 1):
        if n % d == 0:
            return d
    return -1


def tests(*, k):
    yield (1,), (1 if k == 0 else -1)
    if k >= 1:
        yield (k,), -1  # n == k: nothing strictly greater divides it
        yield (k * (k + 2),), k + 2  # k itself divides it but is not strictly greater
    yield (k + 1,), k + 1
    yield (2 * (k + 1),), k + 1
    if 1 <= k < 997:
        yield (k * 997,), 997  # 997 is prime: the divisors are d and 997*d for d dividing k
    yield (1009,), (1 if k == 0 else 1009)  # a prime: divisors are 1 and itself
    powers = [2 ** i for i in range(11)]
    yield (1024,), min(p for p in powers if p > k)


def inputs(rng, *, k):
    r = rng.random()
    if r < 0.3:
        return (rng.choice([max(1, k - 1), max(1, k), k + 1, k + 2, 2 * k, 2 * k + 2, k * k + k or 1]),)
    if r < 0.6:
        return (max(1, k) * rng.randint(1, 30),)
    return (rng.randint(1, 5000),)


def mutant_inclusive_threshold(n, *, k):
    for d in range(max(k, 1), n + 1):
        if n % d == 0:
            return d
    return -1


def mutant_excludes_n(n, *, k):
    for d in range(k + 1, n):
        if n % d == 0:
            return d
    return -1


def mutant_sqrt_shortcut(n, *, k):
    d = k + 1
    while d * d <= n:
        if n % d == 0:
            return d
        d += 1
    return n if n > k else -1


def mutant_starts_at_two(n, *, k):
    for d in range(max(k + 1, 2), n + 1):
        if n % d == 0:
            return d
    return -1
