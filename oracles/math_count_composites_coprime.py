"""Oracle for math_count_composites_coprime: counting composites that avoid a divisor."""


def solution(a, b, *, d):
    count = 0
    for x in range(max(a, 4), b + 1):
        if x % d == 0:
            continue
        if any(x % f == 0 for f in range(2, int(x ** 0.5) + 1)):
            count += 1
    return count


def tests(*, d):
    # Composites listed by marking products i * j (independent of trial division).
    limit = 400
    composite = [False] * (limit + 1)
    for i in range(2, limit + 1):
        for j in range(2, limit // i + 1):
            composite[i * j] = True

    def expected(a, b):
        return sum(1 for x in range(max(a, 0), b + 1) if composite[x] and x % d != 0)

    for a, b in ((-10, 10), (0, 1), (4, 4), (4, 9), (5, 7), (8, 8), (9, 3), (-5, -1), (1, 100), (d, d), (2 * d - 1, 2 * d + 1), (200, 400)):
        yield (a, b), (expected(a, b) if a <= b else 0)


def inputs(rng, *, d):
    a = rng.choice([-5, 0, 1, 4, d, rng.randint(-20, 300)])
    b = rng.choice([a - 1, a, a + 1, a + rng.randint(0, 60), d + 1])
    return (a, b)


def edge_cases(args, *, d):
    a, b = args
    hit = ["empty"] if a > b else []
    if a < 0:
        hit.append("negative")
    if a == b:
        hit.append("equal_bounds")
    return hit


def mutant_counts_non_primes(a, b, *, d):
    count = 0
    for x in range(a, b + 1):
        if x % d != 0 and not (x >= 2 and all(x % f for f in range(2, int(x ** 0.5) + 1))):
            count += 1
    return count


def mutant_exclusive_b(a, b, *, d):
    return sum(1 for x in range(max(a, 4), b) if x % d != 0 and any(x % f == 0 for f in range(2, int(x ** 0.5) + 1)))


def mutant_ignores_d(a, b, *, d):
    return sum(1 for x in range(max(a, 4), b + 1) if any(x % f == 0 for f in range(2, int(x ** 0.5) + 1)))


def mutant_divisible_only(a, b, *, d):
    return sum(1 for x in range(max(a, 4), b + 1) if x % d == 0 and any(x % f == 0 for f in range(2, int(x ** 0.5) + 1)))


def mutant_exclusive_a(a, b, *, d):
    return sum(1 for x in range(max(a + 1, 4), b + 1) if x % d != 0 and any(x % f == 0 for f in range(2, int(x ** 0.5) + 1)))
