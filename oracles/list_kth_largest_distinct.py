"""Oracle for list_kth_largest_distinct: order statistics over distinct values."""


def solution(values, *, k):
    distinct = sorted(set(values), reverse=True)
    if len(distinct) < k:
        return None
    return distinct[k - 1]


def tests(*, k):
    yield ([],), None
    yield (list(range(1, k + 1)),), 1                        # exactly k distinct values
    yield (list(range(k, 0, -1)) * 2,), 1                    # every value twice
    yield (list(range(1, k)),), None                         # one distinct value short
    span = list(range(10, k + 13))
    yield (span[1::2] + span[0::2][::-1],), 13         # 10..k+12 shuffled; k-th from the top is 13
    yield ([5] * (k + 2),), (5 if k == 1 else None)
    yield ([-i for i in range(1, k + 3)],), -k
    # distinct values 1000, 999, then k, k-1, ..., 0: the k-th from the top is 3 once k >= 3
    yield ([1000, 1000, 999] + list(range(k + 1)),), {1: 1000, 2: 999}.get(k, 3)


def inputs(rng, *, k):
    if rng.random() < 0.25:
        # Exactly k distinct values, some repeated.
        distinct = rng.sample(range(-3 * k - 5, 3 * k + 5), k)
        values = distinct + [rng.choice(distinct) for _ in range(rng.randint(0, 3))]
        rng.shuffle(values)
        return (values,)
    pool = rng.choice([3, k, k + 1, k + 4])
    length = rng.choice([0, k - 1, k, k + 2, rng.randint(0, 2 * k + 6)])
    return ([rng.randint(-pool, pool) for _ in range(max(length, 0))],)


def edge_cases(args, *, k):
    values, = args
    hit = [] if values else ["empty"]
    distinct = len(set(values))
    if distinct < len(values):
        hit.append("duplicates")
    if distinct == k:
        hit.append("exactly_k")
    if 0 < distinct < k:
        hit.append("fewer_than_k")
    return hit


def mutant_counts_duplicates(values, *, k):
    ordered = sorted(values, reverse=True)
    return ordered[k - 1] if len(ordered) >= k else None


def mutant_kth_smallest(values, *, k):
    distinct = sorted(set(values))
    return distinct[k - 1] if len(distinct) >= k else None


def mutant_zero_based_k(values, *, k):
    distinct = sorted(set(values), reverse=True)
    return distinct[k] if len(distinct) > k else None


def mutant_strict_length_check(values, *, k):
    distinct = sorted(set(values), reverse=True)
    return distinct[k - 1] if len(distinct) > k else None


def mutant_minus_one_when_missing(values, *, k):
    distinct = sorted(set(values), reverse=True)
    return distinct[k - 1] if len(distinct) >= k else -1
