"""Oracle for set_count_shared_subsets: k-subsets of a union with enough shared elements."""


def solution(a, b, *, k, m):
    import itertools

    common = a & b
    return sum(1 for combo in itertools.combinations(sorted(a | b), k) if len(common.intersection(combo)) >= m)


def _choose(n, r):
    if r < 0 or r > n:
        return 0
    out = 1
    for i in range(r):
        out = out * (n - i) // (i + 1)
    return out


def _expected(a, b, k, m):
    # Independent of solution(): choose j shared and k - j unshared elements.
    c = len(a & b)
    u = len(a | b) - c
    return sum(_choose(c, j) * _choose(u, k - j) for j in range(m, k + 1))


def tests(*, k, m):
    cases = [
        (set(), set()),
        ({1, 2, 3}, {2, 3, 4}),
        ({1, 2, 3}, set()),
        (set(range(6)), set(range(6))),
        (set(range(0, 8)), set(range(4, 12))),
        ({-1, 0, 1}, {5, 6, 7, 8}),
        (set(range(12)), {0, 1, 2}),
    ]
    for a, b in cases:
        yield (set(a), set(b)), _expected(a, b, k, m)


def inputs(rng, *, k, m):
    pool = list(range(rng.choice([3, 8, 12])))
    a = {x for x in pool if rng.random() < 0.6}
    b = {x for x in pool if rng.random() < 0.6}
    return (a, b)


def edge_cases(args, *, k, m):
    a, b = args
    if not a | b:
        return ["empty"]
    hit = ["disjoint"] if not a & b else []
    if len(a | b) < k:
        hit.append("fewer_than_k")
    return hit


def mutant_exactly_m(a, b, *, k, m):
    import itertools

    return sum(1 for c in itertools.combinations(sorted(a | b), k) if len((a & b).intersection(c)) == m)


def mutant_more_than_m(a, b, *, k, m):
    import itertools

    return sum(1 for c in itertools.combinations(sorted(a | b), k) if len((a & b).intersection(c)) > m)


def mutant_at_most_k(a, b, *, k, m):
    import itertools

    return sum(1 for r in range(k + 1) for c in itertools.combinations(sorted(a | b), r) if len((a & b).intersection(c)) >= m)


def mutant_subsets_of_a(a, b, *, k, m):
    import itertools

    return sum(1 for c in itertools.combinations(sorted(a), k) if len((a & b).intersection(c)) >= m)


def mutant_shared_in_a_only(a, b, *, k, m):
    import itertools

    return sum(1 for c in itertools.combinations(sorted(a | b), k) if len(a.intersection(c)) >= m)
