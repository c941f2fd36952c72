"""Oracle for list_count_peaks_at_distance: counting strict peaks against elements d away."""


def solution(values, *, d):
    return sum(1 for i in range(d, len(values) - d) if values[i] > values[i - d] and values[i] > values[i + d])


def tests(*, d):
    def expected(values):
        # Independent of solution(): walk the pairs (left, right) explicitly.
        count = 0
        for i, v in enumerate(values):
            left = i - d
            right = i + d
            if left >= 0 and right <= len(values) - 1 and v > values[left] and v > values[right]:
                count += 1
        return count

    yield ([],), 0
    yield ([0] * d + [5] + [0] * d,), 1
    yield ([0] * d + [5] + [0] * (d - 1),), 0          # nothing d places after
    yield ([0] * d + [5] + [5] * d,), 0                # equal is not greater
    yield ([9] + [1] * (2 * d) + [9],), 0              # the ends never count
    for values in ([(i * 7) % 11 for i in range(3 * d + 4)], [i % (d + 2) for i in range(4 * d + 1)], [5, 1] * (d + 2)):
        yield (values,), expected(values)


def inputs(rng, *, d):
    length = rng.choice([2 * d, 2 * d + 1, 2 * d + 2, rng.randint(0, 3 * d + 6)])
    return ([rng.randint(0, 4) for _ in range(length)],)


def edge_cases(args, *, d):
    values, = args
    if not values:
        return ["empty"]
    if len(values) < 2 * d + 1:
        return ["too_short"]
    return ["exactly_fits"] if len(values) == 2 * d + 1 else []


def mutant_adjacent(values, *, d):
    return sum(1 for i in range(1, len(values) - 1) if values[i] > values[i - 1] and values[i] > values[i + 1])


def mutant_wraps_around(values, *, d):
    n = len(values)
    return sum(1 for i in range(n) if values[i] > values[i - d] and values[i] > values[(i + d) % n]) if n else 0


def mutant_allows_ties(values, *, d):
    return sum(1 for i in range(d, len(values) - d) if values[i] >= values[i - d] and values[i] >= values[i + d])


def mutant_misses_last(values, *, d):
    return sum(1 for i in range(d, len(values) - d - 1) if values[i] > values[i - d] and values[i] > values[i + d])


def mutant_one_side(values, *, d):
    return sum(1 for i in range(d, len(values)) if values[i] > values[i - d])
